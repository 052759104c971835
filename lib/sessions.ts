/**
 * Sessions for the shared depot tablets and the HQ dashboard (D23): sign in on an enrolled tablet with a name
 * and PIN (the dashboard's password sign-in is lib/staff_sign_in.ts, with the same sessions), a random
 * server-side token (only its SHA-256 stored), idle expiry after 10 minutes; PIN checks are limited by
 * lib/pin_attempts.ts (five wrong PINs lock for 5 minutes, under any concurrency). HTTP concerns (cookie,
 * CSRF check, redirects) live in routes/web/session.ts.
 */
import type { Db } from "@/db/client.ts";
import type { Role, User } from "@/db/schema.ts";
import {
  deleteSession,
  deleteSessionsSeenBefore,
  insertSession,
  sessionsWithUsers,
  sessionWithUser,
  touchSession,
} from "@/db/queries/sessions.ts";
import { deviceByTokenHash } from "@/db/queries/devices.ts";
import { deletePinWindowsClosedBefore } from "@/db/queries/pin_attempts.ts";
import { deleteRememberedBrowsersUnusedSince } from "@/db/queries/remembered_browsers.ts";
import { activeUserByEmail, activeUserWithRole } from "@/db/queries/users.ts";
import type { Clock } from "@/io/clock.ts";
import { repeatEvery, type Repeating } from "@/io/repeat.ts";
import { DomainError } from "@/lib/errors.ts";
import { verifyPin } from "@/io/pin.ts";
import { secureEquals } from "@/io/secure_compare.ts";
import { hashToken, randomToken } from "@/io/tokens.ts";
import { limitedPinCheck, LOCKOUT_MS, type PinClient, pinSubject } from "@/lib/pin_attempts.ts";
import { REMEMBERED_MS } from "@/lib/staff_sign_in.ts";

/** An enrolled tablet: the only client where a PIN is ever checked (docs/sign-in.md "Dashboard passwords"). */
export type TabletClient = Extract<PinClient, { kind: "tablet" }>;

export const IDLE_TIMEOUT_MS = 10 * 60_000;
/** last_seen_at is written at most this often: a page full of requests should not be a write storm. */
const TOUCH_EVERY_MS = 15_000;
/** How often the server sweeps sessions idle past the timeout and closed PIN windows. */
export const SWEEP_INTERVAL_MS = 10 * 60_000;

export interface SessionUser {
  user: User;
  csrfToken: string;
  /** When the session ends if nothing else happens (for the tablet's idle warning). */
  expiresAt: Date;
}

/**
 * What signing in needs. `checkPin` is the PIN verification (io/pin.ts verifyPin unless given): the
 * parallel-guess tests count the checks through it.
 */
export interface SignInDeps {
  db: Db;
  clock: Clock;
  checkPin?: (pin: string, stored: string | null) => Promise<boolean>;
}

/** Who is signing in: a typed e-mail, or a name picked on the tablet (an active user of `roles`). */
export type SignInName = { email: string } | { pickedId: number; roles: readonly Role[] };

/**
 * Checks a name and PIN on an enrolled tablet within the PIN-check limit; on success opens a session and
 * returns its token.
 * Every name goes the same way, whether it is an eligible user or not: look-up, check reservation, one
 * PBKDF2 verification (against no hash for an unknown name, which costs the same: io/pin.ts), outcome. So
 * an unknown, deactivated or ineligible name gets the same answers, with the same countdown, as a real
 * user with a wrong PIN: a wrong PIN says how many tries are left on this tablet (its own count), a full
 * window says "Too many wrong PINs".
 */
