/**
 * Queries of the users table: the look-ups of sign-in (D23; its wrong-PIN windows are in pin_attempts.ts),
 * the admin pages' changes (D24), the import's upsert (D5) and the lists the pages offer.
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { Role, User } from "@/db/schema.ts";
import { compiledQuery } from "@/db/queries/compiled.ts";
import {
  clearPinWindows,
  lockedSubjectsQuery,
  USER_SUBJECT_PREFIX,
  userSubject,
} from "@/db/queries/pin_attempts.ts";

/** The active user with this (lower-cased) e-mail. Compiled once: every handler call runs it. */
export const activeUserByEmail = compiledQuery((db, email: string) =>
  db.selectFrom("users").selectAll().where("email", "=", email).where("active", "=", true)
);

/** The active user with this id and one of these roles (a name picked on the tablet), else undefined. */
export async function activeUserWithRole(
  db: Db,
  id: number,
  roles: readonly Role[],
): Promise<User | undefined> {
  return await db.selectFrom("users").selectAll()
    .where("id", "=", id).where("active", "=", true).where("role", "in", roles)
    .executeTakeFirst();
}

/** Inserts a user; undefined when the e-mail is taken (the unique index decides, no read before). */
export async function insertUserUnlessEmailTaken(
  db: Db,
  user: { email: string; name: string; role: Role; pin_hash: string | null; password_hash: string | null },
): Promise<User | undefined> {
  return await db.insertInto("users").values(user)
    .onConflict((oc) => oc.column("email").doNothing())
    .returningAll()
    .executeTakeFirst();
}

/**
 * Changes a user's active flag, PIN hash or password hash and lifts any lockout (every PIN-check window of the user, on
 * every client); undefined when there is no such user. Two statements: callers run it in a transaction.
 */
export async function updateUserAndUnlock(
  db: Db,
  userId: number,
  change: { active: boolean } | { pin_hash: string } | { password_hash: string },
): Promise<User | undefined> {
  const user = await db.updateTable("users").set(change).where("id", "=", userId).returningAll()
    .executeTakeFirst();
  if (user) await clearPinWindows(db, userSubject(user.id));
  return user;
}

/**
 * Locks the rows of every active admin, in id order, and returns their ids. The admin pages' role and
 * active changes call it first in their transaction: two admins demoting each other at once then run one
 * after the other (the second waits, and re-reads who is still an active admin), so the "last active
 * admin" rule cannot be beaten by a race. The same order everywhere means no deadlock between them.
 */
export async function lockActiveAdmins(db: Db): Promise<number[]> {
  const rows = await db.selectFrom("users").select("id")
    .where("role", "=", "admin").where("active", "=", true)
    .orderBy("id").forUpdate().execute();
  return rows.map((r) => r.id);
}

/** A user's row, locked for the rest of the transaction; undefined when there is none. */
export async function userForUpdate(db: Db, id: number): Promise<User | undefined> {
  return await db.selectFrom("users").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();
}

/** Sets a user's role (the caller has locked the row and checked the last-admin rule). */
export async function updateUserRole(db: Db, id: number, role: Role): Promise<void> {
  await db.updateTable("users").set({ role }).where("id", "=", id).execute();
}

/**
 * Every user for the admin page: active ones first, by name. `locked_until`: the end of the latest full
 * PIN-check window (`maxChecks` checks) of the user on any client, null when none; the page compares it
 * with the clock.
 */
export async function listUsers(db: Db, maxChecks: number) {
  return await db.selectFrom("users")
    .leftJoin(
      lockedSubjectsQuery(db, maxChecks).as("locks"),
      (join) => join.on("locks.subject", "=", sql<string>`${USER_SUBJECT_PREFIX} || users.id::text`),
    )
    .select(["id", "email", "name", "role", "active", "locks.locked_until", "created_at"])
    .select(sql<boolean>`users.password_hash is not null`.as("has_password"))
    .select(sql<boolean>`users.totp_secret is not null`.as("has_totp"))
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
  password_hash: string | null;
}

/**
 * Inserts or updates users by e-mail; a row without a PIN hash (password hash) keeps the PIN (password) the
 * user already has. Returns the id of each row written.
 */
export async function upsertUsers(db: Db, users: ImportedUser[]): Promise<{ id: number; email: string }[]> {
  return await db.insertInto("users").values(users)
    .onConflict((oc) =>
      oc.column("email").doUpdateSet({
        name: (eb) => eb.ref("excluded.name"),
        role: (eb) => eb.ref("excluded.role"),
        active: (eb) => eb.ref("excluded.active"),
        pin_hash: sql`coalesce(excluded.pin_hash, users.pin_hash)`,
        password_hash: sql`coalesce(excluded.password_hash, users.password_hash)`,
      })
    )
    .returning(["id", "email"])
    .execute();
}

/** Starts setting up an admin's second factor: the secret waits until its first code is typed. */
export async function setPendingTotp(db: Db, userId: number, secret: string): Promise<void> {
  await db.updateTable("users").set({ totp_pending_secret: secret }).where("id", "=", userId).execute();
}

/**
 * Makes the pending secret the user's second factor, if it is still `secret` (a second set-up started in
 * another tab replaces it), recording `step` as used. Undefined when it was not.
 */
export async function confirmPendingTotp(
  db: Db,
  userId: number,
  secret: string,
  step: number,
): Promise<{ email: string } | undefined> {
  return await db.updateTable("users")
    .set({ totp_secret: secret, totp_pending_secret: null, totp_last_step: step })
    .where("id", "=", userId).where("totp_pending_secret", "=", secret)
    .returning("email").executeTakeFirst();
}

/** Removes a user's second factor (set up or pending); the user's e-mail, undefined when there is no user. */
export async function clearTotp(db: Db, userId: number): Promise<{ email: string } | undefined> {
  return await db.updateTable("users")
    .set({ totp_secret: null, totp_pending_secret: null, totp_last_step: null })
    .where("id", "=", userId).returning("email").executeTakeFirst();
}

/**
 * Records that a code of `step` was accepted, only when no code of that step or a later one was: the one
 * statement decides between two sign-ins with the same code, so a code is accepted once (RFC 6238 5.2).
 */
export async function useTotpStep(db: Db, userId: number, step: number): Promise<boolean> {
  const row = await db.updateTable("users").set({ totp_last_step: step })
    .where("id", "=", userId)
    .where((eb) => eb.or([eb("totp_last_step", "is", null), eb("totp_last_step", "<", step)]))
    .returning("id").executeTakeFirst();
  return row !== undefined;
}

/** The secret of a second factor being set up, null when none is. */
export async function pendingTotpSecret(db: Db, userId: number): Promise<string | null> {
  const row = await db.selectFrom("users").select("totp_pending_secret").where("id", "=", userId)
    .executeTakeFirst();
  return row?.totp_pending_secret ?? null;
}
