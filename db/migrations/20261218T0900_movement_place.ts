/**
 * The movements list's place sort served by an index at 1 000 000 claims (docs/dashboard.md "Lists: links,
 * sorting, thumbnails"). A movement's place is its repair shop: a drop-off's own, and for a return trip
 * (which records none) its claim's. Read through the claim, a shop's return trips were "claims of this shop
 * that have a return trip", which no index holds, so the list sorted every row (2 s). The movement now stores
 * its place (`place_repairer_id`) with an index on (place, id), and the sort walks the shops in name order as
 * the driver sort walks the users (db/queries/paging.ts).
 *
 * The place is recorded when the movement is written: a return trip keeps the shop it was picked up from
 * when the claim's shop changes later (before, the list showed the claim's shop of the day). A trigger
 * fills it on every insert that does not name one, so each writer (the submissions, the bench's generator,
 * a test's fixture) records the same place; existing movements get theirs here, in one pass.
 *
 * Plain DDL in the migration's transaction: on a million movements the backfill and the index build block
 * writes to parts_movements for about a minute.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table parts_movements add column place_repairer_id integer references repairers (id)`
    .execute(db);
  await sql`create function parts_movements_place() returns trigger language plpgsql as $$
    begin
      if new.place_repairer_id is null then
        new.place_repairer_id := coalesce(new.repairer_id,
          (select repairer_id from claim_management where claim_id = new.claim_id));
      end if;
      return new;
    end $$`.execute(db);
  await sql`create trigger parts_movements_place before insert on parts_movements
    for each row execute function parts_movements_place()`.execute(db);
  await sql`update parts_movements m set place_repairer_id = coalesce(m.repairer_id,
    (select cm.repairer_id from claim_management cm where cm.claim_id = m.claim_id))`.execute(db);
  await sql`create index parts_movements_place on parts_movements (place_repairer_id, id)`.execute(db);
  // Statistics for the new column at once: until autovacuum gets to it, the planner does not know that
  // movements without a place are rare, and reads "those first" (the place sort descending) by scanning
  // every movement backwards by id (0.7 s at 1 000 000 claims, 16 ms after this).
  await sql`analyze parts_movements`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index parts_movements_place`.execute(db);
  await sql`drop trigger parts_movements_place on parts_movements`.execute(db);
  await sql`drop function parts_movements_place()`.execute(db);
  await sql`alter table parts_movements drop column place_repairer_id`.execute(db);
}
