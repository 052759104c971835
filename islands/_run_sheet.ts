/**
 * The run sheet on the tablet (docs/tablet.md "The run sheet"): the shape `GET /tablet/api/run-sheet`
 * answers, the copy kept on the tablet for dead Wi-Fi, and the rules the pages apply to it: a claim with a
 * movement saved on the tablet and not yet sent counts as done, and "Next claim" is the stop's next claim
 * not done. Pure functions over plain data (tested in tests/run_sheet_islands_test.ts), plus the few
 * `localStorage` reads and writes that keep the copy.
 */
import type { JobName } from "@/components/tablet_jobs.ts";
import type { RunSheetAnswer, RunSheetLine, RunSheetStop, RunSheetTrip } from "@/components/run_sheet.ts";

/** One claim line of a stop: parts to deliver to the shop or to collect from it. */
export interface SheetClaim extends RunSheetLine {
  /** Parts of it in movements saved on this tablet, waiting for the network (done when all are). */
  saved?: number;
}

export interface SheetStop extends Omit<RunSheetStop, "deliver" | "collect"> {
  deliver: SheetClaim[];
  collect: SheetClaim[];
}

/** A return trip on the road to HQ. */
export interface TruckClaim extends RunSheetTrip {
  /** Parts of it returned in movements saved on this tablet, waiting for the network. */
  saved?: number;
}

/** The answer of `GET /tablet/api/run-sheet` (components/run_sheet.ts), as the tablet marks it up. */
export interface RunSheet extends Omit<RunSheetAnswer, "stops" | "onTruck"> {
  stops: SheetStop[];
  onTruck: TruckClaim[];
}

/** A movement the tablet holds and has not sent: which job, for which claim, how many parts. */
export interface SavedMovement {
  job: JobName;
  claimNumber: string;
  parts: number;
}

/**
 * The sheet as this tablet knows it: a claim line whose parts are all in movements saved here for its job
 * (confirmed, not yet sent) is done, as the server will say once they are sent, and each stop's count
 * follows; a line with only some of its parts saved says how many (`saved`) and stays to do. The
 * server's "done" is never undone here.
 */
export function withSaved(sheet: RunSheet, saved: SavedMovement[]): RunSheet {
  const savedParts = (job: JobName, claimNumber: string) =>
    saved.filter((m) => m.job === job && m.claimNumber === claimNumber).reduce((n, m) => n + m.parts, 0);
  const mark = (job: JobName) => (line: SheetClaim): SheetClaim => {
    const n = line.done ? 0 : savedParts(job, line.claimNumber);
    return n === 0 ? line : { ...line, done: n >= line.parts, saved: n };
  };
  return {
    ...sheet,
    stops: sheet.stops.map((stop) => {
      const deliver = stop.deliver.map(mark("deliver"));
      const collect = stop.collect.map(mark("collect"));
      const added = [...deliver, ...collect].filter((l) => l.saved && l.done).length;
      return { ...stop, deliver, collect, done: Math.min(stop.total, stop.done + added) };
    }),
    onTruck: sheet.onTruck.map((t) => {
      const n = savedParts("return", t.claimNumber);
      return n === 0 ? t : { ...t, saved: n };
    }),
  };
}

export interface StopClaim extends SheetClaim {
  job: "deliver" | "collect";
}

/** A stop's claims in the order the driver works through them: drop-offs first, then collections. */
export function claimsOf(stop: SheetStop): StopClaim[] {
  return [
    ...stop.deliver.map((c) => ({ ...c, job: "deliver" as const })),
    ...stop.collect.map((c) => ({ ...c, job: "collect" as const })),
  ];
}

/**
 * The stop's next claim not done after `current` (the one on screen), wrapping round to the first; null
 * when every other claim of the stop is done.
 */
export function nextClaim(stop: SheetStop, current?: { job: string; rego: string }): StopClaim | null {
  const lines = claimsOf(stop);
  const at = current ? lines.findIndex((l) => l.job === current.job && sameRego(l.rego, current.rego)) : -1;
  const order = [...lines.slice(at + 1), ...lines.slice(0, Math.max(at, 0))];
  return order.find((l) => !l.done) ?? null;
}

/** Regos as a driver types them: case and spaces do not matter ("xyz 789" is XYZ789). */
export const sameRego = (a: string, b: string) =>
  a.replace(/\s+/g, "").toUpperCase() === b.replace(/\s+/g, "").toUpperCase();

/** The job page for a claim, searching its rego at once; `stop` keeps the stop for "Next claim". */
export function claimHref(job: JobName, rego: string, stop?: number): string {
  return `/tablet/${job}?rego=${encodeURIComponent(rego)}${stop ? `&stop=${stop}` : ""}`;
}

