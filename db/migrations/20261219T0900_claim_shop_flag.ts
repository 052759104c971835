/**
 * The parts list's repair-shop sort at 1 000 000 claims (docs/dashboard.md "Lists: links, sorting,
 * thumbnails"): its rows without a shop (a claim with no management record, or one naming no shop) come first
 * descending. Proving there are none took an anti-join of every claim against claim_management (343 ms at 1M
 * claims, when every claim has a shop), since no index holds "a claim without a record". Each claim now
 * carries `has_shop`, kept by a trigger on claim_management, and a partial index holds the claims without
 * one, so that part of the walk reads only them (db/queries/part_shop_sort.ts).
 *
 * A row trigger, fired only by what changes the answer (a record added or removed, its shop or claim
 * changed): the submissions' own update of claim_management (parts_movement_id) does not fire it. The
 * import writes records in batches of hundreds, so the row-at-a-time update of their claims is small.
 *
 * Plain DDL in the migration's transaction: on a million claims the backfill and the index build block
 * writes to claims for some seconds.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table claims add column has_shop boolean not null default false`.execute(db);
  await sql`create function claims_has_shop() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.claim_id <> new.claim_id) then
        update claims set has_shop = false where id = old.claim_id and has_shop;
      end if;
      if tg_op <> 'DELETE' then
        update claims set has_shop = new.repairer_id is not null
        where id = new.claim_id and has_shop <> (new.repairer_id is not null);
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger claims_has_shop after insert or delete or update of claim_id, repairer_id
    on claim_management for each row execute function claims_has_shop()`.execute(db);
  await sql`update claims c set has_shop = true from claim_management cm
    where cm.claim_id = c.id and cm.repairer_id is not null`.execute(db);
  await sql`create index claims_without_shop on claims (id) where not has_shop`.execute(db);
  // Statistics at once, as in 20261218T0900_movement_place: the planner must know the claims without a
  // shop are few before autovacuum looks.
  await sql`analyze claims`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index claims_without_shop`.execute(db);
  await sql`drop trigger claims_has_shop on claim_management`.execute(db);
  await sql`drop function claims_has_shop()`.execute(db);
  await sql`alter table claims drop column has_shop`.execute(db);
}
