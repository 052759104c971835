/** User lookups. */
import { compiledQuery } from "@/db/queries/compiled.ts";

/** The active user with this (lower-cased) e-mail. Compiled once: every handler call runs it. */
export const activeUserByEmail = compiledQuery((db, email: string) =>
  db.selectFrom("users").selectAll().where("email", "=", email).where("active", "=", true)
);
