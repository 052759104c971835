/**
 * The run sheet as a page sees it: the copy kept on the tablet at once, then the server's when it answers
 * (kept in turn), with the movements saved on the tablet and not yet sent counted as done
 * (islands/_run_sheet.ts). It asks the server again when HQ's plan, a movement or a part changes (the change
 * feed, docs/runs.md), when the network comes back, when the queue sends a movement, when the tablet wakes
 * (the page becomes visible) and every 30 s as a fallback, so a sheet left open follows what the other
 * drivers and HQ do. Every such read is passive: it does not keep an idle tablet signed in.
 */
import { useEffect, useState } from "preact/hooks";
import { getJson, postJson } from "./_tablet_net.ts";
import { queueFor } from "./_tablet_queue.ts";
import { movementsOf } from "./_tablet_queue_db.ts";
import {
  foundKey,
  isRunSheet,
  keepFound,
  keepSheet,
  keptLinesOf,
  keptSheet,
  linesToKeep,
  type RunSheet,
  type SavedMovement,
  withSaved,
} from "./_run_sheet.ts";

export const RUN_SHEET_URL = "/tablet/api/run-sheet";
const REFRESH_MS = 30_000;
/** At most this many searches kept with the sheet (a day's own stops hold far fewer claims). */
const MAX_KEPT = 40;

/**
 * Searches the driver's own claims not done yet, as the job pages would, and keeps the answers with the
 * sheet (islands/_run_sheet.ts keptFound), so each opens in a dead spot too. Lines already kept (the same
 * claims and part counts) are not searched again: the server checks every part when the movement is sent.
 */
async function keepSearches(userId: number, csrf: string, sheet: RunSheet): Promise<void> {
  const lines = linesToKeep(sheet).slice(0, MAX_KEPT);
  const which = JSON.stringify(lines);
  if (which === keptLinesOf(userId) || which === searching) return;
  searching = which;
  try {
    const found = new Map<string, unknown>();
    for (const { job, rego } of lines) {
      const answer = await postJson<unknown>("/tablet/api/search", { job, rego }, csrf, { passive: true });
      if (answer.status === 0) return; // the network went: try again with the next sheet
      if (answer.data) found.set(foundKey(job, rego), answer.data);
    }
    keepFound(userId, found, which);
  } finally {
    searching = "";
  }
}

/** The lines being searched now (one round at a time per page). */
let searching = "";

/** The change topics that can change a sheet (db/queries/changes.ts). */
const SHEET_TOPICS = new Set(["all", "runs", "movements", "parts"]);
/** Changes come in bursts (a submission touches several parts): one read after the burst settles. */
const SETTLE_MS = 300;

/**
 * Calls `changed` after a burst of sheet changes on the tablet's change feed (`GET /tablet/api/live`, a
 * passive stream that ends with the session); marks the page `data-live-state` (listening, ended) as the
 * dashboard's live pages do. Without a network the stream is closed (nothing can come) and opened again when
 * the network returns, which also reads the sheet. Returns the stop function.
 */
function listenForChanges(changed: () => void): () => void {
  let source: EventSource | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ended = false;
  const open = () => {
    if (source || ended || !navigator.onLine) return;
    const s = new EventSource("/tablet/api/live");
    s.addEventListener("change", (e) => {
      if (!SHEET_TOPICS.has((e as MessageEvent<string>).data)) return;
      clearTimeout(timer);
      timer = setTimeout(changed, SETTLE_MS);
    });
    s.addEventListener("ready", () => document.body.setAttribute("data-live-state", "listening"));
    s.addEventListener("end", () => {
      ended = true;
      close();
      document.body.setAttribute("data-live-state", "ended");
    });
    source = s;
  };
  const close = () => {
    source?.close();
    source = null;
  };
  globalThis.addEventListener("online", open);
  globalThis.addEventListener("offline", close);
  open();
  return () => {
    globalThis.removeEventListener("online", open);
    globalThis.removeEventListener("offline", close);
    close();
    clearTimeout(timer);
  };
}

export interface RunSheetState {
  /** The sheet with the tablet's saved movements counted, or null before any copy exists. */
  sheet: RunSheet | null;
  /** The last ask got no answer: what shows is the copy kept on the tablet. */
  offline: boolean;
  /** The last ask was refused (a message to show), e.g. the server failed. */
  error: string | null;
  /** The first ask has been answered (or failed). */
  settled: boolean;
}

async function savedMovements(userId: number): Promise<SavedMovement[]> {
  try {
    return (await movementsOf(userId)).filter((m) => m.state === "queued")
      .map((m) => ({
        job: m.job,
        claimNumber: m.found.claim_number,
        parts: m.parts.filter((p) => p.confirmed).length,
      }));
  } catch {
    return []; // no IndexedDB (private mode): nothing can be saved on the tablet either
  }
}

/** `keepClaims`: also keep the searches of the driver's claims (the home does; a job page need not). */
export function useRunSheet(userId: number, csrf: string, keepClaims = false): RunSheetState {
  const [state, setState] = useState<RunSheetState>({
    sheet: null,
    offline: false,
    error: null,
    settled: false,
  });

  useEffect(() => {
    let server: RunSheet | null = keptSheet(userId);
    let alive = true;
    let asking = false;
    const show = async (patch: Partial<RunSheetState>) => {
      const saved = await savedMovements(userId);
      if (!alive) return;
      setState((s) => ({ ...s, ...patch, sheet: server && withSaved(server, saved) }));
    };
    const ask = async () => {
      if (asking) return;
      asking = true;
      const answer = await getJson<unknown>(RUN_SHEET_URL, csrf);
      asking = false;
      if (answer.status === 200 && isRunSheet(answer.data)) {
        server = answer.data;
        keepSheet(userId, server);
        if (keepClaims) void keepSearches(userId, csrf, server);
        await show({ offline: false, error: null, settled: true });
      } else if (answer.status === 0) {
        await show({ offline: true, error: null, settled: true });
      } else if (answer.status !== 401) {
        await show({
          offline: false,
          error: answer.message ?? `The run sheet could not be loaded (${answer.status}).`,
          settled: true,
        });
      }
    };
    void show({});
    void ask();

    const off = queueFor(userId, csrf).subscribe((e) => {
      if (e.type === "sent") void ask();
      else if (e.type === "changed") void show({});
    });
    const onVisible = () => {
      if (document.visibilityState === "visible") void ask();
    };
    globalThis.addEventListener("online", ask);
    document.addEventListener("visibilitychange", onVisible);
    const timer = setInterval(ask, REFRESH_MS);
    const live = listenForChanges(() => void ask());
    return () => {
      alive = false;
      live();
      off();
      globalThis.removeEventListener("online", ask);
      document.removeEventListener("visibilitychange", onVisible);
      clearInterval(timer);
    };
  }, [userId, csrf]);

  return state;
}
