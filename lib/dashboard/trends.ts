/**
 * The trends page (docs/trends.md): its range of depot days, and its three figures as tables, the one shape
 * the page's tables, its charts and its CSV downloads are all written from (so a CSV holds exactly what the
 * table shows).
 *
 * The range: `from` and `to`, dates of the depot's wall clock (DEPOT_TIME_ZONE, D27), both included; by
 * default the 8 weeks (56 days) ending today at the depot; at most 366 days. Refused with a reason, before
 * any row is read: a date that is not one, `from` after `to`, a longer range.
 */
import type { Db } from "@/db/client.ts";
import type { MovementStage } from "@/db/schema.ts";
import {
  countTrendDaysIn,
  type DriverTrendRow,
  driverTrends,
  movementsPerDay,
  type TrendDays,
  trendDaysZone,
  turnaround,
  type TurnaroundRow,
} from "@/db/queries/trends.ts";
import { csvRow, csvStream } from "@/io/csv.ts";
import { dateInZone, dayInZone } from "@/io/time_zone.ts";
import { addDays, dateOf } from "@/lib/dashboard/date_range.ts";
import { ValidationError } from "@/lib/errors.ts";

/** The default range: 8 weeks, today included. */
export const DEFAULT_TREND_DAYS = 56;
/** The longest range: a year, a leap year's included. */
export const MAX_TREND_DAYS = 366;

export interface TrendRange {
  /** First and last date, both included ("YYYY-MM-DD"). */
  from: string;
  to: string;
  /** Every date of the range, in order. */
  dates: string[];
  /** Where each date starts at the depot, then where the last one ends (dates.length + 1 instants). */
  bounds: Date[];
  /** The depot's zone (DEPOT_TIME_ZONE) the dates are in. */
  zone: string;
}

/** Days from `a` to `b` ("2026-11-01" to "2026-11-03": 2); both calendar dates. */
function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}

/**
 * The range a request asks for at `now` in `zone`: `to` defaults to today at the depot, `from` to the
 * 56th day ending on `to`. Throws ValidationError naming the field at fault.
 */
export function trendRangeOf(q: { from?: string; to?: string }, now: Date, zone: string): TrendRange {
  const to = q.to ? dateOf("to", q.to) : dateInZone(now, zone);
  const from = q.from ? dateOf("from", q.from) : addDays(to, 1 - DEFAULT_TREND_DAYS);
  if (from > to) throw new ValidationError("from", "must not be after to");
  const length = daysBetween(from, to) + 1;
  if (length > MAX_TREND_DAYS) {
    throw new ValidationError("to", `must be at most ${MAX_TREND_DAYS} days from from (both included)`);
  }
  const dates = Array.from({ length }, (_, i) => addDays(from, i));
  const bounds = dates.map((d) => dayInZone(d, zone).start);
  bounds.push(dayInZone(to, zone).end);
  return { from, to, dates, bounds, zone };
}

/** A figure's numbers as a table: the page shows it, the chart draws it, the CSV writes it. */
export interface TrendTable {
  caption: string;
  /** Column headings; the first column heads each row. */
  headers: string[];
  rows: string[][];
}

export const STAGE_LABELS: Record<MovementStage, string> = {
  direct_dropoff: "Deliveries",
  reverse_pickup: "Collections",
  reverse_dropoff: "Returns to HQ",
};
export const STAGES = Object.keys(STAGE_LABELS) as MovementStage[];

export interface MovementDay {
  date: string;
  counts: Record<MovementStage, number>;
}

export interface DriverFigure extends DriverTrendRow {
  /** Per active day, one decimal. */
  movements_per_day: number;
  parts_per_day: number;
  stops_per_day: number;
}

export interface TrendFigures {
  range: TrendRange;
  movements: MovementDay[];
  turnaround: TurnaroundRow[];
  drivers: DriverFigure[];
}

const daysOf = (range: TrendRange): TrendDays => ({
  from: range.from,
  to: range.to,
  start: range.bounds[0].toISOString(),
  end: range.bounds[range.bounds.length - 1].toISOString(),
});

/**
 * The day summary counted in the range's zone before it is read: one small read when it is (always, but
 * after the depot's zone changed and the start's own count has not finished: docs/trends.md "At scale").
 */
