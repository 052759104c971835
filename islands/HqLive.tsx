/**
 * The live dashboard (docs/dashboard.md "Live updates") in the browser: listens to `/hq/live` (server-sent
 * events) and, when a change of one of `topics` is committed, fetches the same page again and swaps each
 * `[data-live]` region one of whose own topics changed for the fresh one, without a reload (the HQ shell
 * renders one island per page with every region's topics: components/hq/live.tsx). Changes arriving while
 * a refresh runs are folded into one more refresh. The refreshes say they are passive (`X-HQ-Live: 1`): they do not keep an unattended
 * session alive; when the session ends (the stream's `end` event, or a refresh that is not the page), it
 * stops. What the user entered and has not sent (a box ticked, a reason typed) and the field they are in
 * stay across a swap. A row a refresh brings (islands/_live_rows.ts,
 * docs/live-rows.md) is highlighted for a few seconds and announced to screen readers. Renders nothing:
 * without JavaScript the page is the same, only static.
 */
import { useEffect } from "preact/hooks";
import { LiveRows } from "@/islands/_live_rows.ts";

export interface HqLiveProps {
  /** The change topics this page shows (db/queries/changes.ts): `movements`, `parts`, `announcements`. */
  topics: string[];
}

type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
const FIELDS = "input:not([type=hidden]), textarea, select";

/**
 * A field by what it submits, which stays the same in a fresh copy of the page: its form's action (when
 * the form is inside the region), its name, and a checkbox's value (the parts list's labels).
 */
function fieldKey(field: Field, region: Element): string {
  const form = field.closest("form");
  const action = form && region.contains(form) ? form.getAttribute("action") : "";
  const box = field instanceof HTMLInputElement && field.type === "checkbox";
  return `${action} ${field.name}${box ? `=${field.value}` : ""}`;
}

const isBox = (f: Field) => f instanceof HTMLInputElement && (f.type === "checkbox" || f.type === "radio");

/**
 * What the user entered in a region and has not sent yet (a box ticked, a decline reason half typed) and
 * the field they are in, put back into its fresh copy: a refresh never takes a user's input from them.
 */
function keepInput(region: Element, fresh: Element): () => void {
  const entered = new Map<string, Field>();
  region.querySelectorAll<Field>(FIELDS).forEach((f) => {
    const changed = isBox(f)
      ? (f as HTMLInputElement).checked !== (f as HTMLInputElement).defaultChecked
      : f instanceof HTMLSelectElement
      ? [...f.options].some((o) => o.selected !== o.defaultSelected)
      : f.value !== f.defaultValue;
    if (changed) entered.set(fieldKey(f, region), f);
  });
  const focused = document.activeElement;
  const focusKey = focused && region.contains(focused) && focused.matches(FIELDS)
    ? fieldKey(focused as Field, region)
    : null;
  let refocus: Field | null = null;
  fresh.querySelectorAll<Field>(FIELDS).forEach((f) => {
    const key = fieldKey(f, fresh);
    const old = entered.get(key);
    if (old && isBox(f)) (f as HTMLInputElement).checked = (old as HTMLInputElement).checked;
    else if (old) f.value = old.value;
    if (key === focusKey) refocus = f;
  });
  return () => {
    const was = focused as Field;
    const field = refocus as Field | null;
    if (!field) return;
    field.focus();
    if (field instanceof HTMLInputElement && "selectionStart" in was && was.selectionStart !== null) {
      try {
        field.setSelectionRange(was.selectionStart, was.selectionEnd);
      } catch {
        // A field without a caret (a number, a date): focus is enough.
      }
    }
  };
}

/** Waits this long after a change for others of the same commit burst (one refresh for a busy moment). */
const SETTLE_MS = 200;

export default function HqLive({ topics }: HqLiveProps) {
  useEffect(() => {
    const rows = new LiveRows(document);
    const source = new EventSource("/hq/live");
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;
    let again = false;
    // The topics changed since the last refresh: a region is swapped only when one of its own changed
    // (the header's queue count and the page's list listen to different topics, components/hq/live.tsx).
    let changed = new Set<string>();
    const stop = () => {
      source.close();
      clearTimeout(timer);
      rows.stop();
    };
    const refresh = async () => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      const topicsNow = changed;
      changed = new Set();
      const wanted = (region: Element) =>
        topicsNow.has("all") ||
        (region.getAttribute("data-live") ?? "").split(" ").some((t) => topicsNow.has(t));
      try {
        const res = await fetch(location.href, { headers: { "X-HQ-Live": "1" } });
        if (!res.ok || res.redirected) return stop();
        const fresh = new DOMParser().parseFromString(await res.text(), "text/html");
        const now = document.querySelectorAll("[data-live]");
        const next = fresh.querySelectorAll("[data-live]");
        now.forEach((region, i) => {
          const other = next[i];
          if (
            other && other.getAttribute("data-live") === region.getAttribute("data-live") && wanted(region)
          ) {
            const fresh = document.importNode(other, true) as Element;
            const refocus = keepInput(region, fresh);
            region.replaceWith(fresh);
            refocus();
          }
        });
        rows.arrived();
      } catch {
        // Offline for a moment: the next change tries again.
      } finally {
        running = false;
        if (again) {
          again = false;
          void refresh();
        }
      }
    };
    source.addEventListener("change", (e) => {
      const topic = (e as MessageEvent<string>).data;
      if (topic !== "all" && !topics.includes(topic)) return;
      changed.add(topic);
      clearTimeout(timer);
      timer = setTimeout(() => void refresh(), SETTLE_MS);
    });
    // Says on the page whether it listens (the browser tests wait for it; handy when looking into one).
    source.addEventListener("ready", () => document.body.setAttribute("data-live-state", "listening"));
    source.addEventListener("end", () => {
      stop();
      document.body.setAttribute("data-live-state", "ended");
    });
    return stop;
  }, [topics.join(" ")]);
  return null;
}
