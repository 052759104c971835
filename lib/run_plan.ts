/**
 * HQ's plan of a day (docs/runs.md "Planning"): a dispatcher assigns the day's stops (lib/run_sheet.ts) to
 * drivers, orders each driver's run, or has it ordered by distance from the depot (lib/route_order.ts).
 * Only the plan is written (table run_stops); the work itself stays derived from the parts.
 *
 * Races (docs/runs.md "Two dispatchers at once"): every write of a date first takes that date's lock
 * (db/queries/run_sheet.ts lockRunDay), so writers of one date run one after the other and each sees the
 * plan its predecessor left. Each form says what the dispatcher saw (the stop's driver, its place); when the
 * plan no longer matches, nothing is written and the page shows the plan as it is now (`PlanChanged`, a 409).
 * A driver's places are kept 1, 2, … n after every write; the table's deferred unique constraint on (date,
 * driver, place) is the last guard. Every write is audited and announced on the change feed (`runs`) in its
 * own transaction.
 */
import { insertAuditEntry } from "@/db/queries/audit.ts";
import { notifyChange } from "@/db/queries/changes.ts";
import {
  deleteRunStop,
  driverRunStops,
  lockRunDay,
  runStopRow,
  setRunOrder,
  upsertRunStop,
} from "@/db/queries/run_sheet.ts";
import type { Tx } from "@/db/queries/compiled.ts";
import { activeDrivers, activeUserWithRole } from "@/db/queries/users.ts";
import type { User } from "@/db/schema.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import { hqLocationsWithDetails, type LatLng, repairersWithDetails } from "@/lib/places/read.ts";
import { type Distance, haversineKm, orderStops } from "@/lib/route_order.ts";
import { depotToday, type RunDay, runDay } from "@/lib/run_sheet.ts";
import { announcementsWritten } from "@/lib/announcements/outbox.ts";
import { writePartsOnTheWay } from "@/lib/announcements/shop_email.ts";

type PlanDeps = Pick<AppDeps, "db" | "clock" | "config">;

/** The plan moved under the dispatcher: nothing was written; the page shows it as it is now. */
export class PlanChanged extends DomainError {
  constructor(message: string) {
    super("conflict", message);
    this.name = "PlanChanged";
  }
}

/** The plan of a day that is over stays as it was (the sheet of a past day is a record). */
function mustBeOpenDay(deps: PlanDeps, date: string): void {
  if (date < depotToday(deps)) {
    throw new DomainError("refused", `${date} is over: its plan stays as it was.`);
  }
}

async function shopName(deps: PlanDeps, repairerId: number): Promise<string> {
  const [shop] = await repairersWithDetails(deps.db, [repairerId]);
  if (!shop) throw new DomainError("not_found", "Repair shop not found.");
  return shop.name;
}

async function activeDriver(deps: PlanDeps, driverId: number): Promise<User> {
  const driver = await activeUserWithRole(deps.db, driverId, ["driver"]);
  if (!driver) throw new DomainError("invalid", "Choose an active driver.");
  return driver;
}

/** Runs `write` under the date's lock, then the audit entry and the `runs` change, in one transaction. */
async function underDayLock<T>(deps: PlanDeps, date: string, write: (tx: Tx) => Promise<T>): Promise<T> {
  return await deps.db.transaction().execute(async (tx) => {
    await lockRunDay(tx, date);
    const result = await write(tx);
    await notifyChange(tx, "runs");
    return result;
  });
}

/** Renumbers a driver's stops 1..n in their current order (after one left). */
async function closeGaps(tx: Tx, date: string, driverId: number, by: number, at: Date): Promise<void> {
  const order = await driverRunStops(tx, date, driverId);
  await setRunOrder(tx, { date, driverId, order, by, at });
}

export interface AssignInput {
  date: string;
  repairerId: number;
  /** The driver to give the stop to; null: unassign it. */
  driverId: number | null;
  /** The stop's driver when the dispatcher looked (null: unassigned). */
  seenDriverId: number | null;
}

/**
 * Gives a stop to a driver, at the end of their run (or takes it back: unassigned). Refused with
 * PlanChanged when the stop's driver is no longer the one the dispatcher saw. A stop given to a driver for
 * today e-mails the shop that its parts are on the way, once a day (lib/announcements/shop_email.ts).
 */
export async function assignStop(deps: PlanDeps, actorId: number, input: AssignInput): Promise<void> {
  const { date, repairerId, driverId } = input;
  mustBeOpenDay(deps, date);
  const name = await shopName(deps, repairerId);
  const driver = driverId === null ? null : await activeDriver(deps, driverId);
  const at = deps.clock.now();
  let emailed = false;
  await underDayLock(deps, date, async (tx) => {
    const row = await runStopRow(tx, date, repairerId);
    const current = row?.driver_id ?? null;
    if (current !== input.seenDriverId) {
      throw new PlanChanged(`${name} was reassigned while you were looking; nothing was changed.`);
    }
    if (current === driverId) return;
    let position: number | null = null;
    if (driverId === null) {
      await deleteRunStop(tx, date, repairerId);
    } else {
      position = (await driverRunStops(tx, date, driverId)).length + 1;
      await upsertRunStop(tx, { date, repairerId, driverId, position, by: actorId, at });
      // The shop's "parts on the way" e-mail: the stop is someone's job today (shop_email.ts).
      if (date === depotToday(deps)) {
        emailed = await writePartsOnTheWay(tx, deps.config, {
          repairerId,
          shop: name,
          driver: driver!.name,
          date,
          at,
        });
      }
    }
    if (current !== null) await closeGaps(tx, date, current, actorId, at);
    await insertAuditEntry(tx, {
      actorId,
      action: "run.assign",
      subject: `repairer:${repairerId}`,
      before: { date, driver_id: current, position: row?.position ?? null },
      after: { date, driver_id: driverId, driver: driver?.name ?? null, position },
      at,
    });
  });
  if (emailed) announcementsWritten(deps.db);
}

