/**
 * The trends page's reads (docs/trends.md): movement steps per depot day, turnaround per repair shop,
 * work per driver, each over a range of depot days. The rules (the range, the days' bounds, rounding) are
 * in lib/dashboard/trends.ts; here the statements only.
 *
 * A day is a depot day (DEPOT_TIME_ZONE, io/time_zone.ts dayInZone), computed by the caller and passed as
 * the instants its days start at plus the end of the last: `width_bucket(at, bounds)` gives a time's day
 * (1 = the first), so a 23- or 25-hour day at a daylight-saving change is bucketed as the depot reads it and
 * neither database needs a zone table. Each step is one range of a covering index (migration
 * 20261225T1200_trends).
 */
import { type RawBuilder, sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { MovementStage, PartStatus } from "@/db/schema.ts";

/** The days of a range: `bounds[i]` starts day i + 1 (ISO 8601 instants); the last ends the last day. */
export interface TrendDays {
  bounds: string[];
}

const DELIVERED: PartStatus = "Delivered to Repair Shop directly";
const FLAGGED: PartStatus = "Pending Repair Shop Pick-Up";
const RETURNED: PartStatus = "Returned to HQ";

/**
 * Every movement step in the range, one row each: a direct delivery's drop-off at a shop, a return trip's
 * pick-up at a shop, its drop-off at HQ. Its driver (who did the step), its parts (the movement's
 * part_count) and the shop it happened at (none for the drop-off at HQ).
 */
function stepsIn(d: TrendDays) {
  const from = d.bounds[0];
  const to = d.bounds[d.bounds.length - 1];
  return sql`(
      select 'direct_dropoff' as stage, m.dropped_off_at as at, m.dropped_off_by as driver_id, m.part_count,
        m.place_repairer_id as shop_id
      from parts_movements m
      where m.movement_type = 'direct' and m.dropped_off_at >= ${from}::timestamptz
        and m.dropped_off_at < ${to}::timestamptz
      union all
      select 'reverse_pickup', m.pick_up_at, m.picked_up_by, m.part_count, m.place_repairer_id
      from parts_movements m
      where m.movement_type = 'reverse' and m.pick_up_at >= ${from}::timestamptz
        and m.pick_up_at < ${to}::timestamptz
      union all
      select 'reverse_dropoff', m.dropped_off_at, m.dropped_off_by, m.part_count, null::int
      from parts_movements m
      where m.movement_type = 'reverse' and m.dropped_off_at >= ${from}::timestamptz
        and m.dropped_off_at < ${to}::timestamptz
    )`;
}

const dayOf = (d: TrendDays, column: RawBuilder<unknown>) =>
  sql`width_bucket(${column}, ${d.bounds}::timestamptz[])`;

export interface MovementDayRow {
  /** 1 = the range's first day. */
  day: number;
  stage: MovementStage;
  movements: number;
}

/** Movement steps per day and stage; a day and stage with none has no row. */
export function movementsPerDaySql(d: TrendDays): RawBuilder<MovementDayRow> {
  return sql<MovementDayRow>`select ${dayOf(d, sql`s.at`)}::int as day, s.stage, count(*)::int as movements
    from ${stepsIn(d)} s
    group by 1, 2
    order by 1, 2`;
}

export async function movementsPerDay(db: Db, d: TrendDays): Promise<MovementDayRow[]> {
  return await withoutJit(db, movementsPerDaySql(d));
}

export interface DriverTrendRow {
  driver_id: number;
  name: string;
  /** Days with at least one of the driver's steps. */
  active_days: number;
  movements: number;
  parts: number;
  /** Summed over the days: each day, the distinct shops the driver dropped off at or picked up from. */
  stops: number;
}

/** Per driver over the range: their steps, the parts those moved, and their stops (by day, then summed). */
export function driverTrendsSql(d: TrendDays): RawBuilder<DriverTrendRow> {
  // By (driver, day, shop) first, then by day: a shop counted once a day without count(distinct), whose
  // sort of every step cost more than the rest of the statement.
  return sql<DriverTrendRow>`with cells as (
      select s.driver_id, ${dayOf(d, sql`s.at`)} as day, s.shop_id, count(*) as movements,
        sum(s.part_count) as parts
      from ${stepsIn(d)} s
      where s.driver_id is not null
      group by 1, 2, 3
    ), per_day as (
      select driver_id, day, sum(movements) as movements, sum(parts) as parts, count(shop_id) as stops
      from cells
      group by 1, 2
    )
    select p.driver_id, u.name, count(*)::int as active_days, sum(p.movements)::int as movements,
      sum(p.parts)::int as parts, sum(p.stops)::int as stops
    from per_day p
    join users u on u.id = p.driver_id
    group by p.driver_id, u.name
    order by u.name, p.driver_id`;
}

export async function driverTrends(db: Db, d: TrendDays): Promise<DriverTrendRow[]> {
  return await withoutJit(db, driverTrendsSql(d));
}

/** Median and 90th percentile, in days (continuous percentiles: linear between the two nearest). */
export interface TurnaroundRow {
  repairer_id: number;
  name: string;
  /** Return cycles counted (a part returned twice in the range counts twice). */
  parts: number;
  at_shop_median: number;
  at_shop_p90: number;
  back_median: number;
  back_p90: number;
  total_median: number;
  total_p90: number;
}

/**
 * Per repair shop (the claim's shop now), the return cycles completed in the range: each entry into
 * "Returned to HQ" in the range, with the latest entry into "Pending Repair Shop Pick-Up" at or before it
 * (flagged) and the latest entry into "Delivered to Repair Shop directly" at or before that (delivered);
 * a cycle missing either is not counted. Durations in days of 86 400 s, percentile_cont over the cycles.
 * The returns are one range of a partial index; each cycle's part history is read by key.
 */
export function turnaroundSql(d: TrendDays): RawBuilder<TurnaroundRow> {
  const from = d.bounds[0];
  const to = d.bounds[d.bounds.length - 1];
  const days = (a: string, b: string) => sql.raw(`extract(epoch from (${b} - ${a}))::float8 / 86400`);
  const pct = (p: number, a: string, b: string) =>
    sql`percentile_cont(${p}::float8) within group (order by ${days(a, b)})::float8`;
  // Each step is bounded by the range's returns: one range of part_status_history_returned, then per return
  // the part's latest flag and delivery before it (the newest entry of one key of part_status_history_cycle,
  // read from the index alone), its claim and the claim's shop by key. No part's whole history is read.
  return sql<TurnaroundRow>`with cycles as (
      select r.part_id, r.changed_at as returned_at, f.flagged_at, dl.delivered_at
      from part_status_history r
      cross join lateral (
        select h.changed_at as flagged_at from part_status_history h
        where h.part_id = r.part_id and h.to_status = ${FLAGGED} and h.changed_at <= r.changed_at
        order by h.changed_at desc limit 1
      ) f
      cross join lateral (
        select h.changed_at as delivered_at from part_status_history h
        where h.part_id = r.part_id and h.to_status = ${DELIVERED} and h.changed_at <= f.flagged_at
        order by h.changed_at desc limit 1
      ) dl
      where r.to_status = ${RETURNED} and r.changed_at >= ${from}::timestamptz
        and r.changed_at < ${to}::timestamptz
    ), shops as (
      select c.*, cm.repairer_id
      from cycles c
      join parts_orders p on p.id = c.part_id
      join claim_management cm on cm.claim_id = p.claim_id
      where cm.repairer_id is not null
    )
    select s.repairer_id, r.name, count(*)::int as parts,
      ${pct(0.5, "delivered_at", "flagged_at")} as at_shop_median,
      ${pct(0.9, "delivered_at", "flagged_at")} as at_shop_p90,
      ${pct(0.5, "flagged_at", "returned_at")} as back_median,
      ${pct(0.9, "flagged_at", "returned_at")} as back_p90,
      ${pct(0.5, "delivered_at", "returned_at")} as total_median,
      ${pct(0.9, "delivered_at", "returned_at")} as total_p90
    from shops s
    join repairers r on r.id = s.repairer_id
    group by s.repairer_id, r.name
    order by r.name, s.repairer_id`;
}

export async function turnaround(db: Db, d: TrendDays): Promise<TurnaroundRow[]> {
  return await withoutJit(db, turnaroundSql(d));
}

/** Turns the server's JIT compilation off until the transaction ends (PGlite has none: a no-op there). */
export function jitOffSql() {
  return sql`select set_config('jit', 'off', true)`;
}

/**
 * A figure's statement without JIT: its cost estimate grows with the range's rows past the server's
 * `jit_above_cost`, and compiling it took 1.4 s of a 1.6 s turnaround at 100 000 claims (docs/trends.md
 * "At scale"), where the plan itself runs in 0.2 s. One short read-only transaction.
 */
async function withoutJit<R>(db: Db, statement: RawBuilder<R>): Promise<R[]> {
  return await db.transaction().execute(async (tx) => {
    await jitOffSql().execute(tx);
    return (await statement.execute(tx)).rows;
  });
}
