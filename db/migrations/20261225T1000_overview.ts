/**
 * The overview's indexes (docs/overview.md "How fast"):
 *
 * - `parts_orders_overview`: the parts in the four statuses the overview counts by repair shop (ready at HQ,
 *   held at a shop, flagged for return, on a truck), by status then claim, with the time they entered it
 *   (`updated_at`, the ageing's "since"): each figure reads one index range, in claim order, joined to the
 *   claims' management records in the same order, without reading the table.
 * - `part_status_history_returned`: the history rows returning a part to HQ, by time: "returned today" is
 *   one index range of the depot's day.
 *
 * Plain DDL in the migration's transaction, like 20261222T1100_run_stops: on 3 000 000 parts the builds
 * block writes to parts_orders and part_status_history for some seconds.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index parts_orders_overview on parts_orders (status, claim_id) include (updated_at)
    where status in ('Arrived', 'Delivered to Repair Shop directly', 'Pending Repair Shop Pick-Up',
      'Picked Up from Repair Shop')`.execute(db);
  await sql`create index part_status_history_returned on part_status_history (changed_at) include (part_id)
    where to_status = 'Returned to HQ'`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index part_status_history_returned`.execute(db);
  await sql`drop index parts_orders_overview`.execute(db);
}
