/**
 * Two movement sorts of the dashboard served by an index at 1 000 000 claims (docs/dashboard.md "Lists:
 * links, sorting, thumbnails"): the number of parts a movement carried, stored on the movement (`part_count`,
 * written by the movement's own insert, db/queries/movements.ts: a movement's Deliver_Parts are all written
 * with it and never added or removed later) instead of counted per row and sorted, and the driver's movements
 * in id order (the driver sort walks the users by name and each one's movements through this index,
 * db/queries/paging.ts). Existing movements get their count here, in one pass.
 *
 * Plain DDL in the migration's transaction: on a database already holding a million movements the backfill
 * and the index builds block writes to parts_movements for about a minute.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table parts_movements add column part_count integer not null default 0
    constraint parts_movements_part_count check (part_count >= 0)`.execute(db);
  await sql`update parts_movements m set part_count = d.n
    from (select movement_id, count(*)::int as n from deliver_parts group by movement_id) d
    where d.movement_id = m.id`.execute(db);
  await sql`create index parts_movements_part_count on parts_movements (part_count, id)`.execute(db);
  await sql`create index parts_movements_picked_up_by_id on parts_movements (picked_up_by, id)`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index parts_movements_picked_up_by_id`.execute(db);
  await sql`drop index parts_movements_part_count`.execute(db);
  await sql`alter table parts_movements drop column part_count`.execute(db);
}
