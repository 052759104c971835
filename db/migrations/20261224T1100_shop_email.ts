/**
 * E-mail to the repair shops goes through the announcement outbox (docs/submissions-and-announcements.md
 * "E-mail to the repair shops"): a row on the channel `shop_email` per announcement to a shop.
 *
 * - `channel` may be `shop_email`; such a row names the shop it goes to (`repairer_id`), and only such a row.
 * - The title `Parts On The Way`: the e-mail sent when a shop's stop is assigned to a driver for today. It
 *   is about the shop on that day, neither a movement nor a return request, so the one-subject rule admits it
 *   with neither.
 *
 * A nullable column without a default and three constraint swaps: nothing is rewritten.
 */
import { type Kysely, sql } from "kysely";

const TITLES_BEFORE =
  `'Parts Delivered', 'Parts Picked Up From Repair Shop', 'Parts Returned to HQ', 'Return Requested'`;

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table announcements add column repairer_id integer references repairers(id)`.execute(db);
  await sql`alter table announcements drop constraint announcements_channel_check`.execute(db);
  await sql`alter table announcements add constraint announcements_channel_check
    check (channel in ('parts_movement', 'new_repair_jobs', 'shop_email'))`.execute(db);
  await sql`alter table announcements add constraint announcements_shop_email
    check ((channel = 'shop_email') = (repairer_id is not null))`.execute(db);
  await sql`alter table announcements drop constraint announcements_title_check`.execute(db);
  await sql`alter table announcements add constraint announcements_title_check
    check (title in (${sql.raw(TITLES_BEFORE)}, 'Parts On The Way'))`.execute(db);
  await sql`alter table announcements drop constraint announcements_one_subject`.execute(db);
  await sql`alter table announcements add constraint announcements_one_subject
    check (case when title = 'Parts On The Way' then num_nonnulls(movement_id, return_request_id) = 0
      else num_nonnulls(movement_id, return_request_id) = 1 end)`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from announcements where channel = 'shop_email' or title = 'Parts On The Way'`.execute(db);
  await sql`alter table announcements drop constraint announcements_one_subject`.execute(db);
  await sql`alter table announcements add constraint announcements_one_subject
    check ((movement_id is null) <> (return_request_id is null))`.execute(db);
  await sql`alter table announcements drop constraint announcements_title_check`.execute(db);
  await sql`alter table announcements add constraint announcements_title_check
    check (title in (${sql.raw(TITLES_BEFORE)}))`.execute(db);
  await sql`alter table announcements drop constraint announcements_shop_email`.execute(db);
  await sql`alter table announcements drop constraint announcements_channel_check`.execute(db);
  await sql`alter table announcements add constraint announcements_channel_check
    check (channel in ('parts_movement', 'new_repair_jobs'))`.execute(db);
  await sql`alter table announcements drop column repairer_id`.execute(db);
}
