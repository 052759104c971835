/**
 * Indexes for the dashboard at scale (docs/dashboard.md "Lists: links, sorting, thumbnails"): each list's
 * default order, each filter with that order, and each sort on a list's own columns, all ending on `id` so
 * keyset paging (db/queries/paging.ts) reads one page as one index range, however deep. Measured at 1 000 000
 * claims / 3 000 000 parts (docs/performance.md). Sorts on another table's column (claim number, rego) walk
 * that table's index and join; the repair shop and computed columns (a movement's place, its part count) have
 * no index and sort the filtered rows (docs/dashboard.md).
 *
 * Plain CREATE INDEX (the migration runs in a transaction): on a database already holding millions of
 * parts it blocks writes to these tables while it builds (about a minute at 3 000 000 parts).
 */
import { type Kysely, sql } from "kysely";

const INDEXES = [
  // Parts list: "since" (the default, newest first), status filter with it, and the other own columns.
  "create index parts_orders_updated on parts_orders (updated_at, id)",
  "create index parts_orders_status_updated on parts_orders (status, updated_at, id)",
  "create index parts_orders_status_id on parts_orders (status, id)",
  "create index parts_orders_part_no on parts_orders (part_no, id)",
  "create index parts_orders_description on parts_orders (description, id)",
  "create index parts_orders_qty on parts_orders (qty_ordered, id)",
  // Claim-number filter (a contains-match, like the rego's trigram index) and the rego sort.
  "create index claims_claim_number_trgm on claims using gin (claim_number gin_trgm_ops)",
  "create index claims_registration on claims (registration, id)",
  // The repair-shop filter finds the shop's claims.
  "create index claim_management_repairer on claim_management (repairer_id, claim_id)",
  // Movements list: pick-up time (the default), the type, status and driver filters with it, own columns.
  "create index parts_movements_pick_up on parts_movements (pick_up_at, id)",
  "create index parts_movements_type_pick_up on parts_movements (movement_type, pick_up_at, id)",
  "create index parts_movements_status_pick_up on parts_movements (movement_status, pick_up_at, id)",
  "create index parts_movements_picked_up_by on parts_movements (picked_up_by, pick_up_at, id)",
  "create index parts_movements_dropped_off_by on parts_movements (dropped_off_by, pick_up_at, id)",
  "create index parts_movements_type_id on parts_movements (movement_type, id)",
  "create index parts_movements_status_id on parts_movements (movement_status, id)",
  "create index parts_movements_dropped_off on parts_movements (dropped_off_at, id)",
  // The open return trips page: only the trips on the road.
  `create index parts_movements_open_trips on parts_movements (pick_up_at, id)
    where movement_type = 'reverse' and movement_status = 'Parts Picked Up'`,
  // Announcement feed: its state filter and the capped per-state counts walk one state, newest first.
  "create index announcements_state on announcements (state, id)",
];

const NAMES = INDEXES.map((ddl) => /^create index (\w+)/.exec(ddl)![1]);

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  for (const ddl of INDEXES) await sql.raw(ddl).execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const name of NAMES.toReversed()) await sql`drop index ${sql.id(name)}`.execute(db);
}
