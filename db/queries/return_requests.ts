/**
 * Queries of return requests (docs/return-requests.md): a driver's request that HQ flag a claim's parts for
 * return, its parts, its decision, and its announcement rows. The rules (which parts, which races) are in
 * lib/return_requests.ts; here the statements only, each guarded so that a stale read writes nothing.
 */
import type { Db } from "@/db/client.ts";
import type { Tx } from "@/db/queries/compiled.ts";
import type { OutboxWrite } from "@/db/queries/announcements.ts";
import { announcementJson } from "@/db/queries/announcements.ts";
import type { PartStatus, ReturnRequestState } from "@/db/schema.ts";

/** Where a part is when it sits at the claim's repair shop, not flagged (docs/return-requests.md). */
export const AT_SHOP: PartStatus = "Delivered to Repair Shop directly";
export const FLAGGED: PartStatus = "Pending Repair Shop Pick-Up";

export interface NewReturnRequest {
  claimId: number;
  repairerId: number | null;
  requestedBy: number;
  requestedAt: Date;
  clientKey: string;
  note: string | null;
  partIds: number[];
}

/**
 * Inserts the request unless the driver's key (a retry) or an open request on the claim already exists;
 * returns the new id, or null when nothing was inserted (the caller reads the one that exists).
 */
export async function insertReturnRequest(tx: Tx, r: NewReturnRequest): Promise<number | null> {
  const row = await tx.insertInto("return_requests").values({
    claim_id: r.claimId,
    repairer_id: r.repairerId,
    requested_by: r.requestedBy,
    requested_at: r.requestedAt,
    client_key: r.clientKey,
    note: r.note,
  }).onConflict((oc) => oc.doNothing()).returning("id").executeTakeFirst();
  if (!row) return null;
  await tx.insertInto("return_request_parts")
    .values(r.partIds.map((part_id) => ({ request_id: row.id, part_id })))
    .execute();
  return row.id;
}

/** The request this driver made with this key, if any (a retry of a request that did commit). */
export async function returnRequestIdByKey(
  db: Db,
  userId: number,
  clientKey: string,
): Promise<number | null> {
  const row = await db.selectFrom("return_requests").select("id")
    .where("requested_by", "=", userId).where("client_key", "=", clientKey).executeTakeFirst();
  return row?.id ?? null;
}

/** The claim's open request, if any. */
export async function openReturnRequestOfClaim(db: Db, claimId: number): Promise<number | null> {
  const row = await db.selectFrom("return_requests").select("id")
    .where("claim_id", "=", claimId).where("state", "=", "open").executeTakeFirst();
  return row?.id ?? null;
}

/** The claim's newest request, if any (the tablet shows its state beside the claim). */
export async function latestReturnRequestOfClaim(db: Db, claimId: number): Promise<number | null> {
  const row = await db.selectFrom("return_requests").select("id")
    .where("claim_id", "=", claimId).orderBy("id", "desc").limit(1).executeTakeFirst();
  return row?.id ?? null;
}

/** The outbox rows of a request's announcement (D21: in the request's own transaction). */
export async function insertRequestAnnouncements(tx: Tx, requestId: number, w: OutboxWrite): Promise<void> {
  const body = announcementJson({
    ...w.announcement,
    link: w.linkPrefix + requestId,
    movementId: 0,
    returnRequestId: requestId,
  });
  await tx.insertInto("announcements").values(w.rows.map((r) => ({
    message_id: r.messageId,
    movement_id: null,
    return_request_id: requestId,
    title: w.announcement.title,
    channel: r.channel,
    body: JSON.stringify(body),
    state: r.state,
    next_attempt_at: w.at,
    created_at: w.at,
  }))).execute();
}

/** The requests with their claim, shop and people, as every read below shows them. */
function requestsWithNames(db: Db) {
  return db.selectFrom("return_requests as r")
    .innerJoin("claims as c", "c.id", "r.claim_id")
    .innerJoin("users as u", "u.id", "r.requested_by")
    .leftJoin("repairers as s", "s.id", "r.repairer_id")
    .leftJoin("users as d", "d.id", "r.decided_by")
    .select([
      "r.id",
      "r.claim_id",
      "c.claim_number",
      "c.registration",
      "r.repairer_id",
      "s.name as repairer_name",
      "r.requested_by",
      "u.name as requested_by_name",
      "r.requested_at",
      "r.note",
      "r.state",
      "r.decided_by",
      "d.name as decided_by_name",
      "r.decided_at",
      "r.decline_reason",
      "r.photo_id",
    ]);
}

export type ReturnRequestRow = Awaited<ReturnType<ReturnType<typeof requestsWithNames>["execute"]>>[number];