export async function signIn(
  deps: SignInDeps,
  input: { name: SignInName; pin: string; client: TabletClient },
): Promise<{ token: string; user: User }> {
  const { db, clock } = deps;
  const { name, client } = input;
  const user = "email" in name
    ? await activeUserByEmail.executeTakeFirst(db, name.email.trim().toLowerCase())
    : await activeUserWithRole(db, name.pickedId, name.roles);
  const typed = "email" in name ? `email:${name.email.trim().toLowerCase()}` : `id:${name.pickedId}`;
  const subject = pinSubject(user ? { userId: user.id } : { typed });
  const check = deps.checkPin ?? verifyPin;
  const result = await limitedPinCheck(deps, subject, client, () => check(input.pin, user?.pin_hash ?? null));
  if (result.kind === "locked") throw lockedError(result.until, clock.now());
  if (result.kind === "wrong" || !user) {
    const left = result.kind === "wrong" ? result.triesLeft : 0;
    throw new DomainError("credentials", wrongPinOnTablet(left));
  }
  const token = randomToken();
  await insertSession(db, {
    tokenHash: hashToken(token),
    userId: user.id,
    csrfToken: randomToken(),
    at: clock.now(),
    // A tablet session is bound to the enrolled tablet it was opened on (resolveSession).
    deviceId: client.kind === "tablet" ? client.deviceId : null,
  });
  return { token, user };
}

function wrongPinOnTablet(triesLeft: number): string {
  const minutes = LOCKOUT_MS / 60_000;
  return `Wrong PIN. ${triesLeft} ${triesLeft === 1 ? "try" : "tries"} left before a ${minutes}-minute lock.`;
}

