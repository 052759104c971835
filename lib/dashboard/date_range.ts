/**
 * The movements list's and export's dates (docs/dashboard.md "Dates"): `range=today|yesterday|custom`, a
 * custom range's `from` and `to` (YYYY-MM-DD, both ends included), days of the depot's zone
 * (`DEPOT_TIME_ZONE`, D27), so "today" at the depot is today whatever the server's zone. Refused with a
 * reason, before any row is read: an unknown range, a date that is not one, `from` after `to`.
 */
import { dateInZone, dayInZone } from "@/io/time_zone.ts";
import { ValidationError } from "@/lib/errors.ts";

export const DATE_RANGES = ["today", "yesterday", "custom"] as const;
export type DateRange = (typeof DATE_RANGES)[number];

/** The instants a range covers: from `from` (included) to `before` (excluded); an end left open is absent. */
export interface TimeWindow {
  from?: Date;
  before?: Date;
}

/** The range as typed, for the form and the links: what the list keeps in its URL. */
export interface KeptRange {
  range?: DateRange;
  from?: string;
  to?: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** Dates before this are typing slips, not movements (the service began in 2026). */
const FIRST_YEAR = 2000;

/** `value` as a date of the calendar ("2026-02-30" is not one); throws ValidationError naming `field`. */
export function dateOf(field: string, value: string): string {
  const m = DATE.exec(value);
  const ok = m && Number(m[1]) >= FIRST_YEAR &&
    new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))).toISOString().slice(0, 10) === value;
  if (!ok) throw new ValidationError(field, "must be a date such as 2026-11-21");
  return value;
}

/** The date `days` after `date` (negative: before; "2026-03-01", -1 → "2026-02-28"). */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** The instants of one date of the depot's zone, typed as `field`; throws ValidationError for a date that is not one. */
export function dayWindowOf(field: string, value: string, zone: string): Required<TimeWindow> {
  const day = dayInZone(dateOf(field, value), zone);
  return { from: day.start, before: day.end };
}

/** The date before `date` ("2026-03-01" → "2026-02-28"). */
function dayBefore(date: string): string {
  return addDays(date, -1);
}

/**
 * The range a request asks for, at `now` in `zone`: what it keeps in its URL and the instants it covers
 * (none: no range). `from` or `to` without `range` (typed into the form with "Any time" left selected) is
 * a custom range; with `today` or `yesterday` they are dropped.
 */
export function dateRangeOf(
  q: { range?: string; from?: string; to?: string },
  now: Date,
  zone: string,
): { kept: KeptRange; window?: TimeWindow } {
  const range = q.range ?? (q.from || q.to ? "custom" : undefined);
  if (range === undefined) return { kept: {} };
  if (!(DATE_RANGES as readonly string[]).includes(range)) {
    throw new ValidationError("range", `must be one of ${DATE_RANGES.join(", ")}`);
  }
  if (range === "custom") {
    const from = q.from ? dateOf("from", q.from) : undefined;
    const to = q.to ? dateOf("to", q.to) : undefined;
    if (from && to && from > to) throw new ValidationError("from", "must not be after to");
    return {
      kept: { range, from, to },
      window: {
        from: from ? dayInZone(from, zone).start : undefined,
        before: to ? dayInZone(to, zone).end : undefined,
      },
    };
  }
  const today = dateInZone(now, zone);
  const day = dayInZone(range === "today" ? today : dayBefore(today), zone);
  return { kept: { range: range as DateRange }, window: { from: day.start, before: day.end } };
}
