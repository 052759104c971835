/**
 * The trends page's reads (docs/trends.md): movement steps per depot day, turnaround per repair shop,
 * work per driver, each over a range of depot days. The rules (the range, the days' bounds, rounding) are
 * in lib/dashboard/trends.ts; here the statements only.
 *
 * Each figure reads a summary kept by triggers in the writers' transactions (migration
 * 20261226T0900_trend_summaries): `trend_days`, steps per depot day, kind, driver and shop, counted in the
 * zone `trend_zone` names (`countTrendDaysIn` makes it the depot's); `return_cycles`, one row per return
 * to HQ with its three durations. A range of 56 days reads at most a few tens of thousands of summary rows,
 * not the 452 000 steps and 142 000 returns behind them at 1 000 claims a day.
 */
import { type RawBuilder, sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { MovementStage } from "@/db/schema.ts";

/** A range of depot days: its first and last date (both included) and the instants it starts and ends at. */
export interface TrendDays {
  /** "YYYY-MM-DD" */
  from: string;
  to: string;
  /** ISO 8601: where `from` starts at the depot, and where `to` ends. */
  start: string;
  end: string;
}

/** The zone the days are counted in now; null before the first count. */
export async function trendDaysZone(db: Db): Promise<string | null> {
  const row = await db.selectFrom("trend_zone").select("time_zone").executeTakeFirst();
  return row?.time_zone ?? null;
}

/**
 * Makes `zone` the one `trend_days` is counted in: when it is another (or none yet), every movement is
 * counted again, writers waiting meanwhile (`force`: counted again anyway, after a fill that wrote
 * movements with the triggers off). Unbounded by the statement timeout: at 5 000 000 movements it is a long
 * statement, run once when the depot's zone changes.
 */
export async function countTrendDaysIn(db: Db, zone: string, force = false): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await sql`select set_config('statement_timeout', '0', true)`.execute(tx);
    await sql`select trend_days_rebuild(${zone}, ${force})`.execute(tx);
  });
}

/** Every return cycle worked out again: after a fill that wrote history with the triggers off. */
export async function recountReturnCycles(db: Db): Promise<void> {
  await sql`select return_cycles_rebuild()`.execute(db);
}

export interface MovementDayRow {
  /** "YYYY-MM-DD", a day of the range. */
  day: string;
  stage: MovementStage;
  movements: number;
}

/** Movement steps per day and stage; a day and stage with none has no row. */
export function movementsPerDaySql(d: TrendDays): RawBuilder<MovementDayRow> {
  return sql<MovementDayRow>`select t.day::text as day, t.stage, sum(t.movements)::int as movements
    from trend_days t
    where t.day >= ${d.from}::date and t.day <= ${d.to}::date
    group by t.day, t.stage
    having sum(t.movements) > 0
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
  // A summary row is one (day, kind, driver, shop): by (driver, day, shop) first, so a shop delivered to and
  // collected from the same day is one stop; a return at HQ (shop 0) is no stop.
  return sql<DriverTrendRow>`with cells as (
      select t.driver_id, t.day, t.shop_id, sum(t.movements) as movements, sum(t.parts) as parts
      from trend_days t
      where t.day >= ${d.from}::date and t.day <= ${d.to}::date and t.driver_id <> 0
      group by 1, 2, 3
      having sum(t.movements) > 0
    ), per_day as (
      select driver_id, day, sum(movements) as movements, sum(parts) as parts,
        count(*) filter (where shop_id <> 0) as stops
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
 * Per repair shop (the claim's shop when the part came back), the return cycles completed in the range
 * (`return_cycles`, one index range): percentile_cont of each duration, the median and the 90th percentile
 * from one sort per duration.
 */
export function turnaroundSql(d: TrendDays): RawBuilder<TurnaroundRow> {
  const both = (column: string) =>
    sql.raw(`percentile_cont(array[0.5, 0.9]::float8[]) within group (order by c.${column})`);
  return sql<TurnaroundRow>`select s.repairer_id, r.name, s.parts,
      s.at_shop[1] as at_shop_median, s.at_shop[2] as at_shop_p90,
      s.back[1] as back_median, s.back[2] as back_p90,
      s.total[1] as total_median, s.total[2] as total_p90
    from (
      select c.shop_id as repairer_id, count(*)::int as parts, ${both("at_shop_days")} as at_shop,
        ${both("back_days")} as back, ${both("total_days")} as total
      from return_cycles c
      where c.returned_at >= ${d.start}::timestamptz and c.returned_at < ${d.end}::timestamptz
      group by c.shop_id
    ) s
    join repairers r on r.id = s.repairer_id
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
