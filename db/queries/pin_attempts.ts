/**
 * Queries of the pin_attempts table: the PIN-check windows of sign-in (docs/sign-in.md "PIN checks"). The
 * rule they implement (and why it holds under any concurrency) is written in lib/pin_attempts.ts; each
 * function here is one statement, so each step is atomic on its own.
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";

/** A real user's subject is `user:<id>` (the admin page joins on it). */
export const USER_SUBJECT_PREFIX = "user:";
export const userSubject = (userId: number) => `${USER_SUBJECT_PREFIX}${userId}`;

export interface PinKey {
  subject: string;
  client: string;
}

/** A reserved check: its window (identified by its start) and how many checks the window holds now. */
export interface Reservation {
  checks: number;
  windowStartedAt: Date;
}

/**
 * Reserves one PIN check in one statement: opens a new window (1 check, ending at `windowEnds`) when there
 * is none or it has closed, else adds a check while the window holds fewer than `max`. Undefined when the
 * window is full: no check may happen. `ON CONFLICT … DO UPDATE … WHERE` locks the row and evaluates the
 * condition on its latest version, so concurrent reservations are serialised by the row lock and the
 * count can never pass `max`, on the server as on PGlite (one connection).
 */
export async function reservePinCheck(
  db: Db,
  key: PinKey,
  at: { now: Date; windowEnds: Date; max: number },
): Promise<Reservation | undefined> {
  const closed = sql<boolean>`pin_attempts.window_ends <= ${at.now}`;
  const row = await db.insertInto("pin_attempts")
    .values({ ...key, checks: 1, window_started_at: at.now, window_ends: at.windowEnds })
    .onConflict((oc) =>
      oc.columns(["subject", "client"]).doUpdateSet({
        checks: sql`case when ${closed} then 1 else pin_attempts.checks + 1 end`,
        window_started_at: sql`case when ${closed} then ${at.now} else pin_attempts.window_started_at end`,
        window_ends: sql`case when ${closed} then ${at.windowEnds} else pin_attempts.window_ends end`,
      }).where(sql<boolean>`${closed} or pin_attempts.checks < ${at.max}`)
    )
    .returning(["checks", "window_started_at"])
    .executeTakeFirst();
  return row && { checks: row.checks, windowStartedAt: row.window_started_at };
}

/** When the key's window closes (for the "try again in" message); undefined when there is none. */
export async function pinWindowEnds(db: Db, key: PinKey): Promise<Date | undefined> {
  const row = await db.selectFrom("pin_attempts").select("window_ends")
    .where("subject", "=", key.subject).where("client", "=", key.client)
    .executeTakeFirst();
  return row?.window_ends;
}

/**
 * A wrong PIN of the reserved window: when the window is full, it stays closed until at least `lockEnds`
 * (the lock starts at the wrong PIN that fills it). Returns the window's checks and end; undefined when the
 * window is gone (an admin lifted the lock, or it closed and was swept).
 */
export async function recordWrongPin(
  db: Db,
  key: PinKey,
  r: { windowStartedAt: Date; lockEnds: Date; max: number },
): Promise<{ checks: number; windowEnds: Date } | undefined> {
  const row = await db.updateTable("pin_attempts")
    .set({
      window_ends:
        sql`case when checks >= ${r.max} then greatest(window_ends, ${r.lockEnds}) else window_ends end`,
    })
    .where("subject", "=", key.subject).where("client", "=", key.client)
    .where("window_started_at", "=", r.windowStartedAt)
    .returning(["checks", "window_ends"])
    .executeTakeFirst();
  return row && { checks: row.checks, windowEnds: row.window_ends };
}

/** A right PIN gives back its own reserved check, and only that one (lib/pin_attempts.ts says why). */
export async function returnPinCheck(db: Db, key: PinKey, windowStartedAt: Date): Promise<void> {
  await db.updateTable("pin_attempts")
    .set({ checks: sql`checks - 1` })
    .where("subject", "=", key.subject).where("client", "=", key.client)
    .where("window_started_at", "=", windowStartedAt).where("checks", ">", 0)
    .execute();
}

/** Lifts every lock and count of a subject (an admin set a new PIN or reactivated the user). */
export async function clearPinWindows(db: Db, subject: string): Promise<void> {
  await db.deleteFrom("pin_attempts").where("subject", "=", subject).execute();
}

/** Forgets the windows of a client (a revoked tablet). */
export async function clearClientPinWindows(db: Db, client: string): Promise<void> {
  await db.deleteFrom("pin_attempts").where("client", "=", client).execute();
}

/** Deletes windows closed at or before `cutoff`; returns how many. */
export async function deletePinWindowsClosedBefore(db: Db, cutoff: Date): Promise<number> {
  const result = await db.deleteFrom("pin_attempts").where("window_ends", "<=", cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Each subject with a full window (`max` checks): the latest end of those windows (past ones too). */
export function lockedSubjectsQuery(db: Db, max: number) {
  return db.selectFrom("pin_attempts")
    .select(["subject", (eb) => eb.fn.max("window_ends").as("locked_until")])
    .where("checks", ">=", max)
    .groupBy("subject");
}
