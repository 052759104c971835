/**
 * What a repair shop does on its page (docs/shop-page.md): marks parts ready for collection (a status change
 * whose actor is the shop, not a user: `via = 'shop'` with `changed_by_repairer_id`, and the audit entry's
 * `actor_repairer_id`), and reports a problem with a part (`shop_problem_reports`, the dispatchers' queue).
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table part_status_history drop constraint part_status_history_via_check`.execute(db);
  await sql`alter table part_status_history add constraint part_status_history_via_check
    check (via in ('import', 'dashboard', 'movement', 'shop'))`.execute(db);
  await sql`alter table part_status_history add column changed_by_repairer_id integer references repairers(id)`
    .execute(db);
  await sql`alter table part_status_history add constraint part_status_history_shop_actor
    check ((via = 'shop') = (changed_by_repairer_id is not null))`.execute(db);
  await sql`alter table audit_log add column actor_repairer_id integer references repairers(id)`.execute(db);
  await sql`create table shop_problem_reports (
    id integer generated always as identity primary key,
    repairer_id integer not null references repairers(id),
    part_id integer not null references parts_orders(id),
    reason text not null check (reason in ('wrong_part', 'damaged', 'not_received')),
    note text check (char_length(note) <= 500),
    photo_id integer references photos(id),
    reported_at timestamptz not null,
    state text not null default 'open' check (state in ('open', 'resolved')),
    resolved_by integer references users(id),
    resolved_at timestamptz,
    check ((state = 'resolved') = (resolved_at is not null))
  )`.execute(db);
  await sql`create index shop_problem_reports_open on shop_problem_reports (id) where state = 'open'`
    .execute(db);
  await sql`create index shop_problem_reports_photo on shop_problem_reports (photo_id) where photo_id is not null`
    .execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table shop_problem_reports`.execute(db);
  await sql`alter table audit_log drop column actor_repairer_id`.execute(db);
  await sql`delete from part_status_history where via = 'shop'`.execute(db);
  await sql`alter table part_status_history drop constraint part_status_history_shop_actor`.execute(db);
  await sql`alter table part_status_history drop column changed_by_repairer_id`.execute(db);
  await sql`alter table part_status_history drop constraint part_status_history_via_check`.execute(db);
  await sql`alter table part_status_history add constraint part_status_history_via_check
    check (via in ('import', 'dashboard', 'movement'))`.execute(db);
}