export interface MoveInput {
  date: string;
  repairerId: number;
  direction: "up" | "down";
  /** The stop's driver and place when the dispatcher looked. */
  seenDriverId: number;
  seenPosition: number;
}

/** Moves a stop one place up or down its driver's run (swapping with its neighbour). */
export async function moveStop(deps: PlanDeps, actorId: number, input: MoveInput): Promise<void> {
  const { date, repairerId } = input;
  mustBeOpenDay(deps, date);
  const name = await shopName(deps, repairerId);
  const at = deps.clock.now();
  await underDayLock(deps, date, async (tx) => {
    const row = await runStopRow(tx, date, repairerId);
    if (row?.driver_id !== input.seenDriverId || row.position !== input.seenPosition) {
      throw new PlanChanged(`The run with ${name} changed while you were looking; nothing was changed.`);
    }
    const order = await driverRunStops(tx, date, input.seenDriverId);
    const from = order.indexOf(repairerId);
    const to = from + (input.direction === "up" ? -1 : 1);
    if (to < 0 || to >= order.length) return;
    [order[from], order[to]] = [order[to], order[from]];
    await setRunOrder(tx, { date, driverId: input.seenDriverId, order, by: actorId, at });
    await insertAuditEntry(tx, {
      actorId,
      action: "run.move",
      subject: `repairer:${repairerId}`,
      before: { date, driver_id: input.seenDriverId, position: from + 1 },
      after: { date, driver_id: input.seenDriverId, position: to + 1 },
      at,
    });
  });
}

/**
 * The depot a driver's run starts from: their home HQ when it has coordinates, else the first HQ location
 * (by id) that has them (the HQ a return trip goes to, D15); null when no HQ location has coordinates.
 */
export async function depotOf(
  deps: PlanDeps,
  driver: Pick<User, "home_hq_id">,
): Promise<(LatLng & { name: string }) | null> {
  const placed = (await hqLocationsWithDetails(deps.db)).filter((h) => h.coordinates !== null);
  const depot = placed.find((h) => h.id === driver.home_hq_id) ?? placed[0];
  return depot ? { name: depot.name, ...depot.coordinates! } : null;
}

export interface SuggestResult {
  /** The stops in their new order (shop names). */
  order: string[];
  /** Stops without coordinates, left at the end in their order. */
  unplaced: string[];
}

/**
 * Orders a driver's run by distance from the depot (lib/route_order.ts; straight lines unless `distance`
 * is given). Works on the run as it is under the lock, so it never fights another dispatcher's edit.
 */
export async function suggestOrder(
  deps: PlanDeps,
  actorId: number,
  input: { date: string; driverId: number },
  distance: Distance = haversineKm,
): Promise<SuggestResult> {
  const { date, driverId } = input;
  mustBeOpenDay(deps, date);
  const depot = await depotOf(deps, await activeDriver(deps, driverId));
  if (!depot) {
    throw new DomainError(
      "refused",
      "No HQ location has coordinates: give the depot its latitude and longitude (Repair shops & HQ) to suggest an order.",
    );
  }
  const at = deps.clock.now();
  return await underDayLock(deps, date, async (tx) => {
    const before = await driverRunStops(tx, date, driverId);
    const shops = await repairersWithDetails(tx, before);
    const byId = new Map(shops.map((s) => [s.id, s]));
    const ordered = await orderStops(depot, before.map((id) => byId.get(id)!), distance);
    const order = ordered.map((s) => s.id);
    await setRunOrder(tx, { date, driverId, order, by: actorId, at });
    await insertAuditEntry(tx, {
      actorId,
      action: "run.suggest",
      subject: `user:${driverId}`,
      before: { date, repairer_ids: before },
      after: { date, repairer_ids: order, depot: depot.name },
      at,
    });
    return {
      order: ordered.map((s) => s.name),
      unplaced: ordered.filter((s) => s.coordinates === null).map((s) => s.name),
    };
  });
}

export interface RunPlanPage {
  day: RunDay;
  /** Active drivers, by name: whom a stop may be given to. */
  drivers: { id: number; name: string }[];
  /** Whether the date's plan may still change (today or later). */
  editable: boolean;
}

/** What `/hq/runs` shows for a date: every stop with its plan, and the drivers to choose from. */
export async function runPlanPage(deps: PlanDeps, date: string): Promise<RunPlanPage> {
  const [day, drivers] = await Promise.all([runDay(deps, date), activeDrivers(deps.db)]);
  return { day, drivers, editable: date >= depotToday(deps) };
}
