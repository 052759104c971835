/** Queries of the sessions table (D23): only the SHA-256 of a session token is ever stored or looked up. */
import type { Db } from "@/db/client.ts";

export async function insertSession(
  db: Db,
  s: { tokenHash: string; userId: number; csrfToken: string; at: Date; deviceId?: number | null },
): Promise<void> {
  await db.insertInto("sessions").values({
    token_hash: s.tokenHash,
    user_id: s.userId,
    csrf_token: s.csrfToken,
    created_at: s.at,
    last_seen_at: s.at,
    device_id: s.deviceId ?? null,
  }).execute();
}

/**
 * The session of a token hash with its user (whatever the user's state: the caller decides) and, for a
 * tablet session, the token hash of the device it is bound to.
 */
export async function sessionWithUser(db: Db, tokenHash: string) {
  return await db.selectFrom("sessions").innerJoin("users", "users.id", "sessions.user_id")
    .leftJoin("devices", "devices.id", "sessions.device_id")
    .selectAll("users")
    .select(["sessions.csrf_token", "sessions.last_seen_at", "sessions.device_id"])
    .select("devices.token_hash as device_token_hash")
    .where("sessions.token_hash", "=", tokenHash)
    .executeTakeFirst();
}

/**
 * The sessions of many token hashes at once, each as `sessionWithUser` gives it plus its token hash (the
 * live streams' re-check: one statement for every open stream, lib/sessions.ts checkPassiveSessions).
 */
export async function sessionsWithUsers(db: Db, tokenHashes: readonly string[]) {
  if (tokenHashes.length === 0) return [];
  return await db.selectFrom("sessions").innerJoin("users", "users.id", "sessions.user_id")
    .leftJoin("devices", "devices.id", "sessions.device_id")
    .selectAll("users")
    .select(["sessions.token_hash", "sessions.csrf_token", "sessions.last_seen_at", "sessions.device_id"])
    .select("devices.token_hash as device_token_hash")
    .where("sessions.token_hash", "in", tokenHashes)
    .execute();
}

export async function touchSession(db: Db, tokenHash: string, at: Date): Promise<void> {
  await db.updateTable("sessions").set({ last_seen_at: at }).where("token_hash", "=", tokenHash).execute();
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom("sessions").where("token_hash", "=", tokenHash).execute();
}

/** Ends every session of a user (deactivated, or their PIN was reset). */
export async function deleteSessionsOfUser(db: Db, userId: number): Promise<void> {
  await db.deleteFrom("sessions").where("user_id", "=", userId).execute();
}

/** Deletes the sessions last seen at or before `cutoff`; returns how many. */
export async function deleteSessionsSeenBefore(db: Db, cutoff: Date): Promise<number> {
  const result = await db.deleteFrom("sessions").where("last_seen_at", "<=", cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Ends every session of a user but the one whose token hash is `keep` (null: all of them): a new password
 * ends the sessions it may have been guessed or shared into, not the admin's own who set it.
 */
export async function deleteOtherSessionsOfUser(db: Db, userId: number, keep: string | null): Promise<void> {
  let query = db.deleteFrom("sessions").where("user_id", "=", userId);
  if (keep) query = query.where("token_hash", "!=", keep);
  await query.execute();
}
