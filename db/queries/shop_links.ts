/**
 * The repair shops' private links (lib/shops/link.ts, docs/shop-page.md): the current link of a shop, the
 * link a token's hash names (with its shop), making one and ending one. One current link per shop is the
 * partial unique index `shop_links_current`: of two first links made at once, one insert fails and the
 * caller reads the winner.
 */
import type { Db } from "@/db/client.ts";
import type { Tx } from "@/db/queries/compiled.ts";
import type { ShopLinkEnd } from "@/db/schema.ts";

export interface ShopLinkRow {
  token_hash: string;
  repairer_id: number;
  salt: string;
  created_at: Date;
  ended_at: Date | null;
  ended_reason: ShopLinkEnd | null;
}

const COLUMNS = ["token_hash", "repairer_id", "salt", "created_at", "ended_at", "ended_reason"] as const;

/** The shop's newest link, current or ended; undefined when it never had one. */
export async function newestShopLink(db: Db | Tx, repairerId: number): Promise<ShopLinkRow | undefined> {
  return await db.selectFrom("shop_links").select(COLUMNS).where("repairer_id", "=", repairerId)
    .orderBy("id", "desc").limit(1).executeTakeFirst();
}

/** The link a token's hash names, with its shop's name; undefined for no link. */
export async function shopLinkByHash(db: Db, hash: string) {
  return await db.selectFrom("shop_links as l").innerJoin("repairers as r", "r.id", "l.repairer_id")
    .select([...COLUMNS.map((c) => `l.${c}` as const), "r.name as repairer_name"])
    .where("l.token_hash", "=", hash).executeTakeFirst();
}

/**
 * Makes the shop's current link; false when another one is current (the unique index refused it). Ending
 * the old one first, in the same transaction, is the caller's.
 */
export async function insertShopLink(
  tx: Tx,
  link: { tokenHash: string; repairerId: number; salt: string; at: Date; by: number | null },
): Promise<boolean> {
  const row = await tx.insertInto("shop_links").values({
    token_hash: link.tokenHash,
    repairer_id: link.repairerId,
    salt: link.salt,
    created_at: link.at,
    created_by: link.by,
  }).onConflict((oc) => oc.column("repairer_id").where("ended_at", "is", null).doNothing())
    .returning("token_hash").executeTakeFirst();
  return row !== undefined;
}

/** Ends the shop's current link, if any; returns whether there was one. */
export async function endShopLink(
  tx: Tx,
  repairerId: number,
  reason: ShopLinkEnd,
  at: Date,
): Promise<boolean> {
  const rows = await tx.updateTable("shop_links").set({ ended_at: at, ended_reason: reason })
    .where("repairer_id", "=", repairerId).where("ended_at", "is", null).returning("token_hash").execute();
  return rows.length > 0;
}
