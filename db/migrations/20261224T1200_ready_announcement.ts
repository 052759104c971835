/**
 * A repair shop's "Ready for collection" is announced in chat (docs/shop-page.md "Ready for collection"):
 * the title `Ready For Collection`, about a claim's parts on no movement and no return request, so the
 * one-subject rule admits it with neither, as it does `Parts On The Way`. Two constraint swaps.
 */
import { type Kysely, sql } from "kysely";

const TITLES_BEFORE =
  `'Parts Delivered', 'Parts Picked Up From Repair Shop', 'Parts Returned to HQ', 'Return Requested', 'Parts On The Way'`;

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table announcements drop constraint announcements_title_check`.execute(db);
  await sql`alter table announcements add constraint announcements_title_check
    check (title in (${sql.raw(TITLES_BEFORE)}, 'Ready For Collection'))`.execute(db);
  await sql`alter table announcements drop constraint announcements_one_subject`.execute(db);
  await sql`alter table announcements add constraint announcements_one_subject
    check (case when title in ('Parts On The Way', 'Ready For Collection')
      then num_nonnulls(movement_id, return_request_id) = 0
      else num_nonnulls(movement_id, return_request_id) = 1 end)`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from announcements where title = 'Ready For Collection'`.execute(db);
  await sql`alter table announcements drop constraint announcements_one_subject`.execute(db);
  await sql`alter table announcements add constraint announcements_one_subject
    check (case when title = 'Parts On The Way' then num_nonnulls(movement_id, return_request_id) = 0
      else num_nonnulls(movement_id, return_request_id) = 1 end)`.execute(db);
  await sql`alter table announcements drop constraint announcements_title_check`.execute(db);
  await sql`alter table announcements add constraint announcements_title_check
    check (title in (${sql.raw(TITLES_BEFORE)}))`.execute(db);
}
