/**
 * An admin's second factor (docs/sign-in.md "Two-factor sign-in for admins"): a TOTP secret (RFC 6238,
 * io/totp.ts) that the admin sets up for themselves: the secret is shown once, and is kept only when the
 * first code from the app matches it. Any admin may remove one (a lost phone); the admin then signs in with
 * the password alone until they set up a new one. Audited without the secret.
 */
import type { Db } from "@/db/client.ts";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import {
  clearTotp,
  confirmPendingTotp,
  pendingTotpSecret,
  setPendingTotp,
  userForUpdate,
} from "@/db/queries/users.ts";
import type { Clock } from "@/io/clock.ts";
import { matchTotp, newTotpSecret } from "@/io/totp.ts";
import { DomainError } from "@/lib/errors.ts";

/** Starts the set-up for the admin `userId`; returns the new secret, shown to them to type into their app. */
export async function startTwoFactor(db: Db, userId: number): Promise<string> {
  return await db.transaction().execute(async (tx) => {
    const user = await userForUpdate(tx, userId);
    if (!user) throw new DomainError("not_found", "User not found.");
    if (user.role !== "admin") throw new DomainError("refused", "Two-factor sign-in is for admins.");
    const secret = newTotpSecret();
    await setPendingTotp(tx, userId, secret);
    return secret;
  });
}

/** The secret waiting for its first code, if any. */
export const pendingTwoFactor = (db: Db, userId: number): Promise<string | null> =>
  pendingTotpSecret(db, userId);

/** Keeps the pending secret when `code` is its code of the moment. */
export async function confirmTwoFactor(
  db: Db,
  clock: Clock,
  input: { userId: number; code: string },
): Promise<void> {
  const secret = await pendingTwoFactor(db, input.userId);
  if (!secret) throw new DomainError("conflict", "Start the set-up again: no code is awaited.");
  const step = await matchTotp(secret, input.code, clock.now(), null);
  if (step === null) {
    throw new DomainError("invalid", "That code does not match. Type the 6-digit code the app shows now.");
  }
  await db.transaction().execute(async (tx) => {
    const user = await confirmPendingTotp(tx, input.userId, secret, step);
    if (!user) throw new DomainError("conflict", "Start the set-up again: it was restarted elsewhere.");
    await insertAuditEntry(tx, {
      actorId: input.userId,
      action: "user.totp_set",
      subject: `user:${input.userId}`,
      after: { email: user.email, two_factor: "on" },
    });
  });
}

/** Removes a user's second factor (theirs, or another admin's whose phone is lost). */
export async function removeTwoFactor(db: Db, input: { userId: number; actorId: number }): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const user = await clearTotp(tx, input.userId);
    if (!user) throw new DomainError("not_found", "User not found.");
    await insertAuditEntry(tx, {
      actorId: input.actorId,
      action: "user.totp_removed",
      subject: `user:${input.userId}`,
      after: { email: user.email, two_factor: "off" },
    });
  });
}
