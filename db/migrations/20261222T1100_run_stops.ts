/**
 * The run sheet (docs/runs.md): HQ's plan of the day and the two partial indexes its derivation reads.
 *
 * - `run_stops`: who visits a repair shop on a date, and in which place of their run. Only the plan is
 *   stored: the stops themselves (which shops have work) are derived from the parts' statuses every time
 *   (lib/run_sheet.ts), so a part moved by anyone leaves every plan at once. A shop with work and no row is
 *   unassigned. `position` is set exactly when `driver_id` is; positions are unique per driver and date
 *   (a deferred constraint, so one statement may swap two stops). Writers serialise per date
 *   (lib/run_plan.ts), the constraint is the last guard.
 * - `parts_orders_work`: the parts in the two statuses that make a stop (`Arrived`: a delivery;
 *   `Pending Repair Shop Pick-Up`: a collection), by claim: the sheet reads the open work as one index range
 *   however many parts the depot ever had (docs/performance.md "The run sheet at 1M claims").
 * - `part_status_history_left_work`: the history rows of parts leaving those statuses, by time: the work
 *   done on a date (a delivered claim stays on the day's sheet, done) as one index range.
 *
 * Plain DDL in the migration's transaction: on 3 000 000 parts the two index builds block writes to
 * parts_orders and part_status_history for some seconds.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table run_stops (
    run_date date not null,
    repairer_id integer not null references repairers(id),
    driver_id integer references users(id),
    position integer check (position > 0),
    updated_by integer not null references users(id),
    updated_at timestamptz not null,
    primary key (run_date, repairer_id),
    check ((driver_id is null) = (position is null)),
    constraint run_stops_position unique (run_date, driver_id, position) deferrable initially deferred
  )`.execute(db);
  await sql`create index run_stops_driver on run_stops (driver_id, run_date) where driver_id is not null`
    .execute(db);
  await sql`create index parts_orders_work on parts_orders (status, claim_id)
    where status in ('Arrived', 'Pending Repair Shop Pick-Up')`.execute(db);
  await sql`create index part_status_history_left_work on part_status_history (changed_at)
    include (part_id, from_status) where from_status in ('Arrived', 'Pending Repair Shop Pick-Up')`
    .execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index part_status_history_left_work`.execute(db);
  await sql`drop index parts_orders_work`.execute(db);
  await sql`drop table run_stops`.execute(db);
}
