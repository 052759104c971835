/** The acting user of a request. */
import type { Db } from "@/db/client.ts";
import type { User } from "@/db/schema.ts";
import { DomainError } from "@/lib/errors.ts";

/** The active user with this (already lower-cased) e-mail, else `User not found.` (D9, D24). */
export async function requireActiveUser(db: Pick<Db, "selectFrom">, email: string): Promise<User> {
  const user = await db.selectFrom("users").selectAll().where("email", "=", email).where("active", "=", true)
    .executeTakeFirst();
  if (!user) throw new DomainError("User not found.");
  return user;
}
