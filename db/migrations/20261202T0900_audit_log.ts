/**
 * The audit trail (docs/dashboard.md "Audit trail"): one row per admin or dispatcher action, written in the
 * same transaction as the action itself, so an action and its entry exist together or not at all.
 * `before`/`after` hold the changed fields as JSON (never a PIN or its hash). `claim_id` is set when the
 * action touches a claim (a part's status), for the claim's timeline. Rows are only ever inserted.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable("audit_log")
    .addColumn("id", "serial", (c) => c.primaryKey())
    .addColumn("at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("actor_id", "integer", (c) => c.references("users.id"))
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("claim_id", "integer", (c) => c.references("claims.id"))
    .addColumn("before", "jsonb")
    .addColumn("after", "jsonb")
    .execute();
  // The page reads newest first by id (keyset on the primary key: the order entries were written, exact
  // even when two share a time); the filters narrow by actor or action.
  await db.schema.createIndex("audit_log_actor").on("audit_log").columns(["actor_id", "id"]).execute();
  await db.schema.createIndex("audit_log_action").on("audit_log").columns(["action", "id"]).execute();
  await db.schema.createIndex("audit_log_claim").on("audit_log").column("claim_id").where(
    "claim_id",
    "is not",
    null,
  )
    .execute();
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("audit_log").execute();
}
