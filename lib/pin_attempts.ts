/**
 * The PIN-check limit of sign-in (D23, docs/sign-in.md "PIN checks"): at most MAX_PIN_CHECKS wrong PINs per
 * subject and client in a window, whatever the concurrency, on both databases.
 *
 * The rule. A window holds a count of reserved checks; it opens at its first check and closes LOCKOUT_MS
 * later, or LOCKOUT_MS after the wrong PIN that filled it (the lock), whichever is later.
 * 1. Before a PIN is verified, one statement reserves a check (db/queries/pin_attempts.ts
 *    reservePinCheck): it adds one to the count only while the count is below MAX_PIN_CHECKS, else the
 *    sign-in is refused as locked without verifying anything, so a right PIN during a lock is refused too.
 * 2. A wrong PIN keeps its check; when the count is full it starts the 5-minute lock.
 * 3. A right PIN gives back its own check, and nothing else. It does not reset the count: the wrong PINs
 *    of the window, and checks still in flight, stay counted until the window closes.
 *
 * Why the bound holds under any interleaving. Reservations of one key are serialised by the row lock of
 * the one statement that makes them (PGlite runs one statement at a time anyway), and each sees the count
 * left by all earlier ones. The count only goes down when a right PIN returns its own check, and is only
 * reset when the window has closed. So at every moment the checks that were not right (wrong, or still
 * being verified) number at most MAX_PIN_CHECKS, and a window never sees more than MAX_PIN_CHECKS wrong
 * PINs. A success cannot hand extra tries to guesses already in flight: they hold their own checks, and
 * the success frees only the one it used. The price: a driver who mistyped four times and then signed in
 * has one try left until the window closes (at most 5 minutes after the first mistake).
 *
 * Keys. `subject` is the user (`user:<id>`) or, for a name that is no eligible user, a hash of what was
 * typed or picked, so unknown names are counted and locked exactly like real ones and the answers cannot
 * tell them apart. `client` is `device:<id>` on an enrolled tablet (a stranger's device cannot use up the
 * depot tablets' tries: lib/devices.ts); on the dashboard (where the secret checked is a password,
 * lib/staff_sign_in.ts, under this same rule) it is `browser:<id>` for a browser where that user signed in
 * before (a remembered browser: its own count, so failures from elsewhere never lock it), and `dashboard`
 * for every other client: they share one count per subject, so none is ever treated as a fresh one.
 */
import type { Db } from "@/db/client.ts";
import {
  type PinKey,
  pinWindowEnds,
  recordWrongPin,
  reservePinCheck,
  returnPinCheck,
  userSubject,
} from "@/db/queries/pin_attempts.ts";
import type { Clock } from "@/io/clock.ts";
import { hashToken } from "@/io/tokens.ts";

export const MAX_PIN_CHECKS = 5;
export const LOCKOUT_MS = 5 * 60_000;

/**
 * Who signs in where: the client of a PIN (or dashboard password) check. `browser`: a remembered browser of
 * the user signing in (lib/staff_sign_in.ts); `dashboard`: any other dashboard client.
 */
export type PinClient =
  | { kind: "dashboard" }
  | { kind: "browser"; id: number }
  | { kind: "tablet"; deviceId: number };

export type PinResult =
  | { kind: "right" }
  | { kind: "wrong"; triesLeft: number }
  | { kind: "locked"; until: Date };

/** The client key of an enrolled tablet. */
export const tabletClient = (deviceId: number) => `device:${deviceId}`;
/** The client key of a remembered dashboard browser. */
export const browserClient = (browserId: number) => `browser:${browserId}`;
const clientKey = (client: PinClient) =>
  client.kind === "dashboard"
    ? "dashboard"
    : client.kind === "browser"
    ? browserClient(client.id)
    : tabletClient(client.deviceId);

/** The subject of a real user, or of a name that is none (`typed` says what was typed or picked). */
export function pinSubject(who: { userId: number } | { typed: string }): string {
  return "userId" in who ? userSubject(who.userId) : `unknown:${hashToken(who.typed)}`;
}

/**
 * Runs `verify` (the PIN check) only when a check could be reserved for the subject on this client, and
 * counts its outcome by the rule above.
 */
export async function limitedPinCheck(
  deps: { db: Db; clock: Clock },
  subject: string,
  client: PinClient,
  verify: () => Promise<boolean>,
): Promise<PinResult> {
  const { db, clock } = deps;
  const key: PinKey = { subject, client: clientKey(client) };
  const now = clock.now();
  const reserved = await reservePinCheck(db, key, {
    now,
    windowEnds: new Date(now.getTime() + LOCKOUT_MS),
    max: MAX_PIN_CHECKS,
  });
  if (!reserved) {
    // The window is full; its end is read for the message only (a closed one reads as "1 minute").
    return { kind: "locked", until: await pinWindowEnds(db, key) ?? now };
  }
  if (await verify()) {
    await returnPinCheck(db, key, reserved.windowStartedAt);
    return { kind: "right" };
  }
  const after = clock.now();
  const window = await recordWrongPin(db, key, {
    windowStartedAt: reserved.windowStartedAt,
    lockEnds: new Date(after.getTime() + LOCKOUT_MS),
    max: MAX_PIN_CHECKS,
  });
  const checks = window?.checks ?? reserved.checks;
  return checks >= MAX_PIN_CHECKS
    ? { kind: "locked", until: window?.windowEnds ?? new Date(after.getTime() + LOCKOUT_MS) }
    : { kind: "wrong", triesLeft: MAX_PIN_CHECKS - checks };
}
