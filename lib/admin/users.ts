/**
 * Admin use cases for users (D24): add a user, change a role, deactivate or reactivate one, reset a PIN.
 * Messages are written for the admin pages; PINs are hashed before any transaction opens (hashing is slow
 * on purpose). Each change writes its audit entry (db/queries/audit.ts) in its own transaction.
 */
import type { Db } from "@/db/client.ts";
import { type Role, ROLES, type User } from "@/db/schema.ts";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import { deleteSessionsOfUser } from "@/db/queries/sessions.ts";
import {
  insertUserUnlessEmailTaken,
  lockActiveAdmins,
  updateUserAndUnlock,
  updateUserRole,
  userForUpdate,
} from "@/db/queries/users.ts";
import { DomainError } from "@/lib/errors.ts";
import { hashPin, PIN_PATTERN } from "@/io/pin.ts";
import { emailField, isLineText } from "@/lib/validation.ts";

export interface NewUserInput {
  email: string;
  name: string;
  role: string;
  pin: string;
  /** The admin adding the user (null: a task run from the command line). */
  actorId: number | null;
}

function checkPin(pin: string): string {
  if (!PIN_PATTERN.test(pin)) throw new DomainError("invalid", "The PIN must be 4 to 8 digits.");
  return pin;
}

function checkRole(role: string): Role {
  if (!(ROLES as readonly string[]).includes(role)) {
    throw new DomainError("invalid", `Choose a role: ${ROLES.join(", ")}.`);
  }
  return role as Role;
}

export async function addUser(db: Db, input: NewUserInput): Promise<User> {
  const email = emailField.safeParse(input.email);
  if (!email.success) throw new DomainError("invalid", "Enter a valid e-mail address.");
  const name = input.name.trim();
  if (!name || name.length > 200) throw new DomainError("invalid", "Enter a name (at most 200 characters).");
  if (!isLineText(name)) throw new DomainError("invalid", "The name must not contain control characters.");
  const role = checkRole(input.role);
  const pinHash = await hashPin(checkPin(input.pin));
  return await db.transaction().execute(async (tx) => {
    const user = await insertUserUnlessEmailTaken(tx, { email: email.data, name, role, pin_hash: pinHash });
    if (!user) throw new DomainError("conflict", `A user with the e-mail ${email.data} already exists.`);
    await insertAuditEntry(tx, {
      actorId: input.actorId,
      action: "user.create",
      subject: `user:${user.id}`,
      after: { email: user.email, name, role, active: user.active },
    });
    return user;
  });
}

type Change = { role: Role } | { active: boolean };

/**
 * Changes a user's role or active flag, refusing to leave no active admin. The active admins' rows are
 * locked first (lockActiveAdmins), so the rule is decided on a list no concurrent change can alter.
 */
async function changeUser(db: Db, userId: number, actorId: number, change: Change): Promise<User> {
  return await db.transaction().execute(async (tx) => {
    const admins = await lockActiveAdmins(tx);
    const before = await userForUpdate(tx, userId);
    if (!before) throw new DomainError("not_found", "User not found.");
    const after = { role: before.role, active: before.active, ...change };
    if (after.role === before.role && after.active === before.active) return before;
    const stillAdmin = after.role === "admin" && after.active;
    if (admins.includes(userId) && !stillAdmin && admins.length === 1) {
      throw new DomainError(
        "refused",
        `${before.name} is the last active admin: make another user an admin first. Nothing was changed.`,
      );
    }
    const field = "role" in change ? "role" : "active";
    if ("role" in change) await updateUserRole(tx, userId, change.role);
    else await updateUserAndUnlock(tx, userId, { active: change.active });
    // A deactivated user's sessions end at once; a new role applies from the next request (sessions read it).
    if (!after.active) await deleteSessionsOfUser(tx, userId);
    await insertAuditEntry(tx, {
      actorId,
      action: field === "role" ? "user.role" : "user.active",
      subject: `user:${userId}`,
      before: { email: before.email, [field]: before[field] },
      after: { email: before.email, [field]: after[field] },
    });
    return { ...before, ...after };
  });
}

/** Changes a user's role; the last active admin cannot be demoted. */
export async function setUserRole(
  db: Db,
  input: { userId: number; role: string; actorId: number },
): Promise<User> {
  return await changeUser(db, input.userId, input.actorId, { role: checkRole(input.role) });
}

/**
 * Deactivates or reactivates a user. A deactivated user cannot sign in or act through the handler, and
 * their open sessions end at once. Admins cannot deactivate themselves (they would lock themselves out),
 * nor the last active admin.
 */
export async function setUserActive(
  db: Db,
  input: { userId: number; active: boolean; actorId: number },
): Promise<User> {
  if (!input.active && input.userId === input.actorId) {
    throw new DomainError("refused", "You cannot deactivate yourself.");
  }
  return await changeUser(db, input.userId, input.actorId, { active: input.active });
}

/**
 * Sets a new PIN and lifts any lockout. The user's other sessions end (a PIN is reset when it may be known
 * to someone else); an admin resetting their own PIN stays signed in. The audit entry never holds the PIN.
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
    await insertAuditEntry(tx, {
      actorId: input.actorId,
      action: "user.pin_reset",
      subject: `user:${user.id}`,
      after: { email: user.email, pin: "reset" },
    });
    return user;
  });
}
