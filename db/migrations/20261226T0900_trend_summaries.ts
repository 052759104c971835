/**
 * The trends' summaries (docs/trends.md "At scale"): 8 weeks of a depot at 1 000 claims a day are 452 000
 * movement steps and 142 000 returns, which no plan reads in 200 ms, so each figure reads a summary kept
 * in the writers' own transactions instead:
 *
 * - `trend_days`: per depot day, step kind, driver (0: none) and shop (0: none, a return at HQ), the steps
 *   and the parts they carried. A row trigger on `parts_movements` takes a movement's steps out as they
 *   were and adds them as they are (`insert … on conflict do update set movements = movements + …`, so
 *   concurrent writers add and never overwrite; keys in order). The depot's day needs its time zone, which
 *   is configuration (DEPOT_TIME_ZONE), not data: `trend_zone` holds the zone the days were counted in, and
 *   `trend_days_rebuild(zone, force)` counts every movement again when the service runs in another one
 *   (db/queries/trend_summaries.ts, at start and before a read). Until a zone is set the trigger counts
 *   nothing: the first rebuild counts everything. The rebuild takes an advisory lock exclusively; every
 *   writer's trigger takes it shared before it reads the zone, so a rebuild sees every movement committed
 *   before it and a movement committed after it is counted in the new zone.
 * - `return_cycles`: a row per entry into "Returned to HQ", with its shop (the claim's shop when the part
 *   came back) and the three durations in days, written by a row trigger on `part_status_history` from the
 *   part's latest flag and latest delivery before it (the look-ups the figure used to make per return at
 *   read time, through `part_status_history_cycle`). A return without a flag, a delivery or a shop has no
 *   cycle. The turnaround is one index range of `return_cycles_returned`.
 *
 * Both rebuild functions also serve a fill that wrote rows with the triggers off (the bench's generated
 * depot, as a restore does). Plain DDL in the migration's transaction: on 3 000 000 history rows the
 * cycles' backfill blocks writes to part_status_history for some seconds; the days are counted by the
 * service's first start in its zone.
 */
import { type Kysely, sql } from "kysely";

/** The advisory lock between a zone's rebuild (exclusive) and the writers' triggers (shared). */
export const TREND_ZONE_LOCK = 726_300_126;

const FLAGGED = "'Pending Repair Shop Pick-Up'";
const DELIVERED = "'Delivered to Repair Shop directly'";
const RETURNED = "'Returned to HQ'";

/** The steps of the movements `m` (a row variable or a table alias), with their depot day in `zone`. */
const steps = (m: string, zone: string) =>
  `select (${m}.dropped_off_at at time zone ${zone})::date as day, 'direct_dropoff' as stage,
      coalesce(${m}.dropped_off_by, 0) as driver_id, coalesce(${m}.place_repairer_id, 0) as shop_id,
      ${m}.part_count as parts
    where ${m}.movement_type = 'direct' and ${m}.dropped_off_at is not null
    union all
    select (${m}.pick_up_at at time zone ${zone})::date, 'reverse_pickup', coalesce(${m}.picked_up_by, 0),
      coalesce(${m}.place_repairer_id, 0), ${m}.part_count
    where ${m}.movement_type = 'reverse' and ${m}.pick_up_at is not null
    union all
    select (${m}.dropped_off_at at time zone ${zone})::date, 'reverse_dropoff', coalesce(${m}.dropped_off_by, 0),
      0, ${m}.part_count
    where ${m}.movement_type = 'reverse' and ${m}.dropped_off_at is not null`;

/** The cycle of a return `r` (a row variable or a table alias): its flag, the delivery before, the shop. */
const cycle = (r: string) =>
  `select ${r}.id as history_id, cm.repairer_id as shop_id, ${r}.changed_at as returned_at,
      extract(epoch from (f.flagged_at - dl.delivered_at))::float8 / 86400 as at_shop_days,
      extract(epoch from (${r}.changed_at - f.flagged_at))::float8 / 86400 as back_days,
      extract(epoch from (${r}.changed_at - dl.delivered_at))::float8 / 86400 as total_days
    from (
      select h.changed_at as flagged_at from part_status_history h
      where h.part_id = ${r}.part_id and h.to_status = ${FLAGGED} and h.changed_at <= ${r}.changed_at
      order by h.changed_at desc limit 1
    ) f
    cross join lateral (
      select h.changed_at as delivered_at from part_status_history h
      where h.part_id = ${r}.part_id and h.to_status = ${DELIVERED} and h.changed_at <= f.flagged_at
      order by h.changed_at desc limit 1
    ) dl
    join parts_orders p on p.id = ${r}.part_id
    join claim_management cm on cm.claim_id = p.claim_id and cm.repairer_id is not null`;

