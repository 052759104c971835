/**
 * Queries of the handover family (docs/handover.md): the policy per leg, the staged handover images, the
 * handover rows and what the pages read of them. The images a submission takes are locked (FOR UPDATE, id
 * order) in the movement's transaction and marked used by a conditional UPDATE, so two submissions never
 * take one image.
 */
import type { Db } from "@/db/client.ts";
import type { HandoverImageKind, HandoverPolicy, MovementStage, UnsignedReason } from "@/db/schema.ts";
import type { QueryRunner, Tx } from "@/db/queries/compiled.ts";

/** The policies admins set, by leg (a leg missing has its default). */
export async function handoverPolicyRows(
  db: QueryRunner,
): Promise<{ leg: MovementStage; policy: HandoverPolicy }[]> {
  return await db.selectFrom("handover_policies").select(["leg", "policy"]).orderBy("leg").execute();
}

/** The policy set for `leg`, read with a share lock so an admin's change waits for the movement. */
export async function lockedPolicyOfLeg(trx: Tx, leg: MovementStage): Promise<HandoverPolicy | undefined> {
  const row = await trx.selectFrom("handover_policies").select("policy").where("leg", "=", leg).forShare()
    .executeTakeFirst();
  return row?.policy;
}

/** Sets `leg`'s policy; returns the one it replaces (undefined: there was none, the default applied). */
export async function setPolicyOfLeg(
  trx: Tx,
  p: { leg: MovementStage; policy: HandoverPolicy; by: number; at: Date },
): Promise<HandoverPolicy | undefined> {
  const before = await trx.selectFrom("handover_policies").select("policy").where("leg", "=", p.leg)
    .forUpdate().executeTakeFirst();
  await trx.insertInto("handover_policies")
    .values({ leg: p.leg, policy: p.policy, updated_by: p.by, updated_at: p.at })
    .onConflict((oc) =>
      oc.column("leg").doUpdateSet({ policy: p.policy, updated_by: p.by, updated_at: p.at })
    )
    .execute();
  return before?.policy;
}

/** Records a staged handover image of `userId`; returns its id. */
export async function insertHandoverImage(
  db: Db | Tx,
  image: { kind: HandoverImageKind; photoId: number; userId: number; at: Date },
): Promise<number> {
  const row = await db.insertInto("handover_images").values({
    kind: image.kind,
    photo_id: image.photoId,
    uploaded_by: image.userId,
    uploaded_at: image.at,
  }).returning("id").executeTakeFirstOrThrow();
  return row.id;
}

/** How many handover images `userId` sent that no submission took yet (docs/photos.md "Quotas"). */
export async function unusedHandoverImagesOf(db: QueryRunner, userId: number): Promise<number> {
  const row = await db.selectFrom("handover_images").select((eb) => eb.fn.countAll<number>().as("n"))
    .where("uploaded_by", "=", userId).where("movement_id", "is", null).executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface LockedHandoverImage {
  id: number;
  kind: HandoverImageKind;
  photo_id: number;
  uploaded_by: number;
  movement_id: number | null;
  /** The photo's storage key: the SHA-256 of its bytes. */
  sha256: string;
}

/** The staged handover images with these ids (those that exist), locked in id order until commit. */
export async function lockHandoverImages(trx: Tx, ids: number[]): Promise<LockedHandoverImage[]> {
  if (ids.length === 0) return [];
  return await trx.selectFrom("handover_images as h").innerJoin("photos as p", "p.id", "h.photo_id")
    .select(["h.id", "h.kind", "h.photo_id", "h.uploaded_by", "h.movement_id", "p.storage_key as sha256"])
    .where("h.id", "in", ids)
    .orderBy("h.id")
    .forUpdate("h")
    .execute();
}

/** Marks locked, unused images as taken by this movement leg; returns how many it marked. */
export async function markHandoverImagesUsed(
  trx: Tx,
  ids: number[],
  movementId: number,
  leg: MovementStage,
): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await trx.updateTable("handover_images").set({ movement_id: movementId, leg })
    .where("id", "in", ids).where("movement_id", "is", null)
    .returning("id").execute();
  return rows.length;
}

