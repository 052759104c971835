/**
 * Enrolled depot tablets and PIN-check windows (docs/tablet.md "Enrolling a tablet", docs/sign-in.md
 * "PIN checks").
 *
 * - `devices`: a browser an admin enrolled as a depot tablet. Only the SHA-256 of its random device token
 *   is stored (like sessions); revoking deletes the row, so the cookie the tablet holds is worthless.
 * - `pin_attempts`: the PIN-check window of one subject on one client. `subject` is `user:<id>` for a real
 *   user, or `email:<typed>` / `id:<picked>` for a name that is no (eligible) user, so unknown names count
 *   down and lock exactly like real ones. `client` is `dashboard` (no device identity: one count per
 *   subject for every such client) or `device:<id>` (an enrolled tablet). `checks` is the number of PIN
 *   checks reserved in the window that were not right; `window_ends` is when it closes (lib/pin_attempts.ts
 *   explains the rule).
 * - The users table's own counter (`failed_pin_attempts`, `locked_until`) is replaced by those windows.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("devices")
    .addColumn("id", "integer", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("name", "text", (c) => c.notNull().check(sql`length(trim(name)) > 0`))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("enrolled_by", "integer", (c) => c.references("users.id"))
    .addColumn("enrolled_at", "timestamptz", (c) => c.notNull())
    .addColumn("last_used_at", "timestamptz")
    .execute();
  await db.schema
    .createTable("pin_attempts")
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("client", "text", (c) => c.notNull())
    .addColumn("checks", "integer", (c) => c.notNull().check(sql`checks >= 0`))
    .addColumn("window_started_at", "timestamptz", (c) => c.notNull())
    .addColumn("window_ends", "timestamptz", (c) => c.notNull())
    .addPrimaryKeyConstraint("pin_attempts_pkey", ["subject", "client"])
    .execute();
  // The sweep deletes closed windows.
  await db.schema.createIndex("pin_attempts_window_ends").on("pin_attempts").column("window_ends").execute();
  await db.schema.alterTable("users").dropColumn("failed_pin_attempts").execute();
  await db.schema.alterTable("users").dropColumn("locked_until").execute();
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("users").addColumn("locked_until", "timestamptz").execute();
  await db.schema.alterTable("users")
    .addColumn("failed_pin_attempts", "integer", (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.dropTable("pin_attempts").execute();
  await db.schema.dropTable("devices").execute();
}
