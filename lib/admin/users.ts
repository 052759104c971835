/**
 * Admin use cases for users (D24): add a user, change a role, deactivate or reactivate one, set a driver's
 * PIN or a dispatcher's or admin's dashboard password (docs/sign-in.md "Dashboard passwords"). Messages are
 * written for the admin pages; PINs and passwords are hashed before any transaction opens (hashing is slow
 * on purpose). Each change writes its audit entry (db/queries/audit.ts) in its own transaction, never
 * holding the secret.
 */
import type { Db } from "@/db/client.ts";
import { type Role, ROLES, type User } from "@/db/schema.ts";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import { deleteOtherSessionsOfUser, deleteSessionsOfUser } from "@/db/queries/sessions.ts";
import {
  insertUserUnlessEmailTaken,
  lockActiveAdmins,
  updateUserAndUnlock,
  updateUserRole,
  userForUpdate,
} from "@/db/queries/users.ts";
import { DomainError } from "@/lib/errors.ts";
import { hashPin, PIN_PATTERN } from "@/io/pin.ts";
import { normalisePassword, passwordProblem } from "@/lib/passwords/rules.ts";
import { STAFF_ROLES } from "@/lib/staff_sign_in.ts";
import { emailField, isLineText } from "@/lib/validation.ts";

export interface NewUserInput {
  email: string;
  name: string;
  role: string;
  /** A driver's PIN (the tablet); must be empty for staff. */
  pin: string;
  /** A dispatcher's or admin's dashboard password; must be empty for a driver. */
  password?: string;
  /** The admin adding the user (null: a task run from the command line). */
  actorId: number | null;
}

function checkPin(pin: string): string {
  if (!PIN_PATTERN.test(pin)) throw new DomainError("invalid", "The PIN must be 4 to 8 digits.");
  return pin;
}

/** A new dashboard password, by the rules of lib/passwords/rules.ts, in the form it is hashed. */
export async function checkPassword(password: string): Promise<string> {
  const problem = await passwordProblem(password);
  if (problem) throw new DomainError("invalid", `The password ${problem}.`);
  return normalisePassword(password);
}

const isStaff = (role: Role) => STAFF_ROLES.includes(role);

/** The secret a new user gets: a PIN for a driver, a password for staff; never the other one. */
async function newUserSecret(role: Role, input: NewUserInput) {
  const pin = input.pin.trim();
  const password = input.password ?? "";
  if (isStaff(role)) {
    if (pin) {
      throw new DomainError(
        "invalid",
        "Dispatchers and admins sign in with a password: leave the PIN empty.",
      );
    }
    return { pin_hash: null, password_hash: await hashPin(await checkPassword(password)) };
  }
  if (password) {
    throw new DomainError("invalid", "Drivers sign in on the tablet with a PIN: leave the password empty.");
  }
  return { pin_hash: await hashPin(checkPin(pin)), password_hash: null };
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
  const secret = await newUserSecret(role, input);
  return await db.transaction().execute(async (tx) => {
    const user = await insertUserUnlessEmailTaken(tx, { email: email.data, name, role, ...secret });
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
 * Sets a driver's new PIN and lifts any lockout. The user's sessions end (a PIN is reset when it may be
 * known to someone else). Dispatchers and admins have a password instead (setPassword). The audit entry
 * never holds the PIN.
 */
export async function resetPin(
  db: Db,
  input: { userId: number; pin: string; actorId: number },
): Promise<User> {
  const pinHash = await hashPin(checkPin(input.pin.trim()));
  return await db.transaction().execute(async (tx) => {
    const before = await userForUpdate(tx, input.userId);
    if (!before) throw new DomainError("not_found", "User not found.");
    if (isStaff(before.role)) {
      throw new DomainError(
        "refused",
        "Dispatchers and admins sign in with a password: set a password instead.",
      );
    }
    const user = (await updateUserAndUnlock(tx, input.userId, { pin_hash: pinHash }))!;
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

/**
 * Sets a dispatcher's or admin's dashboard password (the rules of lib/passwords/rules.ts) and lifts any
 * lockout. The user's other sessions end: every one when an admin sets someone else's, all but the current
 * one (`keepSession`, its token hash) when admins set their own. Drivers have no password (the tablet takes
 * their PIN). The audit entry says only that a password was set.
 */
export async function setPassword(
  db: Db,
  input: { userId: number; password: string; actorId: number | null; keepSession?: string | null },
): Promise<User> {
  const passwordHash = await hashPin(await checkPassword(input.password));
  return await db.transaction().execute(async (tx) => {
    const before = await userForUpdate(tx, input.userId);
    if (!before) throw new DomainError("not_found", "User not found.");
    if (!isStaff(before.role)) {
      throw new DomainError("refused", "Drivers sign in on the tablet with a PIN: set a PIN instead.");
    }
    const user = (await updateUserAndUnlock(tx, input.userId, { password_hash: passwordHash }))!;
    const keep = input.userId === input.actorId ? input.keepSession ?? null : null;
    await deleteOtherSessionsOfUser(tx, input.userId, keep);
    await insertAuditEntry(tx, {
      actorId: input.actorId,
      action: "user.password_set",
      subject: `user:${user.id}`,
      after: { email: user.email, password: "set" },
    });
    return user;
  });
}