/** The storage keys (SHA-256 of the bytes) of these photos, by id. */
export async function photoKeysOf(db: QueryRunner, photoIds: number[]): Promise<Map<number, string>> {
  if (photoIds.length === 0) return new Map();
  const rows = await db.selectFrom("photos").select(["id", "storage_key"]).where("id", "in", photoIds)
    .execute();
  return new Map(rows.map((r) => [r.id, r.storage_key]));
}

/** Whether a handover of this movement leg is recorded already (a return trip handed in in parts). */
export async function handoverExists(
  db: QueryRunner,
  movementId: number,
  leg: MovementStage,
): Promise<boolean> {
  const row = await db.selectFrom("handovers").select("movement_id")
    .where("movement_id", "=", movementId).where("leg", "=", leg).executeTakeFirst();
  return row !== undefined;
}

export interface NewHandover {
  movementId: number;
  leg: MovementStage;
  receiverName: string | null;
  signaturePhotoId: number | null;
  unsignedReason: UnsignedReason | null;
  leftPhotoId: number | null;
  recordedAt: Date;
  recordedBy: number;
  digest: string;
}

export async function insertHandover(trx: Tx, h: NewHandover): Promise<void> {
  await trx.insertInto("handovers").values({
    movement_id: h.movementId,
    leg: h.leg,
    receiver_name: h.receiverName,
    signature_photo_id: h.signaturePhotoId,
    unsigned_reason: h.unsignedReason,
    left_photo_id: h.leftPhotoId,
    recorded_at: h.recordedAt,
    recorded_by: h.recordedBy,
    digest: h.digest,
  }).execute();
}

/** A handover as the pages and the evidence pack read it. */
export interface HandoverRow {
  movement_id: number;
  leg: MovementStage;
  receiver_name: string | null;
  unsigned_reason: UnsignedReason | null;
  recorded_at: Date;
  recorded_by_name: string | null;
  digest: string;
  signature_photo_id: number | null;
  signature_key: string | null;
  signature_bytes: number | null;
  signature_type: string | null;
  left_photo_id: number | null;
  left_key: string | null;
  left_bytes: number | null;
  left_type: string | null;
}

/** The handovers of these movements. */
export async function handoversOfMovements(db: QueryRunner, movementIds: number[]): Promise<HandoverRow[]> {
  if (movementIds.length === 0) return [];
  return await db.selectFrom("handovers as h")
    .leftJoin("users as u", "u.id", "h.recorded_by")
    .leftJoin("photos as s", "s.id", "h.signature_photo_id")
    .leftJoin("photos as l", "l.id", "h.left_photo_id")
    .select([
      "h.movement_id",
      "h.leg",
      "h.receiver_name",
      "h.unsigned_reason",
      "h.recorded_at",
      "u.name as recorded_by_name",
      "h.digest",
      "h.signature_photo_id",
      "s.storage_key as signature_key",
      "s.byte_size as signature_bytes",
      "s.content_type as signature_type",
      "h.left_photo_id",
      "l.storage_key as left_key",
      "l.byte_size as left_bytes",
      "l.content_type as left_type",
    ])
    .where("h.movement_id", "in", movementIds)
    .orderBy("h.movement_id").orderBy("h.leg")
    .execute();
}

/**
 * The legs of these movements the mobile app's handler recorded: its `handler.movement` audit entries
 * (db/queries/movements.ts), as `<movement id> <leg>`.
 */
export async function handlerRecordedLegs(db: QueryRunner, movementIds: number[]): Promise<Set<string>> {
  if (movementIds.length === 0) return new Set();
  const rows = await db.selectFrom("audit_log").select(["subject", "after"])
    .where("action", "=", "handler.movement")
    .where("subject", "in", movementIds.map((id) => `movement:${id}`))
    .execute();
  return new Set(rows.map((r) => {
    const after = (typeof r.after === "string" ? JSON.parse(r.after) : r.after) as { stage?: string } | null;
    return `${r.subject.slice("movement:".length)} ${after?.stage ?? ""}`;
  }));
}

/** Deletes up to `limit` unused staged handover images sent before `cutoff`; returns how many. */
export async function deleteUnusedHandoverImagesBefore(db: Db, cutoff: Date, limit: number): Promise<number> {
  const rows = await db.deleteFrom("handover_images")
    .where("id", "in", (eb) =>
      eb.selectFrom("handover_images").select("id")
        .where("movement_id", "is", null).where("uploaded_at", "<", cutoff)
        .orderBy("id").limit(limit))
    .returning("id").execute();
  return rows.length;
}
