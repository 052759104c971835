/**
 * The trends page's reads (docs/trends.md), each one range of a covering index so a day's steps are read
 * from the index alone (no table visit per movement):
 * - `parts_movements_trend_drop_off`: drop-offs (a direct delivery at a shop, a return at HQ) by type and
 *   time, with the driver, the parts and the shop;
 * - `parts_movements_trend_pick_up`: return trips' pick-ups at a shop by time, with the same;
 * - `part_status_history_cycle`: a part's deliveries and flags for return by time, so each return's latest
 *   flag and delivery before it is the newest entry of one key, read from the index alone.
 *
 * The turnaround finds the returns of the range through `part_status_history_returned`
 * (20261225T1000_overview, which "returned today" reads too).
 *
 * Plain DDL in the migration's transaction: on 5 000 000 movements the builds block writes to
 * parts_movements and part_status_history for some seconds.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index parts_movements_trend_drop_off on parts_movements (movement_type, dropped_off_at)
    include (dropped_off_by, part_count, place_repairer_id)`.execute(db);
  await sql`create index parts_movements_trend_pick_up on parts_movements (pick_up_at)
    include (picked_up_by, part_count, place_repairer_id) where movement_type = 'reverse'`.execute(db);
  await sql`create index part_status_history_cycle on part_status_history (part_id, to_status, changed_at)
    where to_status in ('Delivered to Repair Shop directly', 'Pending Repair Shop Pick-Up')`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index part_status_history_cycle`.execute(db);
  await sql`drop index parts_movements_trend_pick_up`.execute(db);
  await sql`drop index parts_movements_trend_drop_off`.execute(db);
}
