/** The acting user of a request. */
import { activeUserByEmail } from "@/db/queries/users.ts";
import type { QueryRunner } from "@/db/queries/compiled.ts";
import type { User } from "@/db/schema.ts";
import { DomainError } from "@/lib/errors.ts";

/** What a submission needs of its user. */
export type ActingUser = Pick<User, "id" | "name" | "home_hq_id">;

/**
 * Who makes a request: a user already known (the tablet's session user), or the handler's `user_email`
 * (lower-cased by its schema), which the movement submissions look up in their first statement instead of
 * a round trip of its own (docs/performance.md "Round trips"); other events look it up with `actorUser`.
 */
export type Actor = { user: User } | { email: string };

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

/** The actor's user: the known one, else the active user of the e-mail (`User not found.`). */
export async function actorUser(db: QueryRunner, actor: Actor): Promise<User> {
  return "user" in actor ? actor.user : await requireActiveUser(db, actor.email);
}
