/**
 * Queries of the run sheet (docs/runs.md): the day's work derived from the parts' statuses, the open return
 * trips, and HQ's plan (`run_stops`). The rules (what a stop is, who sees which, how the plan moves) are in
 * lib/run_sheet.ts and lib/run_plan.ts; here the statements only. The derivation is one set-based statement
 * over two partial indexes (migration 20261222T1100_run_stops), so its cost follows the day's work, not the
 * depot's history (docs/performance.md "The run sheet at 1M claims").
 */
import { type RawBuilder, sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { QueryRunner, Tx } from "@/db/queries/compiled.ts";
import type { PartStatus } from "@/db/schema.ts";

/** The statuses that make work for a stop: a delivery to the claim's shop, a collection from it. */
export const DELIVER_STATUS: PartStatus = "Arrived";
export const COLLECT_STATUS: PartStatus = "Pending Repair Shop Pick-Up";

/** One claim's work of one kind: its parts in (or, done, moved that day out of) one work status. */
export interface SheetLineRow {
  claim_id: number;
  claim_number: string;
  registration: string;
  /** The claim's repair shop now; null: no management record, or no shop on it (Needs HQ). */
  repairer_id: number | null;
  status: PartStatus;
  /** Parts still in the status; when done, the parts that left it during the day. */
  parts: number;
  /** No part is left in the status (every one was moved during the day). */
  done: boolean;
}

export interface SheetWindow {
  /** The day's first instant and the next day's (the depot's wall clock, io/time_zone.ts dayInZone). */
  from: Date;
  to: Date;
  /** Whether the work open now counts (the day is today or later: a past day shows what was done). */
  includeOpen: boolean;
}

/**
 * The day's claim lines: every claim with parts in a work status now (when `includeOpen`), and every claim
 * whose parts left a work status during the day (by anyone: a movement, a dashboard change), which is done
 * when none is left in it. Each side is one range of its partial index; the two meet on (claim, status).
 * Each line's part, claim and shop are then looked up by key (`lateral … offset 0`: the fence keeps the
 * planner from turning the look-ups into hash joins over whole tables, which it chose on small tables from
 * its row estimates, 40 ms on PGlite at 10 000 claims against 5 ms), so the cost follows the day's lines.
 */
export function runSheetLinesSql(w: SheetWindow): RawBuilder<SheetLineRow> {
  const work = sql`(${DELIVER_STATUS}, ${COLLECT_STATUS})`;
  return sql<SheetLineRow>`with open_work as (
      select p.claim_id, p.status, count(*)::int as parts
      from parts_orders p
      where p.status in ${work} and ${w.includeOpen}::boolean
      group by p.claim_id, p.status
    ), moved as (
      select p.claim_id, h.from_status as status, count(distinct h.part_id)::int as parts
      from part_status_history h
      cross join lateral (select claim_id from parts_orders where id = h.part_id offset 0) p
      where h.from_status in ${work} and h.changed_at >= ${w.from} and h.changed_at < ${w.to}
      group by p.claim_id, h.from_status
    ), lines as (
      select coalesce(o.claim_id, m.claim_id) as claim_id, coalesce(o.status, m.status) as status,
        coalesce(o.parts, m.parts) as parts, o.claim_id is null as done
      from open_work o full join moved m on m.claim_id = o.claim_id and m.status = o.status
    )
    select l.claim_id, c.claim_number, c.registration, cm.repairer_id, l.status, l.parts, l.done
    from lines l
    cross join lateral (select claim_number, registration from claims where id = l.claim_id offset 0) c
    left join lateral (select repairer_id from claim_management where claim_id = l.claim_id offset 0) cm on true
    order by cm.repairer_id, l.status, l.claim_id`;
}

export async function runSheetLines(db: QueryRunner, w: SheetWindow): Promise<SheetLineRow[]> {
  return (await runSheetLinesSql(w).execute(db as Db)).rows;
}

/** Return trips on the road (picked up at a shop, not yet at HQ): the open trips' partial index. */
export async function openReturnTrips(db: QueryRunner) {
  return await db.selectFrom("parts_movements as m")
    .innerJoin("claims as c", "c.id", "m.claim_id")
    .leftJoin("repairers as r", "r.id", "m.place_repairer_id")
    .select([
      "m.id",
      "m.picked_up_by",
      "m.part_count",
      "c.claim_number",
      "c.registration",
      "r.name as repairer_name",
    ])
    .where("m.movement_type", "=", "reverse")
    .where("m.movement_status", "=", "Parts Picked Up")
    .orderBy("m.pick_up_at").orderBy("m.id")
    .execute();
}

/** A stop's row of the plan, with its driver's name. */
export interface RunStopRow {
  repairer_id: number;
  driver_id: number | null;
  driver_name: string | null;
  position: number | null;
}

/** The plan of a date: every row, by driver and position. */
export async function runStopsOf(db: QueryRunner, date: string): Promise<RunStopRow[]> {
  return await db.selectFrom("run_stops as s")
    .leftJoin("users as u", "u.id", "s.driver_id")
    .select(["s.repairer_id", "s.driver_id", "u.name as driver_name", "s.position"])
    .where("s.run_date", "=", date)
    .orderBy("s.driver_id").orderBy("s.position").orderBy("s.repairer_id")
    .execute();
}

/**
 * Serialises the plan's writers of one date until `tx` ends (a transaction-scoped advisory lock: a driver's
 * first stop has no row yet to lock, so row locks cannot order two first assignments).
 */
export function lockRunDaySql(date: string) {
  return sql`select pg_advisory_xact_lock(hashtext('run_stops'), ${date}::date - date '2000-01-01')`;
}

export async function lockRunDay(tx: Tx, date: string): Promise<void> {
  await lockRunDaySql(date).execute(tx);
}

/** One stop's row of the plan (under the day's lock); undefined when unassigned. */
export async function runStopRow(tx: Tx, date: string, repairerId: number) {
  return await tx.selectFrom("run_stops").select(["repairer_id", "driver_id", "position"])
    .where("run_date", "=", date).where("repairer_id", "=", repairerId).executeTakeFirst();
}

/** A driver's stops of a date in their order (under the day's lock). */
export async function driverRunStops(tx: Tx, date: string, driverId: number): Promise<number[]> {
  const rows = await tx.selectFrom("run_stops").select("repairer_id")
    .where("run_date", "=", date).where("driver_id", "=", driverId)
    .orderBy("position").execute();
  return rows.map((r) => r.repairer_id);
}

/** Writes a stop's driver and position (a new row, or the row it had). */
export async function upsertRunStop(
  tx: Tx,
  row: { date: string; repairerId: number; driverId: number; position: number; by: number; at: Date },
): Promise<void> {
  const values = {
    driver_id: row.driverId,
    position: row.position,
    updated_by: row.by,
    updated_at: row.at,
  };
  await tx.insertInto("run_stops").values({ run_date: row.date, repairer_id: row.repairerId, ...values })
    .onConflict((oc) => oc.columns(["run_date", "repairer_id"]).doUpdateSet(values))
    .execute();
}

/** Unassigns a stop: its row goes (a shop with work and no row is unassigned). */
export async function deleteRunStop(tx: Tx, date: string, repairerId: number): Promise<void> {
  await tx.deleteFrom("run_stops").where("run_date", "=", date).where("repairer_id", "=", repairerId)
    .execute();
}

/**
 * Numbers a driver's stops 1, 2, … in `order` (their repairer ids), in one statement (the unique positions
 * are checked at commit, so stops may swap places).
 */
export async function setRunOrder(
  tx: Tx,
  w: { date: string; driverId: number; order: number[]; by: number; at: Date },
): Promise<void> {
  if (w.order.length === 0) return;
  await tx.updateTable("run_stops")
    .set({
      position: sql<number>`array_position(${w.order}::int[], repairer_id)`,
      updated_by: w.by,
      updated_at: w.at,
    })
    .where("run_date", "=", w.date)
    .where("driver_id", "=", w.driverId)
    .where("repairer_id", "=", sql<number>`any(${w.order}::int[])`)
    .execute();
}

/** The parts at HQ for a shop's claims (its stop's deliveries), by rego and part no: `Parts On The Way`. */
export async function partsToDeliver(db: QueryRunner, repairerId: number) {
  return await db.selectFrom("parts_orders as p")
    .innerJoin("claim_management as cm", "cm.claim_id", "p.claim_id")
    .innerJoin("claims as c", "c.id", "p.claim_id")
    .select(["c.registration", "p.part_no", "p.description"])
    .where("cm.repairer_id", "=", repairerId)
    .where("p.status", "=", DELIVER_STATUS)
    .orderBy("c.registration").orderBy("p.part_no").orderBy("p.id")
    .execute();
}
