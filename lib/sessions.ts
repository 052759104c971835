/**
 * Sessions for the shared depot tablets and the HQ dashboard (D23): sign in with e-mail and PIN, a random
 * server-side token (only its SHA-256 stored), idle expiry after 10 minutes, five wrong PINs lock the user
 * for 5 minutes. HTTP concerns (cookie, CSRF check, redirects) live in routes/web/session.ts.
 */
import type { Db } from "@/db/client.ts";
import type { User } from "@/db/schema.ts";
import {
  deleteSession,
  deleteSessionsSeenBefore,
  insertSession,
  sessionWithUser,
  touchSession,
} from "@/db/queries/sessions.ts";
import { activeUserByEmail, clearWrongPins, countWrongPin, lockUserUntil } from "@/db/queries/users.ts";
import type { Clock } from "@/io/clock.ts";
import { DomainError } from "@/lib/errors.ts";
import { verifyPin } from "@/io/pin.ts";
import { hashToken, randomToken } from "@/io/tokens.ts";

export const IDLE_TIMEOUT_MS = 10 * 60_000;
export const MAX_WRONG_PINS = 5;
export const LOCKOUT_MS = 5 * 60_000;
/** last_seen_at is written at most this often: a page full of requests should not be a write storm. */
const TOUCH_EVERY_MS = 15_000;

const WRONG_CREDENTIALS = "Wrong e-mail or PIN.";

export interface SessionUser {
  user: User;
  csrfToken: string;
  /** When the session ends if nothing else happens (for the tablet's idle warning). */
  expiresAt: Date;
}

/**
 * Checks e-mail and PIN; on success opens a session and returns its token. Failures say as little as
 * possible (the same text for an unknown user and a wrong PIN) except for a lockout, which a driver
 * needs to know about.
 */
export async function signIn(
  db: Db,
  clock: Clock,
  input: { email: string; pin: string },
): Promise<{ token: string; user: User }> {
  const now = clock.now();
  const user = await activeUserByEmail.executeTakeFirst(db, input.email.trim().toLowerCase());
  if (user?.locked_until && user.locked_until > now) throw lockedError(user.locked_until, now);
  const ok = await verifyPin(input.pin, user?.pin_hash ?? null);
  if (!user || !ok) {
    if (user) await recordWrongPin(db, user.id, now);
    throw new DomainError("credentials", WRONG_CREDENTIALS);
  }
  const token = randomToken();
  await db.transaction().execute(async (tx) => {
    await clearWrongPins(tx, user.id);
    await insertSession(tx, {
      tokenHash: hashToken(token),
      userId: user.id,
      csrfToken: randomToken(),
      at: now,
    });
  });
  return { token, user };
}

function lockedError(until: Date, now: Date): DomainError {
  const minutes = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 60_000));
  return new DomainError(
    "locked",
    `Too many wrong PINs. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
  );
}

/** Counts a wrong PIN atomically (two tablets guessing at once both count); the fifth locks the user. */
async function recordWrongPin(db: Db, userId: number, now: Date): Promise<void> {
  if (await countWrongPin(db, userId) >= MAX_WRONG_PINS) {
    const until = new Date(now.getTime() + LOCKOUT_MS);
    await lockUserUntil(db, userId, until);
    throw lockedError(until, now);
  }
}

/** The signed-in user of a token, or null when unknown, idle too long, or the user was deactivated. */
export async function resolveSession(db: Db, clock: Clock, token: string): Promise<SessionUser | null> {
  if (!token) return null;
  const now = clock.now();
  const hash = hashToken(token);
  const row = await sessionWithUser(db, hash);
  if (!row) return null;
  const { csrf_token, last_seen_at, ...user } = row;
  if (!user.active || now.getTime() - last_seen_at.getTime() >= IDLE_TIMEOUT_MS) {
    await deleteSession(db, hash);
    return null;
  }
  let seen = last_seen_at;
  if (now.getTime() - last_seen_at.getTime() >= TOUCH_EVERY_MS) {
    await touchSession(db, hash, now);
    seen = now;
  }
  return { user, csrfToken: csrf_token, expiresAt: new Date(seen.getTime() + IDLE_TIMEOUT_MS) };
}

export async function signOut(db: Db, token: string): Promise<void> {
  await deleteSession(db, hashToken(token));
}

/** Sessions idle past the timeout are deleted lazily on use; this sweeps the ones never used again. */
export async function deleteIdleSessions(db: Db, clock: Clock): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - IDLE_TIMEOUT_MS);
  return await deleteSessionsSeenBefore(db, cutoff);
}
