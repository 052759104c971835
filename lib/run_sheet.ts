/**
 * The run sheet (docs/runs.md): the day's stops derived from the parts' statuses, never typed by anyone.
 * - a stop is a repair shop with claim lines: *deliver* (the claim's parts `Arrived` at HQ, the claim's
 *   repairer is this shop) and *collect* (parts `Pending Repair Shop Pick-Up` there);
 * - a line is done when no part is left in the status that made it work (someone moved them during the
 *   day); a stop's progress is its lines done / total. Work that became work before the day counts: a sheet
 *   is what is open now plus what was done that day (a past day: what was done);
 * - claims with such parts and no repairer (no management record, or none on it) are *Needs HQ*, never
 *   dropped; open return trips are *on the truck*, listed once;
 * - HQ's plan (lib/run_plan.ts, table run_stops) only says who visits a stop and in which order: a part
 *   moved by anyone leaves every plan at once, and the plan never blocks a driver from any job.
 * A driver (or an admin on a tablet) sees their own stops first in HQ's order, then the unassigned ones;
 * not the stops of other drivers.
 */
import type { QueryRunner } from "@/db/queries/compiled.ts";
import {
  COLLECT_STATUS,
  openReturnTrips,
  runSheetLines,
  type RunStopRow,
  runStopsOf,
  type SheetLineRow,
} from "@/db/queries/run_sheet.ts";
import type { User } from "@/db/schema.ts";
import { dateInZone, dayInZone } from "@/io/time_zone.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { type RepairerDetails, repairersWithDetails } from "@/lib/places/read.ts";

export type JobKind = "deliver" | "collect";

export interface SheetLine {
  claimId: number;
  claimNumber: string;
  rego: string;
  job: JobKind;
  /** Parts still to move; when done, the parts moved that day. */
  parts: number;
  done: boolean;
}

export interface Stop {
  shop: RepairerDetails;
  deliver: SheetLine[];
  collect: SheetLine[];
  /** Lines done, of `total`. */
  done: number;
  total: number;
  /** HQ's plan: the driver and their run's place (1, 2, …); null when unassigned. */
  assignedTo: { id: number; name: string } | null;
  position: number | null;
}

export interface TripOnTruck {
  movementId: number;
  claimNumber: string;
  rego: string;
  parts: number;
  /** The shop it was picked up at. */
  from: string | null;
  pickedUpBy: number;
}

export interface RunDay {
  /** The depot's date, "YYYY-MM-DD". */
  date: string;
  /** When it was read. */
  asOf: Date;
  /** Every stop: assigned ones by driver (id) and position, then the unassigned by shop name. */
  stops: Stop[];
  onTruck: TripOnTruck[];
  needsHq: SheetLine[];
}

/** The depot's date now (DEPOT_TIME_ZONE): "YYYY-MM-DD". */
export function depotToday(deps: Pick<AppDeps, "clock" | "config">): string {
  return dateInZone(deps.clock.now(), deps.config.depotTimeZone);
}

const lineOf = (row: SheetLineRow): SheetLine => ({
  claimId: row.claim_id,
  claimNumber: row.claim_number,
  rego: row.registration,
  job: row.status === COLLECT_STATUS ? "collect" : "deliver",
  parts: row.parts,
  done: row.done,
});

/** HQ's order: a driver's stops by position (drivers by id), then the unassigned by shop name. */
function hqOrder(a: Stop, b: Stop): number {
  if (a.assignedTo && b.assignedTo) {
    return a.assignedTo.id - b.assignedTo.id || a.position! - b.position!;
  }
  if (a.assignedTo || b.assignedTo) return a.assignedTo ? -1 : 1;
  return a.shop.name.localeCompare(b.shop.name) || a.shop.id - b.shop.id;
}

/**
 * Every stop of `date` with HQ's plan, what is on the road back to HQ, and the work with no shop. Four
 * statements whatever the depot's size: the lines, the plan, the shops' details, the open trips.
 */
export async function runDay(
  deps: Pick<AppDeps, "clock" | "config"> & { db: QueryRunner },
  date: string,
): Promise<RunDay> {
  const asOf = deps.clock.now();
  const { start, end } = dayInZone(date, deps.config.depotTimeZone);
  const includeOpen = date >= dateInZone(asOf, deps.config.depotTimeZone);
  const [rows, plan, trips] = await Promise.all([
    runSheetLines(deps.db, { from: start, to: end, includeOpen }),
    runStopsOf(deps.db, date),
    openReturnTrips(deps.db),
  ]);
  const byShop = new Map<number, SheetLine[]>();
  const needsHq: SheetLine[] = [];
  for (const row of rows) {
    if (row.repairer_id === null) {
      // Done work without a shop needs nothing from HQ any more.
      if (!row.done) needsHq.push(lineOf(row));
      continue;
    }
    const lines = byShop.get(row.repairer_id) ?? [];
    lines.push(lineOf(row));
    byShop.set(row.repairer_id, lines);
  }
  const planOf = new Map<number, RunStopRow>(plan.map((p) => [p.repairer_id, p]));
  // A planned shop with no work (its claims moved to another shop, say) stays visible to HQ, at 0 of 0.
  const shopIds = new Set([...byShop.keys(), ...planOf.keys()]);
  const shops = await repairersWithDetails(deps.db, [...shopIds]);
  const stops = shops.map((shop): Stop => {
    const lines = byShop.get(shop.id) ?? [];
    const p = planOf.get(shop.id);
    return {
      shop,
      deliver: lines.filter((l) => l.job === "deliver"),
      collect: lines.filter((l) => l.job === "collect"),
      done: lines.filter((l) => l.done).length,
      total: lines.length,
      assignedTo: p?.driver_id ? { id: p.driver_id, name: p.driver_name ?? "" } : null,
      position: p?.driver_id ? p.position : null,
    };
  }).sort(hqOrder);
  return {
    date,
    asOf,
    stops,
    onTruck: trips.map((t) => ({
      movementId: t.id,
      claimNumber: t.claim_number,
      rego: t.registration,
      parts: t.part_count,
      from: t.repairer_name,
      pickedUpBy: t.picked_up_by,
    })),
    needsHq,
  };
}

/** A driver's sheet: their own stops first in HQ's order, then the unassigned ones; own trips first. */
export interface RunSheet extends RunDay {
  userId: number;
}

/** Today's sheet as `user` (a driver, or an admin on a tablet) sees it. */
export async function runSheetFor(
  deps: Pick<AppDeps, "clock" | "config"> & { db: QueryRunner },
  user: Pick<User, "id">,
): Promise<RunSheet> {
  const day = await runDay(deps, depotToday(deps));
  const own = day.stops.filter((s) => s.assignedTo?.id === user.id && s.total > 0)
    .sort((a, b) => a.position! - b.position!);
  // A stop is a shop with work: a planned one without any is HQ's to tidy, not a place to drive to.
  const unassigned = day.stops.filter((s) => s.assignedTo === null && s.total > 0);
  const mine = (t: TripOnTruck) => t.pickedUpBy === user.id ? 0 : 1;
  return {
    ...day,
    userId: user.id,
    stops: [...own, ...unassigned],
    onTruck: day.onTruck.toSorted((a, b) => mine(a) - mine(b)),
  };
}
