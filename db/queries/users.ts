/**
 * Queries of the users table: look-ups, the wrong-PIN counter and lockout of sign-in (D23), the admin
 * pages' changes (D24), the import's upsert (D5) and the lists the pages offer.
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { Role, User } from "@/db/schema.ts";
import { compiledQuery } from "@/db/queries/compiled.ts";

/** The active user with this (lower-cased) e-mail. Compiled once: every handler call runs it. */
export const activeUserByEmail = compiledQuery((db, email: string) =>
  db.selectFrom("users").selectAll().where("email", "=", email).where("active", "=", true)
);

/** Clears the wrong-PIN count and any lockout (a successful sign-in). */
export async function clearWrongPins(db: Db, userId: number): Promise<void> {
  await db.updateTable("users").set({ failed_pin_attempts: 0, locked_until: null })
    .where("id", "=", userId).execute();
}

/** Counts one wrong PIN in one statement (two tablets guessing at once both count); returns the new count. */
export async function countWrongPin(db: Db, userId: number): Promise<number> {
  const row = await db.updateTable("users")
    .set((eb) => ({ failed_pin_attempts: eb("failed_pin_attempts", "+", 1) }))
    .where("id", "=", userId)
    .returning("failed_pin_attempts")
    .executeTakeFirstOrThrow();
  return row.failed_pin_attempts;
}

/** Locks the user out until `until`, starting the count again. */
export async function lockUserUntil(db: Db, userId: number, until: Date): Promise<void> {
  await db.updateTable("users").set({ failed_pin_attempts: 0, locked_until: until })
    .where("id", "=", userId).execute();
}

/** Inserts a user; undefined when the e-mail is taken (the unique index decides, no read before). */
export async function insertUserUnlessEmailTaken(
  db: Db,
  user: { email: string; name: string; role: Role; pin_hash: string },
): Promise<User | undefined> {
  return await db.insertInto("users").values(user)
    .onConflict((oc) => oc.column("email").doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Changes a user's active flag or PIN hash and lifts any lockout; undefined when there is no such user. */
export async function updateUserAndUnlock(
  db: Db,
  userId: number,
  change: { active: boolean } | { pin_hash: string },
): Promise<User | undefined> {
  return await db.updateTable("users")
    .set({ ...change, failed_pin_attempts: 0, locked_until: null })
    .where("id", "=", userId)
    .returningAll()
    .executeTakeFirst();
}

/** Every user for the admin page: active ones first, by name. */
export async function listUsers(db: Db) {
  return await db.selectFrom("users")
    .select(["id", "email", "name", "role", "active", "locked_until", "created_at"])
    .orderBy("active", "desc").orderBy("name").orderBy("id")
    .execute();
}

/** Drivers and other users who may appear on movements, for the dashboard's driver filter. */
export async function listMovers(db: Db) {
  return await db.selectFrom("users").select(["id", "name", "role"]).orderBy("name").execute();
}

/** Active users with role driver, by name (the tablet's sign-in screen). */
export async function activeDrivers(db: Db): Promise<{ id: number; name: string }[]> {
  return await db.selectFrom("users").select(["id", "name"])
    .where("role", "=", "driver").where("active", "=", true)
    .orderBy("name").orderBy("id").execute();
}

/** The e-mail of the active user with this id and one of these roles, else null. */
export async function activeUserEmail(db: Db, id: number, roles: readonly Role[]): Promise<string | null> {
  const row = await db.selectFrom("users").select("email")
    .where("id", "=", id).where("active", "=", true).where("role", "in", roles)
    .executeTakeFirst();
  return row?.email ?? null;
}

/** Whether any user exists (the demo data loads only into an empty database). */
export async function anyUser(db: Db): Promise<boolean> {
  return await db.selectFrom("users").select("id").limit(1).executeTakeFirst() !== undefined;
}

export interface ImportedUser {
  email: string;
  name: string;
  role: Role;
  active: boolean;
  pin_hash: string | null;
}

/** Inserts or updates users by e-mail; a row without a PIN hash keeps the PIN the user already has. */
export async function upsertUsers(db: Db, users: ImportedUser[]): Promise<void> {
  await db.insertInto("users").values(users)
    .onConflict((oc) =>
      oc.column("email").doUpdateSet({
        name: (eb) => eb.ref("excluded.name"),
        role: (eb) => eb.ref("excluded.role"),
        active: (eb) => eb.ref("excluded.active"),
        pin_hash: sql`coalesce(excluded.pin_hash, users.pin_hash)`,
      })
    )
    .execute();
}