function lockedError(until: Date, now: Date): DomainError {
  const minutes = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 60_000));
  return new DomainError(
    "locked",
    `Too many wrong PINs. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
  );
}

/**
 * Why a presented token gives no session: `idle` when the session timed out (the tablet says so), `revoked`
 * when the browser holds the device cookie of no enrolled tablet (HQ revoked it, which deleted the
 * sessions bound to it: the tablet says "This tablet was removed by HQ"), `ended` for anything else (signed
 * out elsewhere, the user was deactivated or got a new PIN, swept, unknown, a tablet session presented
 * without its device's cookie), which must not be passed off as inactivity.
 */
export type SessionEnd = "idle" | "ended" | "revoked";

export type ResolvedSession = { session: SessionUser; ended?: never } | { session: null; ended: SessionEnd };

/**
 * The signed-in user of a token; or why there is none (unknown, idle too long, the user was deactivated,
 * the tablet revoked).
 * `passive`: a request the browser makes by itself (the live dashboard's stream and refreshes), which must
 * not keep an unattended session alive, so it does not count as activity.
 * `deviceToken`: the token of the request's device cookie (routes/web/device.ts). A session opened on a
 * tablet (docs/sign-in.md "Sessions on a tablet") is valid only together with the cookie of the device it
 * was opened on: without it, or with another device's, it is refused (and kept: whoever copied the session
 * cookie cannot end the tablet's session by presenting it).
 */
export async function resolveSession(
  db: Db,
  clock: Clock,
  token: string,
  opts: { passive?: boolean; deviceToken?: string } = {},
): Promise<ResolvedSession> {
  if (!token) return { session: null, ended: "ended" };
  const now = clock.now();
  const hash = hashToken(token);
  const row = await sessionWithUser(db, hash);
  if (!row) return { session: null, ended: await whyGone(db, opts.deviceToken) };
  const { csrf_token, last_seen_at, device_id: _, device_token_hash: __, ...user } = row;
  const verdict = judgeSession(row, now, opts.deviceToken);
  if (verdict === "elsewhere") return { session: null, ended: "ended" };
  if (verdict !== "live") {
    await deleteSession(db, hash);
    return { session: null, ended: verdict };
  }
  let seen = last_seen_at;
  if (!opts.passive && now.getTime() - last_seen_at.getTime() >= TOUCH_EVERY_MS) {
    await touchSession(db, hash, now);
    seen = now;
  }
  return {
    session: { user, csrfToken: csrf_token, expiresAt: new Date(seen.getTime() + IDLE_TIMEOUT_MS) },
  };
}

/**
 * What a session row gives now: `live`; `elsewhere` for a tablet session presented without its device's
 * cookie (refused, and kept); `idle` (timed out) or `ended` (the user deactivated), both deleted.
 */
function judgeSession(
  row: { active: boolean; last_seen_at: Date; device_id: number | null; device_token_hash: string | null },
  now: Date,
  deviceToken: string | undefined,
): "live" | "elsewhere" | "idle" | "ended" {
  if (row.device_id !== null && !onItsDevice(row.device_token_hash, deviceToken)) return "elsewhere";
  if (!row.active) return "ended";
  return now.getTime() - row.last_seen_at.getTime() >= IDLE_TIMEOUT_MS ? "idle" : "live";
}

/** A session as a request presents it: its token, and the token of the request's device cookie if any. */
export interface PresentedSession {
  token: string;
  deviceToken?: string;
}

/**
 * The passive re-check of many sessions at once (the open live streams: lib/live/streams.ts), in one
 * statement whatever their number: each as `resolveSession(…, { passive: true })` judges it (the same
 * rules, sessions timed out or of a deactivated user deleted the same way), null when it is over.
 */
export async function checkPassiveSessions(
  db: Db,
  clock: Clock,
  presented: readonly PresentedSession[],
): Promise<(SessionUser | null)[]> {
  const now = clock.now();
  const hashes = presented.map((p) => hashToken(p.token));
  const rows = new Map((await sessionsWithUsers(db, [...new Set(hashes)])).map((r) => [r.token_hash, r]));
  const over = new Set<string>();
  const sessions = presented.map((p, i): SessionUser | null => {
    const row = rows.get(hashes[i]);
    if (!row) return null;
    const verdict = judgeSession(row, now, p.deviceToken);
    if (verdict === "idle" || verdict === "ended") over.add(hashes[i]);
    if (verdict !== "live") return null;
    const { token_hash: _, csrf_token, last_seen_at, device_id: __, device_token_hash: ___, ...user } = row;
    return { user, csrfToken: csrf_token, expiresAt: new Date(last_seen_at.getTime() + IDLE_TIMEOUT_MS) };
  });
  for (const hash of over) await deleteSession(db, hash);
  return sessions;
}

function onItsDevice(boundHash: string | null, deviceToken: string | undefined): boolean {
  return !!boundHash && !!deviceToken && secureEquals(hashToken(deviceToken), boundHash);
}

/**
 * A token of no session: `revoked` when the browser's device cookie names no enrolled tablet (revoking
 * deleted the device and, by its foreign key, the sessions bound to it), else `ended`.
 */
async function whyGone(db: Db, deviceToken: string | undefined): Promise<SessionEnd> {
  if (deviceToken && !(await deviceByTokenHash(db, hashToken(deviceToken)))) return "revoked";
  return "ended";
}

export async function signOut(db: Db, token: string): Promise<void> {
  await deleteSession(db, hashToken(token));
}

/** Sessions idle past the timeout are deleted lazily on use; this sweeps the ones never used again. */
export async function deleteIdleSessions(db: Db, clock: Clock): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - IDLE_TIMEOUT_MS);
  return await deleteSessionsSeenBefore(db, cutoff);
}

/**
 * The server's sweep (tasks/start.ts): every SWEEP_INTERVAL_MS, sessions idle past the timeout, PIN
 * windows that have closed (a closed window counts as none, so deleting it changes no answer) and remembered
 * browsers whose cookie has expired (docs/sign-in.md "Remembered browsers": such a browser is a stranger).
 */
export function startSessionSweep(
  deps: { db: Db; clock: Clock },
  opts: { firstDelayMs?: number; intervalMs?: number; log?: (line: string) => void } = {},
): Repeating {
  const intervalMs = opts.intervalMs ?? SWEEP_INTERVAL_MS;
  const log = opts.log ?? ((line) => console.log(line));
  return repeatEvery(async () => {
    const sessions = await deleteIdleSessions(deps.db, deps.clock);
    const now = deps.clock.now();
    const windows = await deletePinWindowsClosedBefore(deps.db, now);
    const browsers = await deleteRememberedBrowsersUnusedSince(
      deps.db,
      new Date(now.getTime() - REMEMBERED_MS),
    );
    if (sessions || windows || browsers) {
      log(
        `sweep: ${sessions} idle sessions, ${windows} closed PIN windows, ${browsers} forgotten browsers removed`,
      );
    }
  }, {
    firstDelayMs: opts.firstDelayMs ?? intervalMs,
    intervalMs,
    onError: (error) => console.error(`session sweep failed: ${(error as Error)?.stack ?? error}`),
  });
}