async function daysCountedIn(db: Db, zone: string): Promise<void> {
  if (await trendDaysZone(db) !== zone) await countTrendDaysIn(db, zone);
}

/** Rounded to one decimal (half away from zero, as a reader rounds). */
export function oneDecimal(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x) * 10) / 10;
}

/** A count or an average as the table and the CSV write it: one decimal, always ("2.0"). */
export const decimal = (x: number) => oneDecimal(x).toFixed(1);

export async function movementFigure(db: Db, range: TrendRange): Promise<MovementDay[]> {
  const days = range.dates.map((date) => ({
    date,
    counts: { direct_dropoff: 0, reverse_pickup: 0, reverse_dropoff: 0 },
  }));
  const index = new Map(range.dates.map((date, i) => [date, i]));
  await daysCountedIn(db, range.zone);
  for (const row of await movementsPerDay(db, daysOf(range))) {
    // The statement reads only the range's dates, so every row's day is one of them.
    days[index.get(row.day)!].counts[row.stage] = row.movements;
  }
  return days;
}

export async function turnaroundFigure(db: Db, range: TrendRange): Promise<TurnaroundRow[]> {
  return await turnaround(db, daysOf(range));
}

export async function driverFigure(db: Db, range: TrendRange): Promise<DriverFigure[]> {
  await daysCountedIn(db, range.zone);
  return (await driverTrends(db, daysOf(range))).map((r) => ({
    ...r,
    movements_per_day: oneDecimal(r.movements / r.active_days),
    parts_per_day: oneDecimal(r.parts / r.active_days),
    stops_per_day: oneDecimal(r.stops / r.active_days),
  }));
}

/** The three figures, read one after another (PGlite runs one statement at a time anyway). */
export async function trendFigures(db: Db, range: TrendRange): Promise<TrendFigures> {
  const movements = await movementFigure(db, range);
  const turnaround = await turnaroundFigure(db, range);
  const drivers = await driverFigure(db, range);
  return { range, movements, turnaround, drivers };
}

export function movementTable(days: MovementDay[]): TrendTable {
  return {
    caption: "Movements per day by type",
    headers: ["Date", ...STAGES.map((s) => STAGE_LABELS[s]), "All"],
    rows: days.map((d) => {
      const counts = STAGES.map((s) => d.counts[s]);
      return [d.date, ...counts.map(String), String(counts.reduce((a, b) => a + b, 0))];
    }),
  };
}

export function turnaroundTable(rows: TurnaroundRow[]): TrendTable {
  return {
    caption: "Turnaround per repair shop, in days (parts back at HQ in the range)",
    headers: [
      "Repair shop",
      "Parts",
      "Delivered to flagged, median",
      "Delivered to flagged, 90th percentile",
      "Flagged to back at HQ, median",
      "Flagged to back at HQ, 90th percentile",
      "Total, median",
      "Total, 90th percentile",
    ],
    rows: rows.map((r) => [
      r.name,
      String(r.parts),
      ...[r.at_shop_median, r.at_shop_p90, r.back_median, r.back_p90, r.total_median, r.total_p90].map(
        decimal,
      ),
    ]),
  };
}

export function driverTable(rows: DriverFigure[]): TrendTable {
  return {
    caption: "Work per driver: totals over the range and averages per active day",
    headers: [
      "Driver",
      "Active days",
      "Movements",
      "Parts",
      "Stops",
      "Movements per active day",
      "Parts per active day",
      "Stops per active day",
    ],
    rows: rows.map((r) => [
      r.name,
      String(r.active_days),
      String(r.movements),
      String(r.parts),
      String(r.stops),
      decimal(r.movements_per_day),
      decimal(r.parts_per_day),
      decimal(r.stops_per_day),
    ]),
  };
}

/**
 * A table as a CSV download: its headings, then its rows, cell for cell what the page shows (io/csv.ts:
 * quoted, defused against formulas; a shop named "=1+1" stays text).
 */
export function tableCsv(table: TrendTable, zone: string): ReadableStream<Uint8Array> {
  let sent = false;
  return csvStream(table.headers, () => {
    const batch = sent ? [] : table.rows;
    sent = true;
    return Promise.resolve(batch);
  }, (row) => csvRow(row, zone));
}
