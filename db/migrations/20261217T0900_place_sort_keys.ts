/**
 * The last two dashboard sorts served by indexes at 1 000 000 claims (issue 14 item 7, docs/dashboard.md):
 * movements by place and parts by repair shop. Both walk the repair shops in name order (as the driver sort
 * walks the users, db/queries/paging.ts) and read each shop's rows in claim order:
 *
 * - a movement's own shop (a delivery records it): (repairer_id, claim_id, id) below;
 * - a return trip records none, its place is its claim's shop: claim_management (repairer_id, claim_id) of
 *   20261215T0900, then the claim's trips through the partial (claim_id, id) index below, which also finds
 *   the movements with no place at all;
 * - a part's shop is its claim's: claim_management (repairer_id, claim_id), then the claim's parts through
 *   parts_orders_claim_status. Nothing is added to parts_orders: every status flip of a submission is a
 *   non-HOT update that writes each of its indexes.
 *
 * Plain CREATE INDEX (the migration runs in a transaction): on a database already holding a million
 * movements it blocks writes to parts_movements while it builds (seconds).
 */
import { type Kysely, sql } from "kysely";

const INDEXES = [
  "create index parts_movements_repairer_claim on parts_movements (repairer_id, claim_id, id)",
  "create index parts_movements_unplaced_claim on parts_movements (claim_id, id) where repairer_id is null",
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
