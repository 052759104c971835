/**
 * The dashboard's sign-in (docs/sign-in.md "Dashboard passwords", "Remembered browsers"): a dispatcher or
 * an admin, by e-mail and password. Sessions are those of lib/sessions.ts; the limit on guessing is
 * lib/pin_attempts.ts's reservation rule, applied to passwords.
 *
 * One answer for every failure. Whatever is wrong (unknown e-mail, deactivated user, a driver, a staff user
 * with no password yet, a wrong password, a full window), the sign-in goes the same steps (look-up, one
 * reservation, one PBKDF2 verification: against no hash when the e-mail is no staff user with a password,
 * which costs the same, io/pin.ts) and fails with the same kind and text, WRONG_EMAIL_OR_PASSWORD. A
 * driver's PIN is never checked here: drivers have no password, so their e-mail is checked as nobody's.
 *
 * Counting. Failures count per (user, client): a browser where this user signed in before holds a
 * remembered-browser cookie bound to them and has a count of its own, so failures from elsewhere never lock
 * it; every other client shares one count per user ("dashboard"). An e-mail that is no eligible user is
 * counted under a subject of its own (pin_attempts.ts pinSubject), on the shared count.
 *
 * Second factor. A user with a confirmed TOTP secret (admins who set one up: lib/admin/two_factor.ts) must
 * also give the code of the moment; a right password with a wrong or missing code is one more failure,
 * answered and counted like any other, so the answer never says the password was right.
 */
import type { Db } from "@/db/client.ts";
import type { Role, User } from "@/db/schema.ts";
import {
  deleteRememberedBrowser,
  insertRememberedBrowser,
  rememberedBrowserByHash,
  touchRememberedBrowser,
} from "@/db/queries/remembered_browsers.ts";
import { insertSession } from "@/db/queries/sessions.ts";
import { activeUserByEmail, useTotpStep } from "@/db/queries/users.ts";
import { matchTotp } from "@/io/totp.ts";
import type { Clock } from "@/io/clock.ts";
import { verifyPin } from "@/io/pin.ts";
import { hashToken, randomToken } from "@/io/tokens.ts";
import { DomainError } from "@/lib/errors.ts";
import { normalisePassword } from "@/lib/passwords/rules.ts";
import { limitedPinCheck, type PinClient, pinSubject } from "@/lib/pin_attempts.ts";

/** The dashboard's answer to every failed sign-in. */
export const WRONG_EMAIL_OR_PASSWORD = "Wrong e-mail or password.";

/** Who signs in to the dashboard (D24). */
export const STAFF_ROLES: readonly Role[] = ["dispatcher", "admin"];

/** How long a browser stays remembered after its user last signed in on it: the cookie's 400 days. */
export const REMEMBERED_BROWSER_DAYS = 400;
export const REMEMBERED_MS = REMEMBERED_BROWSER_DAYS * 24 * 3600_000;

/**
 * What signing in needs. `checkPin` verifies the password against its stored hash (io/pin.ts verifyPin
 * unless given): the parallel-guess tests count the checks through it.
 */
export interface StaffSignInDeps {
  db: Db;
  clock: Clock;
  checkPin?: (secret: string, stored: string | null) => Promise<boolean>;
}

export interface StaffSignedIn {
  /** The new session's token (the session cookie's value). */
  token: string;
  user: User;
  /** The remembered-browser cookie's value to give the browser (new, or the one it sent, renewed). */
  browserToken: string;
}

/** Whether a user may sign in to the dashboard at all: an active staff user with a password. */
const eligible = (user: User | undefined): user is User & { password_hash: string } =>
  !!user && user.active && STAFF_ROLES.includes(user.role) && !!user.password_hash;

/**
 * Checks an e-mail and password within the check limit; on success opens a session and remembers the
 * browser for this user. `browserToken`: the remembered-browser cookie the browser sent, if any.
 */
export async function signInStaff(
  deps: StaffSignInDeps,
  input: { email: string; password: string; code?: string; browserToken?: string },
): Promise<StaffSignedIn> {
  const { db, clock } = deps;
  const email = input.email.trim().toLowerCase();
  const found = await activeUserByEmail.executeTakeFirst(db, email);
  const user = eligible(found) ? found : null;
  const browser = input.browserToken
    ? await rememberedBrowserByHash(db, hashToken(input.browserToken))
    : undefined;
  const remembered = browser && user && browser.userId === user.id &&
      clock.now().getTime() - browser.lastUsedAt.getTime() < REMEMBERED_MS
    ? browser
    : undefined;
  const client: PinClient = remembered ? { kind: "browser", id: remembered.id } : { kind: "dashboard" };
  const subject = pinSubject(user ? { userId: user.id } : { typed: `email:${email}` });
  const check = deps.checkPin ?? verifyPin;
  const password = normalisePassword(input.password);
  const result = await limitedPinCheck(deps, subject, client, async () => {
    if (!await check(password, user?.password_hash ?? null)) return false;
    if (!user?.totp_secret) return true;
    const step = await matchTotp(user.totp_secret, input.code ?? "", clock.now(), user.totp_last_step);
    return step !== null && await useTotpStep(db, user.id, step);
  });
  if (result.kind !== "right" || !user) throw new DomainError("credentials", WRONG_EMAIL_OR_PASSWORD);

  const now = clock.now();
  const token = randomToken();
  await insertSession(db, {
    tokenHash: hashToken(token),
    userId: user.id,
    csrfToken: randomToken(),
    at: now,
  });
  if (remembered && input.browserToken) {
    await touchRememberedBrowser(db, remembered.id, now);
    return { token, user, browserToken: input.browserToken };
  }
  // A browser remembered for someone else (or too long ago) now belongs to this user: one user per browser.
  if (browser) await deleteRememberedBrowser(db, browser.id);
  const browserToken = randomToken();
  await insertRememberedBrowser(db, { tokenHash: hashToken(browserToken), userId: user.id, at: now });
  return { token, user, browserToken };
}
