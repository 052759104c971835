/**
 * "Ready for collection" (docs/shop-page.md): a repair shop tells the depot it is done with parts it holds.
 * Each part still at the shop (`Delivered to Repair Shop directly`, on a claim the shop repairs) becomes
 * `Pending Repair Shop Pick-Up` (the protocol's start of every reverse movement), all in one transaction,
 * with a history row each (`via` `shop`, the shop as the actor), an audit entry naming the shop and a chat
 * announcement (`Ready For Collection`) per claim.
 *
 * Races (the return requests' rule, docs/return-requests.md "Races"): the parts are locked in id order (the
 * order every submission locks them in: no deadlock), then each is judged under the lock. A part flagged
 * meanwhile (by a dispatcher, an approved return request) counts as done; a part that left the shop otherwise
 * (collected, corrected) or was never the shop's is named and left alone; only when nothing is or was flagged
 * is the whole request refused, writing nothing.
 */
import { insertAuditEntry } from "@/db/queries/audit.ts";
import { notifyChange } from "@/db/queries/changes.ts";
import { insertHistoryRows } from "@/db/queries/history.ts";
import { flagPartsAtShop } from "@/db/queries/return_requests.ts";
import { claimsByIds, insertClaimAnnouncements, lockPartsAsShopSees } from "@/db/queries/shop_page.ts";
import { announcementOutbox, announcementsWritten, claimPartsLink } from "@/lib/announcements/outbox.ts";
import type { PartStatus } from "@/db/schema.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import { AT_SHOP, FLAGGED, SHOP_LIST_LIMIT } from "@/lib/shops/page.ts";

export interface ReadyResult {
  /** Flagged now. */
  flagged: string[];
  /** Flagged already by someone else: collectable either way. */
  alreadyFlagged: string[];
  /** Left alone: no longer at the shop, with the status now, or not the shop's. */
  leftAlone: { partNo: string; status: PartStatus | null }[];
}

export async function markReadyForCollection(
  { db, clock, config }: Pick<AppDeps, "db" | "clock" | "config">,
  shop: { repairerId: number; name: string },
  partIds: number[],
): Promise<ReadyResult> {
  const { repairerId } = shop;
  const ids = [...new Set(partIds)];
  if (ids.length === 0) {
    throw new DomainError("invalid", "Tick at least one part that is ready for collection.");
  }
  if (ids.length > SHOP_LIST_LIMIT) throw new DomainError("invalid", "Too many parts at once.");
  const now = clock.now();
  const result = await db.transaction().execute(async (tx) => {
    const locked = await lockPartsAsShopSees(tx, repairerId, ids);
    const ours = locked.filter((p) => p.ours);
    const atShop = ours.filter((p) => p.status === AT_SHOP);
    const result: ReadyResult = {
      flagged: [],
      alreadyFlagged: ours.filter((p) => p.status === FLAGGED).map((p) => p.part_no),
      leftAlone: [
        ...ours.filter((p) => p.status !== AT_SHOP && p.status !== FLAGGED)
          .map((p) => ({ partNo: p.part_no, status: p.status })),
        // Not the shop's (or no such part): named without its status, which is not the shop's business.
        ...locked.filter((p) => !p.ours).map((p) => ({ partNo: p.part_no, status: null })),
      ],
    };
    const flagged = await flagPartsAtShop(tx, atShop.map((p) => p.id), now);
    result.flagged = flagged.map((p) => p.part_no);
    if (flagged.length === 0) {
      if (result.alreadyFlagged.length > 0) return result;
      throw new DomainError(
        "conflict",
        "None of these parts is at your shop any more; nothing was changed. Reload the page to see where they are.",
      );
    }
    await insertHistoryRows(
      tx,
      flagged.map((p) => ({
        part_id: p.id,
        from_status: AT_SHOP,
        to_status: FLAGGED,
        changed_at: now,
        changed_by: null,
        changed_by_repairer_id: repairerId,
        via: "shop" as const,
        reason: "Ready for collection (shop page)",
      })),
    );
    const claims = new Set(atShop.filter((p) => flagged.some((f) => f.id === p.id)).map((p) => p.claim_id));
    for (const claimId of claims) {
      await insertAuditEntry(tx, {
        actorId: null,
        actorRepairerId: repairerId,
        action: "shop.ready_for_collection",
        subject: `repairer:${repairerId}`,
        claimId,
        before: { status: AT_SHOP },
        after: {
          status: FLAGGED,
          parts: atShop.filter((p) => p.claim_id === claimId && flagged.some((f) => f.id === p.id))
            .map((p) => p.part_no),
        },
        at: now,
      });
    }
    // In chat, one announcement per claim (D21: written in this transaction, posted after commit).
    for (const claim of await claimsByIds(tx, [...claims])) {
      const parts = atShop.filter((p) => p.claim_id === claim.id && flagged.some((f) => f.id === p.id));
      const outbox = announcementOutbox(config, {
        title: "Ready For Collection",
        rego: claim.registration,
        place: shop.name,
        parts: parts.map((p) => ({ partNo: p.part_no, description: p.description })),
        driver: `${shop.name} (shop page)`,
        at: now.toISOString(),
      }, now);
      await insertClaimAnnouncements(tx, outbox, claimPartsLink(config, claim.claim_number));
    }
    // The dashboards and the drivers' run sheets read the change feed (lib/live/).
    await notifyChange(tx, "parts");
    return result;
  });
  if (result.flagged.length > 0) announcementsWritten(db);
  return result;
}
