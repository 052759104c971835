/**
 * The overview's figures at a million claims (docs/overview.md "How fast").
 *
 * Counting the parts of a status by shop read every part in it and its claim's management record: at
 * 100 000 claims (150 000 parts at shops) 0.75 s, at a million ten times that, so the counts are kept:
 *
 * - `overview_counts`: per status counted (Arrived, at a shop, flagged, on a truck), repair shop of the claim
 *   now (0: none) and UTC day the part entered its status (`date_trunc('day', updated_at, 'UTC')`), how
 *   many parts. Kept by statement triggers on `parts_orders` (an insert, a delete, an update changing a
 *   part's status, time or claim: one upsert per changed key, in key order, so two statements never take
 *   the same counters in opposite orders) and a row trigger on `claim_management` (a claim's shop set,
 *   changed or removed moves its parts' counts; it first locks those parts, so a status change racing it
 *   is either seen by it or sees its new shop: docs/overview.md "How fast"). A figure sums a few thousand
 *   rows; an age band's edge falls inside one day, whose parts are counted exactly from `parts_orders`
 *   (`parts_orders_status_updated`, one day of one status).
 * - `part_status_history_returned`: the history rows returning a part to HQ, by time: "returned today" is
 *   one index range of the depot's day.
 *
 * Plain DDL in the migration's transaction, like 20261222T1100_run_stops: on 3 000 000 parts the backfill and
 * the index build block writes to parts_orders and part_status_history for some seconds.
 */
import { type Kysely, sql } from "kysely";

const COUNTED =
  `('Arrived', 'Delivered to Repair Shop directly', 'Pending Repair Shop Pick-Up', 'Picked Up from Repair Shop')`;

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table overview_counts (
    status text not null,
    repairer_id integer not null,
    since_day timestamptz not null,
    parts integer not null,
    primary key (status, repairer_id, since_day)
  )`.execute(db);

  // Adds `delta` rows (status, repairer_id, since_day, n) to the counters, in key order.
  const upsert = (delta: string) =>
    `insert into overview_counts as oc (status, repairer_id, since_day, parts)
      select status, repairer_id, since_day, sum(n)::int from (${delta}) d
      group by status, repairer_id, since_day having sum(n) <> 0
      order by status, repairer_id, since_day
      on conflict (status, repairer_id, since_day) do update set parts = oc.parts + excluded.parts`;
  const side = (rows: string, sign: string, extra = "") =>
    `select r.status, coalesce(cm.repairer_id, 0) as repairer_id,
        date_trunc('day', r.updated_at, 'UTC') as since_day, ${sign} as n
      from ${rows} left join claim_management cm on cm.claim_id = r.claim_id
      where r.status in ${COUNTED} ${extra}`;
  // An update counts only for the parts whose status, time or claim it changed.
  const changed = (a: string, b: string) =>
    `and (${a}.status, ${a}.updated_at, ${a}.claim_id) is distinct from (${b}.status, ${b}.updated_at, ${b}.claim_id)`;
  await sql.raw(`create function overview_counts_parts() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${upsert(side("new_rows r", "1"))};
      elsif tg_op = 'DELETE' then
        ${upsert(side("old_rows r", "-1"))};
      else
        ${
    upsert(
      `${side("old_rows r join new_rows nw on nw.id = r.id", "-1", changed("r", "nw"))}
        union all
        ${side("new_rows r join old_rows o on o.id = r.id", "1", changed("o", "r"))}`,
    )
  };
      end if;
      return null;
    end $$`).execute(db);
  await sql`create trigger overview_counts_insert after insert on parts_orders
    referencing new table as new_rows for each statement execute function overview_counts_parts()`.execute(
    db,
  );
  await sql`create trigger overview_counts_update after update on parts_orders
    referencing old table as old_rows new table as new_rows
    for each statement execute function overview_counts_parts()`.execute(db);
  await sql`create trigger overview_counts_delete after delete on parts_orders
    referencing old table as old_rows for each statement execute function overview_counts_parts()`.execute(
    db,
  );

  // A claim's shop: its parts' counts move from the shop before (0: none) to the shop after.
  await sql.raw(`create function overview_counts_shop() returns trigger language plpgsql as $$
    declare
      old_claim integer := case when tg_op = 'INSERT' then new.claim_id else old.claim_id end;
      new_claim integer := case when tg_op = 'DELETE' then old.claim_id else new.claim_id end;
      old_shop integer := case when tg_op = 'INSERT' then 0 else coalesce(old.repairer_id, 0) end;
      new_shop integer := case when tg_op = 'DELETE' then 0 else coalesce(new.repairer_id, 0) end;
    begin
      if old_claim = new_claim and old_shop = new_shop then
        return null;
      end if;
      perform 1 from parts_orders where claim_id in (old_claim, new_claim) order by id for update;
      ${
    upsert(
      `select p.status, old_shop as repairer_id, date_trunc('day', p.updated_at, 'UTC') as since_day, -1 as n
        from parts_orders p where p.claim_id = old_claim and p.status in ${COUNTED}
        union all
        select p.status, new_shop, date_trunc('day', p.updated_at, 'UTC'), 1
        from parts_orders p where p.claim_id = new_claim and p.status in ${COUNTED}`,
    )
  };
      return null;
    end $$`).execute(db);
  await sql`create trigger overview_counts_shop after insert or delete or update of claim_id, repairer_id
    on claim_management for each row execute function overview_counts_shop()`.execute(db);

  await sql.raw(upsert(side("parts_orders r", "1"))).execute(db);
  await sql`create index part_status_history_returned on part_status_history (changed_at) include (part_id)
    where to_status = 'Returned to HQ'`.execute(db);
  await sql`analyze overview_counts`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index part_status_history_returned`.execute(db);
  await sql`drop trigger overview_counts_shop on claim_management`.execute(db);
  await sql`drop trigger overview_counts_insert on parts_orders`.execute(db);
  await sql`drop trigger overview_counts_update on parts_orders`.execute(db);
  await sql`drop trigger overview_counts_delete on parts_orders`.execute(db);
  await sql`drop function overview_counts_shop()`.execute(db);
  await sql`drop function overview_counts_parts()`.execute(db);
  await sql`drop table overview_counts`.execute(db);
}
