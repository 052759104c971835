/**
 * A repair shop's private link (docs/shop-page.md "The private link"): `/shop/<token>`, no account. The
 * token is HMAC-SHA256(SHOP_LINK_SECRET, shop id and a random salt), 43 characters of base64url; the
 * database keeps the salt and the token's SHA-256 only. So the service can show the current link to an admin
 * and put it in the shop's e-mails at any time, while a copy of the database opens no shop's page.
 *
 * Life cycle: a shop gets its first link when an admin makes one or when an e-mail to it needs one; an
 * admin replaces it (the old link then answers "This link was replaced") or turns it off ("This link was
 * turned off"; e-mails then go without a link until an admin makes a new one). Without SHOP_LINK_SECRET
 * (outside development) there are no links at all.
 */
import { createHmac } from "node:crypto";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import { endShopLink, insertShopLink, newestShopLink, shopLinkByHash } from "@/db/queries/shop_links.ts";
import type { Db } from "@/db/client.ts";
import type { Tx } from "@/db/queries/compiled.ts";
import { base64url, hashToken, randomToken } from "@/io/tokens.ts";
import type { Config } from "@/io/config.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";

type LinkDeps = Pick<AppDeps, "db" | "config" | "clock">;

/** 32 bytes of HMAC in unpadded base64url. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const tokenOf = (secret: string, repairerId: number, salt: string): string =>
  base64url(createHmac("sha256", secret).update(`shop-link:${repairerId}:${salt}`).digest());

const urlOf = (config: Config, token: string) => `${config.publicUrl}/shop/${token}`;

export const linksEnabled = (config: Config): boolean => config.shopLinkSecret !== undefined;

const LINKS_OFF = "Shop links are off: set SHOP_LINK_SECRET (docs/shop-page.md).";

/** Makes the shop's current link in `tx` (the caller ended the old one); its token. */
async function makeLink(tx: Tx, config: Config, repairerId: number, at: Date, by: number | null) {
  const salt = randomToken();
  const token = tokenOf(config.shopLinkSecret!, repairerId, salt);
  const made = await insertShopLink(tx, { tokenHash: hashToken(token), repairerId, salt, at, by });
  return made ? token : null;
}

/**
 * The shop's current private link, for its e-mails: made now if the shop never had one. Null when links are
 * off, or when an admin turned the shop's link off (and made no new one since).
 */
export async function shopPageUrl(
  { db, config, clock }: LinkDeps,
  repairerId: number,
): Promise<string | null> {
  if (!linksEnabled(config)) return null;
  const newest = await newestShopLink(db, repairerId);
  if (newest && newest.ended_at === null) {
    return urlOf(config, tokenOf(config.shopLinkSecret!, repairerId, newest.salt));
  }
  if (newest?.ended_reason === "revoked") return null;
  const token = await db.transaction().execute((tx) => makeLink(tx, config, repairerId, clock.now(), null));
  if (token) return urlOf(config, token);
  // Another request made the first link meanwhile: that one is current (unless already ended again).
  const winner = await newestShopLink(db, repairerId);
  return winner && winner.ended_at === null
    ? urlOf(config, tokenOf(config.shopLinkSecret!, repairerId, winner.salt))
    : null;
}

/** What an admin sees of a shop's link (routes/hq/admin_places.tsx). */
export type ShopLinkState =
  | { state: "off" }
  | { state: "none" }
  | { state: "revoked"; at: Date }
  | { state: "current"; url: string; since: Date };

export async function shopLinkState({ db, config }: Pick<AppDeps, "db" | "config">, repairerId: number) {
  if (!linksEnabled(config)) return { state: "off" } satisfies ShopLinkState;
  const newest = await newestShopLink(db, repairerId);
  if (!newest) return { state: "none" } satisfies ShopLinkState;
  if (newest.ended_at) return { state: "revoked", at: newest.ended_at } satisfies ShopLinkState;
  return {
    state: "current",
    url: urlOf(config, tokenOf(config.shopLinkSecret!, repairerId, newest.salt)),
    since: newest.created_at,
  } satisfies ShopLinkState;
}

/**
 * An admin makes the shop a new link: the current one (if any) answers "replaced" from now on. Audited
 * `shop_link.rotate`. Returns the new link.
 */
export async function replaceShopLink(
  { db, config, clock }: LinkDeps,
  adminId: number,
  repairerId: number,
): Promise<string> {
  if (!linksEnabled(config)) throw new DomainError("refused", LINKS_OFF);
  const at = clock.now();
  const token = await db.transaction().execute(async (tx) => {
    const replaced = await endShopLink(tx, repairerId, "replaced", at);
    const made = await makeLink(tx, config, repairerId, at, adminId);
    // Ended above in this transaction, so only a concurrent replace can have made one: it holds the index
    // entry until it commits, and this insert waits for it, then finds the row current.
    if (!made) {
      throw new DomainError("conflict", "Another admin changed this shop's link just now; look again.");
    }
    await insertAuditEntry(tx, {
      actorId: adminId,
      action: "shop_link.rotate",
      subject: `repairer:${repairerId}`,
      before: { link: replaced ? "replaced" : "none" },
      after: { link: "new" },
    });
    return made;
  });
  return urlOf(config, token);
}

/** An admin turns the shop's link off: it answers "turned off"; e-mails go without one. Audited. */
export async function revokeShopLink(
  { db, clock }: Pick<AppDeps, "db" | "clock">,
  adminId: number,
  repairerId: number,
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    if (!await endShopLink(tx, repairerId, "revoked", clock.now())) {
      throw new DomainError("conflict", "This shop has no private link to turn off.");
    }
    await insertAuditEntry(tx, {
      actorId: adminId,
      action: "shop_link.revoke",
      subject: `repairer:${repairerId}`,
      before: { link: "current" },
      after: { link: "revoked" },
    });
  });
}

/** What a token opens: its shop, or why not. */
export type ShopLinkLookup =
  | { state: "current"; repairerId: number; repairerName: string }
  | { state: "replaced" | "revoked" }
  | { state: "unknown" };

export async function lookUpShopLink(db: Db, config: Config, token: string): Promise<ShopLinkLookup> {
  if (!linksEnabled(config) || !TOKEN_PATTERN.test(token)) return { state: "unknown" };
  const row = await shopLinkByHash(db, hashToken(token));
  if (!row) return { state: "unknown" };
  if (row.ended_reason) return { state: row.ended_reason };
  return { state: "current", repairerId: row.repairer_id, repairerName: row.repairer_name };
}

/**
 * The links the admin's places page shows, by shop: viewing them is a need, so a shop that never had one gets
 * its first now (as an e-mail would); a turned-off link stays off.
 */
export async function shopLinksForAdmin(
  deps: LinkDeps,
  repairerIds: number[],
): Promise<Map<number, ShopLinkState>> {
  const links = new Map<number, ShopLinkState>();
  for (const id of repairerIds) {
    let state: ShopLinkState = await shopLinkState(deps, id);
    if (state.state === "none") {
      await shopPageUrl(deps, id);
      state = await shopLinkState(deps, id);
    }
    links.set(id, state);
  }
  return links;
}
