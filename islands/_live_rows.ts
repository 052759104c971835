/**
 * Rows a live refresh brings (docs/live-rows.md): a row keyed by `liveRow` (components/hq/live.tsx) that was
 * not on the page before and was made since the page was (`data-live-since`) gets the class `live-new`,
 * which fades its highlight away (static/styles.css; a static marker under prefers-reduced-motion) and is
 * taken off after the highlight's time; a refresh in between keeps it on the fresh copy. The rows of one
 * refresh are announced together in the page's one polite live region, once.
 */

/** How long a new row stays highlighted; `data-live-highlight-ms` on the body sets another (tests). */
export const HIGHLIGHT_MS = 6000;
/** At most this many rows are named in one announcement; the rest are counted. */
const NAMED = 5;
const NEWS_ID = "hq-live-news";

export class LiveRows {
  #seen = new Set<string>();
  #since: number;
  /** Highlighted rows: key → when the highlight started (performance.now()). */
  #lit = new Map<string, number>();
  #timers = new Set<ReturnType<typeof setTimeout>>();

  private doc: Document;

  constructor(doc: Document) {
    this.doc = doc;
    const rows = this.#rows();
    for (const row of rows) this.#seen.add(row.dataset.liveKey!);
    const since = Number(doc.querySelector("[data-live-since]")?.getAttribute("data-live-since"));
    this.#since = Number.isFinite(since) && since > 0
      ? since
      : Math.max(0, ...rows.map((r) => Number(r.dataset.liveAt) + 1));
    this.#news();
  }

  #rows(): HTMLElement[] {
    return [...this.doc.querySelectorAll<HTMLElement>("[data-live] [data-live-key]")];
  }

  #duration(): number {
    const ms = Number(this.doc.body.dataset.liveHighlightMs);
    return Number.isFinite(ms) && ms > 0 ? ms : HIGHLIGHT_MS;
  }

  /** The page's one polite live region: made once, before anything is announced, so readers notice it. */
  #news(): HTMLElement {
    let news = this.doc.getElementById(NEWS_ID);
    if (!news) {
      news = this.doc.createElement("div");
      news.id = NEWS_ID;
      news.setAttribute("role", "status");
      news.setAttribute("aria-live", "polite");
      news.className = "sr-only";
      news.dataset.testid = "live-news";
      this.doc.body.append(news);
    }
    return news;
  }

  /** After a swap: highlights and announces what is new, and keeps the highlights still running. */
  arrived(): void {
    const now = performance.now();
    const duration = this.#duration();
    const fresh: HTMLElement[] = [];
    for (const row of this.#rows()) {
      const key = row.dataset.liveKey!;
      if (!this.#seen.has(key)) {
        this.#seen.add(key);
        if (Number(row.dataset.liveAt) >= this.#since) {
          fresh.push(row);
          this.#lit.set(key, now);
          const timer = setTimeout(() => this.#unlight(key, timer), duration);
          this.#timers.add(timer);
        }
      }
      const started = this.#lit.get(key);
      if (started !== undefined) light(row, duration, now - started);
    }
    if (fresh.length) this.#announce(fresh.map((r) => r.dataset.liveSay ?? "a row"));
  }

  #unlight(key: string, timer: ReturnType<typeof setTimeout>): void {
    this.#timers.delete(timer);
    this.#lit.delete(key);
    for (const row of this.#rows()) {
      if (row.dataset.liveKey === key) {
        row.classList.remove("live-new");
        delete row.dataset.liveNew;
        row.style.removeProperty("animation-duration");
        row.style.removeProperty("animation-delay");
      }
    }
  }

  #announce(says: string[]): void {
    const named = says.slice(0, NAMED).join("; ");
    const more = says.length > NAMED ? `; and ${says.length - NAMED} more` : "";
    this.#news().textContent = says.length === 1 ? `New ${named}` : `${says.length} new: ${named}${more}`;
  }

  stop(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}

/** Marks a row new; a copy made mid-highlight continues the fade where it was (a negative delay). */
function light(row: HTMLElement, duration: number, elapsed: number): void {
  row.classList.add("live-new");
  row.dataset.liveNew = "";
  row.style.setProperty("animation-duration", `${duration}ms`);
  row.style.setProperty("animation-delay", `${-Math.round(elapsed)}ms`);
}