/**
 * "as of 07:42" on the depot's clock (`DEPOT_TIME_ZONE`, the zone every tablet time is in), with the
 * depot's date when the copy is from another day ("as of 2026-11-26 16:05").
 */
export function asOfText(asOf: string, zone: string, now = new Date()): string {
  const at = new Date(asOf);
  if (Number.isNaN(at.getTime())) return "";
  const parts = (d: Date) => {
    const p = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).formatToParts(d);
    const get = (t: string) => p.find((x) => x.type === t)?.value ?? "";
    return { date: `${get("year")}-${get("month")}-${get("day")}`, time: `${get("hour")}:${get("minute")}` };
  };
  const then = parts(at);
  return then.date === parts(now).date ? `as of ${then.time}` : `as of ${then.date} ${then.time}`;
}

/** The shape check of a kept or fetched sheet: anything else is ignored rather than half-rendered. */
export function isRunSheet(value: unknown): value is RunSheet {
  const s = value as RunSheet | null;
  return !!s && typeof s.date === "string" && typeof s.asOf === "string" && Array.isArray(s.stops) &&
    Array.isArray(s.onTruck) && Array.isArray(s.needsHq);
}

const SHEET_KEY = (userId: number) => `pm.runSheet.${userId}`;
const STOP_KEY = (userId: number) => `pm.runStop.${userId}`;

/** The copy kept on this tablet for this driver (a shared tablet keeps one per driver), or null. */
export function keptSheet(userId: number): RunSheet | null {
  try {
    const value = JSON.parse(localStorage.getItem(SHEET_KEY(userId)) ?? "null");
    return isRunSheet(value) ? value : null;
  } catch {
    return null;
  }
}

export function keepSheet(userId: number, sheet: RunSheet): void {
  try {
    localStorage.setItem(SHEET_KEY(userId), JSON.stringify(sheet));
  } catch { /* storage full or off: the sheet still shows, it just is not kept */ }
}

/** The stop the driver is working through (set when a claim is opened from the sheet), or null. */
export function currentStop(userId: number): number | null {
  try {
    return Number(localStorage.getItem(STOP_KEY(userId))) || null;
  } catch {
    return null;
  }
}

export function setCurrentStop(userId: number, repairerId: number | null): void {
  try {
    if (repairerId) localStorage.setItem(STOP_KEY(userId), String(repairerId));
    else localStorage.removeItem(STOP_KEY(userId));
  } catch { /* off: "Next claim" then only shows from a page opened with ?stop= */ }
}

const FOUND_KEY = (userId: number) => `pm.runFound.${userId}`;
/** The entry of the kept searches naming the lines they were made for (no job:rego key is empty). */
const LINES = "lines";
export const foundKey = (job: string, rego: string) => `${job}:${rego.replace(/\s+/g, "").toUpperCase()}`;

/**
 * The searches of the sheet's claims, kept with the sheet so a claim opens in a dead spot: the job page
 * shows the parts as the server last found them, and the submission, sent later, is checked by the server
 * then (a part gone meanwhile is refused next to it, as any queued movement is).
 */
export function keptFound<T>(userId: number, job: string, rego: string): T | null {
  try {
    return JSON.parse(localStorage.getItem(FOUND_KEY(userId)) ?? "{}")[foundKey(job, rego)] ?? null;
  } catch {
    return null;
  }
}

/** The lines of the sheet worth keeping a search for: the driver's own stops' claims not done yet. */
export function linesToKeep(sheet: RunSheet): { job: JobName; rego: string; parts: number }[] {
  return sheet.stops.filter((s) => s.mine).flatMap((s) => claimsOf(s)).filter((l) => !l.done)
    .map((l) => ({ job: l.job, rego: l.rego, parts: l.parts }));
}

/**
 * Keeps `found` (job:rego → answer) in place of the previous set (claims off the sheet are dropped), with
 * `lines`, what it was searched for: the same lines later need no new searches (keptLinesOf).
 */
export function keepFound(userId: number, found: Map<string, unknown>, lines: string): void {
  const value: Record<string, unknown> = { [LINES]: lines };
  for (const [k, v] of found) value[k] = v;
  try {
    localStorage.setItem(FOUND_KEY(userId), JSON.stringify(value));
  } catch { /* full or off: those claims then need the network */ }
}

/** What the kept searches were made for ("" when none are kept). */
export function keptLinesOf(userId: number): string {
  try {
    const lines = JSON.parse(localStorage.getItem(FOUND_KEY(userId)) ?? "{}")[LINES];
    return typeof lines === "string" ? lines : "";
  } catch {
    return "";
  }
}