const CYCLE_COLUMNS = "history_id, shop_id, returned_at, at_shop_days, back_days, total_days";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table trend_zone (
    only_row boolean primary key default true check (only_row),
    time_zone text not null
  )`.execute(db);
  await sql`create table trend_days (
    day date not null,
    stage text not null,
    driver_id integer not null,
    shop_id integer not null,
    movements integer not null,
    parts integer not null,
    primary key (day, stage, driver_id, shop_id)
  )`.execute(db);

  // Adds a movement's steps times `factor` (1: as it is now, -1: as it was) to the days, in key order.
  await sql.raw(`create function trend_days_add(m parts_movements, factor integer) returns void
    language plpgsql as $$
    declare
      zone text;
    begin
      perform pg_advisory_xact_lock_shared(${TREND_ZONE_LOCK});
      select z.time_zone into zone from trend_zone z;
      if zone is null then
        return;
      end if;
      insert into trend_days as t (day, stage, driver_id, shop_id, movements, parts)
        select s.day, s.stage, s.driver_id, s.shop_id, factor, factor * s.parts from (${steps("m", "zone")}) s
        order by 1, 2, 3, 4
        on conflict (day, stage, driver_id, shop_id) do update
          set movements = t.movements + excluded.movements, parts = t.parts + excluded.parts;
    end $$`).execute(db);
  await sql`create function trend_days_movement() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and (old.movement_type, old.picked_up_by, old.dropped_off_by, old.pick_up_at,
          old.dropped_off_at, old.part_count, old.place_repairer_id) is not distinct from (new.movement_type,
          new.picked_up_by, new.dropped_off_by, new.pick_up_at, new.dropped_off_at, new.part_count,
          new.place_repairer_id) then
        return null;
      end if;
      if tg_op <> 'INSERT' then
        perform trend_days_add(old, -1);
      end if;
      if tg_op <> 'DELETE' then
        perform trend_days_add(new, 1);
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger trend_days_movement after insert or delete or update of movement_type,
    picked_up_by, dropped_off_by, pick_up_at, dropped_off_at, part_count, place_repairer_id
    on parts_movements for each row execute function trend_days_movement()`.execute(db);

  // Counts every movement again in `zone`, unless the days are already counted in it (`force`: anyway).
  await sql.raw(`create function trend_days_rebuild(zone text, force boolean) returns void
    language plpgsql as $$
    begin
      perform pg_advisory_xact_lock(${TREND_ZONE_LOCK});
      if not force and exists (select 1 from trend_zone where time_zone = zone) then
        return;
      end if;
      insert into trend_zone (only_row, time_zone) values (true, zone)
        on conflict (only_row) do update set time_zone = excluded.time_zone;
      delete from trend_days;
      insert into trend_days (day, stage, driver_id, shop_id, movements, parts)
        select s.day, s.stage, s.driver_id, s.shop_id, count(*)::int, sum(s.parts)::int
        from parts_movements m cross join lateral (${steps("m", "zone")}) s
        group by 1, 2, 3, 4;
    end $$`).execute(db);

  await sql`create table return_cycles (
    history_id integer primary key,
    shop_id integer not null,
    returned_at timestamptz not null,
    at_shop_days float8 not null,
    back_days float8 not null,
    total_days float8 not null
  )`.execute(db);
  await sql.raw(`create function return_cycles_history() returns trigger language plpgsql as $$
    begin
      insert into return_cycles (${CYCLE_COLUMNS}) ${cycle("new")};
      return null;
    end $$`).execute(db);
  await sql.raw(`create trigger return_cycles_history after insert on part_status_history
    for each row when (new.to_status = ${RETURNED}) execute function return_cycles_history()`).execute(db);
  await sql.raw(`create function return_cycles_rebuild() returns void language plpgsql as $$
    begin
      delete from return_cycles;
      insert into return_cycles (${CYCLE_COLUMNS})
        select c.* from part_status_history r cross join lateral (${cycle("r")}) c
        where r.to_status = ${RETURNED};
    end $$`).execute(db);

  await sql`select return_cycles_rebuild()`.execute(db);
  await sql`create index return_cycles_returned on return_cycles (returned_at)
    include (shop_id, at_shop_days, back_days, total_days)`.execute(db);
  await sql`analyze return_cycles`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger return_cycles_history on part_status_history`.execute(db);
  await sql`drop function return_cycles_rebuild()`.execute(db);
  await sql`drop function return_cycles_history()`.execute(db);
  await sql`drop table return_cycles`.execute(db);
  await sql`drop trigger trend_days_movement on parts_movements`.execute(db);
  await sql`drop function trend_days_rebuild(text, boolean)`.execute(db);
  await sql`drop function trend_days_movement()`.execute(db);
  await sql`drop function trend_days_add(parts_movements, integer)`.execute(db);
  await sql`drop table trend_days`.execute(db);
  await sql`drop table trend_zone`.execute(db);
}
