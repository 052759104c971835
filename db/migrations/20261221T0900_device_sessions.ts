/**
 * Tablet sessions bound to their device, and what the tablets page shows of each tablet (docs/sign-in.md
 * "Sessions on a tablet", docs/tablet.md "Enrolling a tablet").
 *
 * - `sessions.device_id`: the enrolled tablet a session was opened on (null: a dashboard session). Deleting
 *   the device (revoking it) deletes its sessions in the same statement (ON DELETE CASCADE), so a revoked
 *   tablet's next request finds no session.
 * - `devices.last_user_id`: the last user who signed in on the tablet (the "last driver"); a deleted user
 *   leaves it empty.
 * - `devices.browser`: a short summary of the browser's User-Agent ("Chrome on Android"), at enrolment and
 *   at each sign-in (lib/user_agent.ts); plain text, at most 60 characters.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("sessions")
    .addColumn("device_id", "integer", (c) => c.references("devices.id").onDelete("cascade"))
    .execute();
  // Revoking deletes by device: without the index that is a scan of every session.
  await db.schema.createIndex("sessions_device").on("sessions").column("device_id").execute();
  await db.schema.alterTable("devices")
    .addColumn("last_user_id", "integer", (c) => c.references("users.id").onDelete("set null"))
    .execute();
  await db.schema.alterTable("devices")
    .addColumn("browser", "text", (c) => c.check(sql`length(browser) <= 60`))
    .execute();
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("devices").dropColumn("browser").execute();
  await db.schema.alterTable("devices").dropColumn("last_user_id").execute();
  await db.schema.alterTable("sessions").dropColumn("device_id").execute();
}
