/**
 * The announcement worker's lease gets an owner (docs/submissions-and-announcements.md "The worker's
 * lease"): each claim writes a fresh token into `lease_owner`, the worker's heartbeat renews only the rows
 * still carrying its token, and every outcome it records is guarded by that token. A worker that stalled
 * past its lease and was taken over therefore finds its token gone: it records nothing and posts nothing
 * more of what the new owner holds.
 *
 * A nullable column with no default: adding it rewrites nothing, and rows without a lease keep null.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table announcements add column lease_owner uuid`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table announcements drop column lease_owner`.execute(db);
}
