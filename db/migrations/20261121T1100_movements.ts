/**
 * Indexes for the movement submissions and the announcement worker.
 *
 * - Retry recognition (D16) and the movement page read a movement's history rows: without an index on
 *   `movement_id`, each lookup would scan the whole part history.
 * - The worker finds each channel's oldest pending announcement (its head) on every round.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index part_status_history_movement on part_status_history (movement_id, to_status, changed_at)
    where movement_id is not null`.execute(db);
  await sql`create index announcements_pending_channel on announcements (channel, id) where state = 'pending'`
    .execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index announcements_pending_channel`.execute(db);
  await sql`drop index part_status_history_movement`.execute(db);
}
