/**
 * Admin use cases for users (D24): add a user, deactivate or reactivate one, reset a PIN. Messages are
 * written for the admin pages; PINs are hashed before any transaction opens (hashing is slow on purpose).
 */
import type { Db } from "@/db/client.ts";
import { type Role, ROLES, type User } from "@/db/schema.ts";
import { deleteSessionsOfUser } from "@/db/queries/sessions.ts";
import { insertUserUnlessEmailTaken, updateUserAndUnlock } from "@/db/queries/users.ts";
import { DomainError } from "@/lib/errors.ts";
import { hashPin, PIN_PATTERN } from "@/io/pin.ts";
import { emailField, isLineText } from "@/lib/validation.ts";

export interface NewUserInput {
  email: string;
  name: string;
  role: string;
  pin: string;
}

function checkPin(pin: string): string {
  if (!PIN_PATTERN.test(pin)) throw new DomainError("invalid", "The PIN must be 4 to 8 digits.");
  return pin;
}

export async function addUser(db: Db, input: NewUserInput): Promise<User> {
  const email = emailField.safeParse(input.email);
  if (!email.success) throw new DomainError("invalid", "Enter a valid e-mail address.");
  const name = input.name.trim();
  if (!name || name.length > 200) throw new DomainError("invalid", "Enter a name (at most 200 characters).");
  if (!isLineText(name)) throw new DomainError("invalid", "The name must not contain control characters.");
  if (!(ROLES as readonly string[]).includes(input.role)) {
    throw new DomainError("invalid", `Choose a role: ${ROLES.join(", ")}.`);
  }
  const pinHash = await hashPin(checkPin(input.pin));
  const user = await insertUserUnlessEmailTaken(db, {
    email: email.data,
    name,
    role: input.role as Role,
    pin_hash: pinHash,
  });
  if (!user) throw new DomainError("conflict", `A user with the e-mail ${email.data} already exists.`);
  return user;
}

/**
 * Deactivates or reactivates a user. A deactivated user cannot sign in or act through the handler, and
 * their open sessions end at once. Admins cannot deactivate themselves (the last admin would lock
 * everybody out of the admin pages).
 */
export async function setUserActive(
  db: Db,
  input: { userId: number; active: boolean; actorId: number },
): Promise<User> {
  if (!input.active && input.userId === input.actorId) {
    throw new DomainError("refused", "You cannot deactivate yourself.");
  }
  return await db.transaction().execute(async (tx) => {
    const user = await updateUserAndUnlock(tx, input.userId, { active: input.active });
    if (!user) throw new DomainError("not_found", "User not found.");
    if (!input.active) await deleteSessionsOfUser(tx, input.userId);
    return user;
  });
}

/**
 * Sets a new PIN and lifts any lockout. The user's other sessions end (a PIN is reset when it may be known
 * to someone else); an admin resetting their own PIN stays signed in.
 */
export async function resetPin(
  db: Db,
  input: { userId: number; pin: string; actorId: number },
): Promise<User> {
  const pinHash = await hashPin(checkPin(input.pin.trim()));
  return await db.transaction().execute(async (tx) => {
    const user = await updateUserAndUnlock(tx, input.userId, { pin_hash: pinHash });
    if (!user) throw new DomainError("not_found", "User not found.");
    if (input.userId !== input.actorId) await deleteSessionsOfUser(tx, input.userId);
    return user;
  });
}