export interface ReturnRequestPartRow {
  request_id: number;
  part_id: number;
  part_no: string;
  description: string;
  qty_ordered: number;
  status: PartStatus;
  flagged: boolean | null;
}

/** The parts of these requests, with their status now, by request then part id. */
export async function partsOfReturnRequests(db: Db, ids: number[]): Promise<ReturnRequestPartRow[]> {
  if (ids.length === 0) return [];
  return await db.selectFrom("return_request_parts as rp")
    .innerJoin("parts_orders as p", "p.id", "rp.part_id")
    .select([
      "rp.request_id",
      "rp.part_id",
      "p.part_no",
      "p.description",
      "p.qty_ordered",
      "p.status",
      "rp.flagged",
    ])
    .where("rp.request_id", "in", ids)
    .orderBy("rp.request_id").orderBy("rp.part_id")
    .execute();
}

export async function returnRequestById(db: Db, id: number): Promise<ReturnRequestRow | undefined> {
  return await requestsWithNames(db).where("r.id", "=", id).executeTakeFirst();
}

/** The open requests, oldest first (return_requests_open_claim holds them), at most `limit`. */
export async function openReturnRequests(db: Db, limit: number): Promise<ReturnRequestRow[]> {
  return await requestsWithNames(db).where("r.state", "=", "open").orderBy("r.id").limit(limit).execute();
}

/** The newest decided requests, at most `limit`. */
export async function decidedReturnRequests(db: Db, limit: number): Promise<ReturnRequestRow[]> {
  return await requestsWithNames(db).where("r.state", "<>", "open")
    .orderBy("r.decided_at", "desc").orderBy("r.id", "desc").limit(limit).execute();
}

/** How many requests are open (the navigation's count; the partial unique index holds exactly them). */
export async function countOpenReturnRequests(db: Db): Promise<number> {
  const row = await db.selectFrom("return_requests").select((eb) => eb.fn.countAll<number>().as("n"))
    .where("state", "=", "open").executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Decides an open request: the one guard between two dispatchers (and an approval and a decline). Returns
 * the claim and requester when this call decided it, undefined when it was no longer open.
 */
export async function decideReturnRequestIf(
  tx: Tx,
  id: number,
  decision: { state: Exclude<ReturnRequestState, "open">; by: number; at: Date; reason: string | null },
): Promise<{ claim_id: number } | undefined> {
  return await tx.updateTable("return_requests")
    .set({
      state: decision.state,
      decided_by: decision.by,
      decided_at: decision.at,
      decline_reason: decision.reason,
    })
    .where("id", "=", id).where("state", "=", "open")
    .returning("claim_id").executeTakeFirst();
}

/**
 * Puts the photo on the request if `userId` made it and it is still open (the one guard against a decision
 * meanwhile). Returns whether it did.
 */
export async function setReturnRequestPhotoIf(
  tx: Tx,
  id: number,
  userId: number,
  photoId: number,
): Promise<boolean> {
  const row = await tx.updateTable("return_requests").set({ photo_id: photoId })
    .where("id", "=", id).where("requested_by", "=", userId).where("state", "=", "open")
    .returning("id").executeTakeFirst();
  return row !== undefined;
}

/**
 * Locks the request's parts in id order (the order every submission locks parts in, so the two never
 * deadlock) and returns their status under the lock.
 */
export async function lockRequestParts(
  tx: Tx,
  requestId: number,
): Promise<{ id: number; part_no: string; status: PartStatus }[]> {
  return await tx.selectFrom("parts_orders").select(["id", "part_no", "status"])
    .where(
      "id",
      "in",
      (eb) => eb.selectFrom("return_request_parts").select("part_id").where("request_id", "=", requestId),
    )
    .orderBy("id").forUpdate().execute();
}

/** Flags the locked parts still at the shop; returns those it flagged. */
export async function flagPartsAtShop(
  tx: Tx,
  partIds: number[],
  at: Date,
): Promise<{ id: number; part_no: string }[]> {
  if (partIds.length === 0) return [];
  return await tx.updateTable("parts_orders").set({ status: FLAGGED, updated_at: at })
    .where("id", "in", partIds).where("status", "=", AT_SHOP)
    .returning(["id", "part_no"]).execute();
}

/** Records which of the request's parts the decision flagged (the others: not flagged). */
export async function markRequestParts(tx: Tx, requestId: number, flaggedIds: number[]): Promise<void> {
  if (flaggedIds.length > 0) {
    await tx.updateTable("return_request_parts").set({ flagged: true })
      .where("request_id", "=", requestId).where("part_id", "in", flaggedIds).execute();
  }
  await tx.updateTable("return_request_parts").set({ flagged: false })
    .where("request_id", "=", requestId).where("flagged", "is", null).execute();
}
