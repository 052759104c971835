/**
 * What a repair shop's page reads (docs/shop-page.md): the parts of the claims the shop repairs (the claim's
 * management record names it) in each status the page lists, the delivery that brought each part it holds,
 * its last collections, and whether a photo belongs to its deliveries or collections. Every read is scoped
 * to the one shop by the claim's management record (or, for photos, the movement's place).
 */
import { type RawBuilder, sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { Tx } from "@/db/queries/compiled.ts";
import type { PartStatus } from "@/db/schema.ts";
import { announcementJson, type OutboxWrite } from "@/db/queries/announcements.ts";

export interface ShopPartRow {
  id: number;
  part_no: string;
  description: string;
  qty_ordered: number;
  status: PartStatus;
  claim_number: string;
  registration: string;
}

/** The shop's claims' parts in these statuses, by claim then part number (at most `limit`). */
export async function shopParts(
  db: Db,
  repairerId: number,
  statuses: readonly PartStatus[],
  limit: number,
): Promise<ShopPartRow[]> {
  return await db.selectFrom("parts_orders as p")
    .innerJoin("claims as c", "c.id", "p.claim_id")
    .innerJoin("claim_management as cm", "cm.claim_id", "c.id")
    .select([
      "p.id",
      "p.part_no",
      "p.description",
      "p.qty_ordered",
      "p.status",
      "c.claim_number",
      "c.registration",
    ])
    .where("cm.repairer_id", "=", repairerId)
    .where("p.status", "in", statuses)
    .orderBy("c.claim_number").orderBy("p.part_no").orderBy("p.id")
    .limit(limit)
    .execute();
}

export interface DeliveryOfPart {
  part_id: number;
  movement_id: number;
  dropped_off_at: Date;
  driver_name: string | null;
  photo_id: number | null;
}

/** For each part, the newest direct drop-off (a delivery to a shop) that carried it. */
export function deliveriesOfPartsSql(partIds: number[]): RawBuilder<DeliveryOfPart> {
  return sql<DeliveryOfPart>`
    select dl.* from unnest(${partIds}::int[]) as x(id)
    cross join lateral (
      select d.part_id, m.id as movement_id, m.dropped_off_at, u.name as driver_name,
        d.delivery_photo_id as photo_id
      from deliver_parts d
      join parts_movements m on m.id = d.movement_id
      left join users u on u.id = m.dropped_off_by
      where d.part_id = x.id and m.movement_type = 'direct' and m.dropped_off_at is not null
      order by m.dropped_off_at desc, m.id desc
      limit 1
    ) dl`;
}

export async function deliveriesOfParts(db: Db, partIds: number[]): Promise<DeliveryOfPart[]> {
  if (partIds.length === 0) return [];
  return (await deliveriesOfPartsSql(partIds).execute(db)).rows;
}

export interface CollectionRow {
  movement_id: number;
  pick_up_at: Date;
  driver_name: string | null;
  claim_number: string;
  registration: string;
  part_nos: string[];
}

/** The shop's newest collections (return trips picked up there), at most `limit`. */
export async function collectionsFromShop(
  db: Db,
  repairerId: number,
  limit: number,
): Promise<CollectionRow[]> {
  return await db.selectFrom("parts_movements as m")
    .innerJoin("claims as c", "c.id", "m.claim_id")
    .leftJoin("users as u", "u.id", "m.picked_up_by")
    .select([
      "m.id as movement_id",
      "m.pick_up_at",
      "u.name as driver_name",
      "c.claim_number",
      "c.registration",
      sql<string[]>`array(select p.part_no from deliver_parts d join parts_orders p on p.id = d.part_id
        where d.movement_id = m.id order by p.part_no)`.as("part_nos"),
    ])
    .where("m.movement_type", "=", "reverse")
    .where("m.place_repairer_id", "=", repairerId)
    .orderBy("m.pick_up_at", "desc").orderBy("m.id", "desc")
    .limit(limit)
    .execute();
}

/** Whether photo `photoId` shows a leg of a movement at this shop (a delivery to it, a pickup from it). */
export async function isPhotoOfShop(db: Db, repairerId: number, photoId: number): Promise<boolean> {
  const row = await db.selectFrom("deliver_parts as d")
    .innerJoin("parts_movements as m", "m.id", "d.movement_id")
    .select("d.id")
    .where((eb) => eb.or([eb("d.delivery_photo_id", "=", photoId), eb("d.pickup_photo_id", "=", photoId)]))
    .where("m.place_repairer_id", "=", repairerId)
    .limit(1).executeTakeFirst();
  if (row) return true;
  const report = await db.selectFrom("shop_problem_reports").select("id")
    .where("photo_id", "=", photoId).where("repairer_id", "=", repairerId).limit(1).executeTakeFirst();
  return report !== undefined;
}

/**
 * Locks parts `partIds` in id order (the order every submission and the return requests' approval lock parts
 * in, so none of them deadlock) and returns each one's number, status and claim under the lock, and whether
 * the shop repairs its claim.
 */
export async function lockPartsAsShopSees(tx: Tx, repairerId: number, partIds: number[]) {
  if (partIds.length === 0) return [];
  return await tx.selectFrom("parts_orders as p")
    .leftJoin(
      "claim_management as cm",
      (join) => join.onRef("cm.claim_id", "=", "p.claim_id").on("cm.repairer_id", "=", repairerId),
    )
    .select([
      "p.id",
      "p.part_no",
      "p.description",
      "p.status",
      "p.claim_id",
      sql<boolean>`cm.id is not null`.as("ours"),
    ])
    .where("p.id", "in", partIds)
    .orderBy("p.id")
    .modifyEnd(sql`for update of p`)
    .execute();
}

/** The claims `ids` (number and rego), for what the shop's actions announce. */
export async function claimsByIds(tx: Tx, ids: number[]) {
  if (ids.length === 0) return [];
  return await tx.selectFrom("claims").select(["id", "claim_number", "registration"]).where("id", "in", ids)
    .orderBy("id").execute();
}

/**
 * The chat rows of a shop's "Ready for collection" about one claim (D21: in the change's own transaction):
 * no movement, no return request; `link` opens the claim's parts.
 */
export async function insertClaimAnnouncements(tx: Tx, w: OutboxWrite, link: string): Promise<void> {
  if (w.rows.length === 0) return;
  const body = announcementJson({ ...w.announcement, link, movementId: 0 });
  await tx.insertInto("announcements").values(w.rows.map((r) => ({
    message_id: r.messageId,
    movement_id: null,
    return_request_id: null,
    title: w.announcement.title,
    channel: r.channel,
    body: JSON.stringify(body),
    state: r.state,
    next_attempt_at: w.at,
    created_at: w.at,
  }))).execute();
}
