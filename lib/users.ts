/** The acting user of a request. */
import { activeUserByEmail } from "@/db/queries/users.ts";
import type { QueryRunner } from "@/db/queries/compiled.ts";
import type { User } from "@/db/schema.ts";
import { DomainError } from "@/lib/errors.ts";

/** The active user with this (already lower-cased) e-mail, else `User not found.` (D9, D24). */
export async function requireActiveUser(db: QueryRunner, email: string): Promise<User> {
  const user = await activeUserByEmail.executeTakeFirst(db, email);
  if (!user) throw new DomainError("not_found", "User not found.");
  return user;
}
