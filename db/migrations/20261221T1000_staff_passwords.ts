/**
 * Dashboard passwords and remembered browsers (docs/sign-in.md "Dashboard passwords", "Remembered
 * browsers").
 *
 * - `users.password_hash`: the dashboard password of a dispatcher or admin, hashed like PINs (io/pin.ts,
 *   PBKDF2-SHA256). Null for drivers, and for staff who had only a PIN before: they cannot sign in to the
 *   dashboard until an admin (or the import) sets a password. PINs stay as they are (the tablet's).
 * - `users.totp_secret`, `totp_pending_secret`, `totp_last_step`: an admin's second factor (RFC 6238,
 *   io/totp.ts): the base32 secret once confirmed, the one being set up until its first code is typed, and
 *   the step of the last code accepted (a code is accepted once).
 * - `remembered_browsers`: a browser where a staff user signed in to the dashboard before. Only the SHA-256
 *   of its random cookie token is stored; it is bound to that one user, and its wrong passwords count on
 *   their own (`pin_attempts.client` = `browser:<id>`), so failures from elsewhere never lock it.
 */
import type { Kysely } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("users").addColumn("password_hash", "text").execute();
  await db.schema.alterTable("users").addColumn("totp_secret", "text").execute();
  await db.schema.alterTable("users").addColumn("totp_pending_secret", "text").execute();
  await db.schema.alterTable("users").addColumn("totp_last_step", "integer").execute();
  await db.schema
    .createTable("remembered_browsers")
    .addColumn("id", "integer", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("last_used_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("remembered_browsers_user").on("remembered_browsers").column("user_id")
    .execute();
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("remembered_browsers").execute();
  for (const column of ["password_hash", "totp_secret", "totp_pending_secret", "totp_last_step"]) {
    await db.schema.alterTable("users").dropColumn(column).execute();
  }
}
