/** The acting user of a request. */
import { activeUserByEmail } from "@/db/queries/users.ts";
import type { QueryRunner } from "@/db/queries/compiled.ts";
import type { Role, User } from "@/db/schema.ts";
import { DomainError } from "@/lib/errors.ts";

/** What a submission needs of its user. */
export type ActingUser = Pick<User, "id" | "name" | "home_hq_id">;

/**
 * The handler's acting user: its `user_email` (lower-cased by its schema) and the roles allowed to use the
 * app (HANDLER_ROLES, docs/handler.md "Who the handler acts for"). An active user of another role is
 * answered exactly as an unknown e-mail is (`User not found.`), so the handler tells nothing about them.
 * `sourceAddress`: the client address (routes/web/rate_limits.ts), for the audit entry of each movement the
 * handler records (lib/movements/submission.ts `handlerAuditOf`).
 */
export type HandlerActor = { email: string; roles: readonly Role[]; sourceAddress: string };

/**
 * Who makes a request: a user already known (the tablet's session user), or the handler's actor, which the
 * movement submissions look up in their first statement instead of a round trip of its own
 * (docs/performance.md "Round trips"); other events look it up with `actorUser`.
 */
export type Actor = { user: User } | HandlerActor;

/** `User not found.` (D9, D24): its own class, so the submission metrics can tell it from a refusal. */
export class UnknownUserError extends DomainError {
  constructor() {
    super("not_found", "User not found.");
    this.name = "UnknownUserError";
  }
}

/** The active user with this (already lower-cased) e-mail, else `User not found.` (D9, D24). */
export async function requireActiveUser(db: QueryRunner, email: string): Promise<User> {
  const user = await activeUserByEmail.executeTakeFirst(db, email);
  if (!user) throw new UnknownUserError();
  return user;
}

/** The actor's user: the known one, else the active user of the e-mail in an allowed role (`User not found.`). */
export async function actorUser(db: QueryRunner, actor: Actor): Promise<User> {
  if ("user" in actor) return actor.user;
  const user = await requireActiveUser(db, actor.email);
  if (!actor.roles.includes(user.role)) throw new UnknownUserError();
  return user;
}
