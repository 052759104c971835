/**
 * Queries of the remembered_browsers table (docs/sign-in.md "Remembered browsers"): only the SHA-256 of a
 * browser's cookie token is ever stored or looked up.
 */
import type { Db } from "@/db/client.ts";

/** The remembered browser of a token hash: its id and the one user it is bound to. */
export async function rememberedBrowserByHash(
  db: Db,
  tokenHash: string,
): Promise<{ id: number; userId: number; lastUsedAt: Date } | undefined> {
  const row = await db.selectFrom("remembered_browsers").select(["id", "user_id", "last_used_at"])
    .where("token_hash", "=", tokenHash).executeTakeFirst();
  return row && { id: row.id, userId: row.user_id, lastUsedAt: row.last_used_at };
}

export async function insertRememberedBrowser(
  db: Db,
  b: { tokenHash: string; userId: number; at: Date },
): Promise<void> {
  await db.insertInto("remembered_browsers")
    .values({ token_hash: b.tokenHash, user_id: b.userId, created_at: b.at, last_used_at: b.at })
    .execute();
}

export async function touchRememberedBrowser(db: Db, id: number, at: Date): Promise<void> {
  await db.updateTable("remembered_browsers").set({ last_used_at: at }).where("id", "=", id).execute();
}

/** Forgets a remembered browser (its cookie expired, or it now belongs to another user). */
export async function deleteRememberedBrowser(db: Db, id: number): Promise<void> {
  await db.deleteFrom("remembered_browsers").where("id", "=", id).execute();
}

/** Forgets the browsers whose user has not signed in on them since `cutoff` (their cookie has expired). */
export async function deleteRememberedBrowsersUnusedSince(db: Db, cutoff: Date): Promise<number> {
  const result = await db.deleteFrom("remembered_browsers").where("last_used_at", "<", cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
