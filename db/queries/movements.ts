/**
 * Queries of the three movement submissions (docs/protocol.md 3a/3b, D20). Every function that locks or writes
 * takes a Transaction. Each one is a single statement whatever the number of parts (arrays through
 * `unnest` or multi-row VALUES), so a submission costs the same number of statements for 1 or 50 parts.
 */
import { sql, type Transaction } from "kysely";
import type { Db } from "@/db/client.ts";
import type { Database, MovementStatus, PartStatus } from "@/db/schema.ts";

export type Tx = Transaction<Database>;
type Reader = Pick<Db, "selectFrom">;

/** A part row as the checks need it, locked by `lockPartsInIdOrder`. */
export interface LockedPart {
  id: number;
  claim_id: number;
  part_no: string;
  description: string;
  qty_ordered: number;
  status: PartStatus;
}

/**
 * Locks the given parts, in id order (so two submissions over overlapping parts cannot deadlock), and
 * returns the ones that exist. The lock is held until the transaction ends: the status read here is the
 * status the conditional update later sees.
 */
export async function lockPartsInIdOrder(trx: Tx, ids: number[]): Promise<LockedPart[]> {
  return await trx.selectFrom("parts_orders")
    .select(["id", "claim_id", "part_no", "description", "qty_ordered", "status"])
    .where("id", "=", sql<number>`any(${ids}::int[])`)
    .orderBy("id")
    .forUpdate()
    .execute();
}

/** A staged photo (Parts_Uploaded_Images row) and whether a Deliver_Parts already uses it (D14). */
export interface StagedPhoto {
  id: number;
  part_id: number;
  movement_stage: string;
  photo_id: number | null;
  used: boolean;
}

export async function stagedPhotos(trx: Tx, imageIds: number[]): Promise<StagedPhoto[]> {
  if (imageIds.length === 0) return [];
  return await trx.selectFrom("uploaded_images as u")
    .select([
      "u.id",
      "u.part_id",
      "u.movement_stage",
      "u.photo_id",
      sql<boolean>`exists (select 1 from deliver_parts d
        where d.pickup_image_id = u.id or d.delivery_image_id = u.id)`.as("used"),
    ])
    .where("u.id", "=", sql<number>`any(${imageIds}::int[])`)
    .execute();
}

export async function activeRepairer(db: Reader, id: number) {
  return await db.selectFrom("repairers").select(["id", "name"])
    .where("id", "=", id).where("active", "=", true).executeTakeFirst();
}

/** The HQ a reverse trip goes to (D15): the user's home HQ, else the first HQ location by id. */
export async function hqLocationFor(db: Reader, homeHqId: number | null) {
  return await db.selectFrom("hq_locations").select(["id", "name"])
    .orderBy(sql`case when id = ${homeHqId ?? 0} then 0 else 1 end`)
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
}

/**
 * The claim's open return trip (a reverse movement still `Parts Picked Up`), if any, read under a lock on
 * the claim row: two pickups racing on one claim queue here, so the second sees the first's trip.
 */
export async function lockClaimOpenTrip(trx: Tx, claimId: number): Promise<number | null> {
  await trx.selectFrom("claims").select("id").where("id", "=", claimId).forUpdate().execute();
  const trip = await trx.selectFrom("parts_movements").select("id")
    .where("claim_id", "=", claimId)
    .where("movement_type", "=", "reverse")
    .where("movement_status", "=", "Parts Picked Up")
    .executeTakeFirst();
  return trip?.id ?? null;
}

/** The name of the claim's repairer (the shop a reverse pickup collects from), if it has one. */
export async function claimRepairerName(db: Reader, claimId: number): Promise<string | null> {
  const row = await db.selectFrom("claim_management as cm")
    .innerJoin("repairers as r", "r.id", "cm.repairer_id")
    .select("r.name")
    .where("cm.claim_id", "=", claimId)
    .executeTakeFirst();
  return row?.name ?? null;
}

export interface NewMovement {
  claim_id: number;
  movement_type: "direct" | "reverse";
  movement_status: MovementStatus;
  picked_up_by: number;
  dropped_off_by: number | null;
  pick_up_at: Date;
  dropped_off_at: Date | null;
  repairer_id: number | null;
  location_type: "HQ" | null;
  hq_location_id: number | null;
}

export async function insertMovement(trx: Tx, movement: NewMovement): Promise<number> {
  const row = await trx.insertInto("parts_movements").values(movement).returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}

export interface NewDeliverPart {
  part_id: number;
  qty_ordered: number;
  pickup_image_id: number;
  pickup_photo_id: number;
  /** Direct flow: the same staged image and photo; reverse pickup: null (set by leg 2). */
  delivery_image_id: number | null;
  delivery_photo_id: number | null;
}

/** One Deliver_Parts per part, in one statement; returns `part_id → delivery id`. */
export async function insertDeliverParts(
  trx: Tx,
  movementId: number,
  rows: NewDeliverPart[],
): Promise<Map<number, number>> {
  const inserted = await trx.insertInto("deliver_parts")
    .values(rows.map((r) => ({
      movement_id: movementId,
      part_id: r.part_id,
      pickup: true,
      delivery: r.delivery_photo_id !== null,
      qty_ordered: r.qty_ordered,
      pickup_image_id: r.pickup_image_id,
      delivery_image_id: r.delivery_image_id,
      pickup_photo_id: r.pickup_photo_id,
      delivery_photo_id: r.delivery_photo_id,
    })))
    .returning(["id", "part_id"])
    .execute();
  return new Map(inserted.map((r) => [r.part_id, r.id]));
}

/**
 * Leg 2 (D20): the trip's Deliver_Parts of these parts get Delivery true and the drop-off photo, only
 * while not yet delivered. Returns `part_id → delivery id` of the rows it changed.
 */
export async function markDelivered(
  trx: Tx,
  movementId: number,
  rows: { part_id: number; image_id: number; photo_id: number }[],
): Promise<Map<number, number>> {
  const result = await sql<{ id: number; part_id: number }>`
    update deliver_parts d
    set delivery = true, delivery_image_id = v.image_id, delivery_photo_id = v.photo_id
    from unnest(${rows.map((r) => r.part_id)}::int[], ${rows.map((r) => r.image_id)}::int[],
                ${rows.map((r) => r.photo_id)}::int[]) as v(part_id, image_id, photo_id)
    where d.movement_id = ${movementId} and d.part_id = v.part_id and d.delivery = false
    returning d.id, d.part_id`.execute(trx);
  return new Map(result.rows.map((r) => [r.part_id, r.id]));
}

/**
 * The status flip: `from` → `to` for these parts, guarded by the status (a conditional UPDATE), so a part
 * that is no longer `from` is left alone. Returns the ids it changed.
 */
export async function flipStatuses(
  trx: Tx,
  ids: number[],
  from: PartStatus,
  to: PartStatus,
  at: Date,
): Promise<number[]> {
  const rows = await trx.updateTable("parts_orders")
    .set({ status: to, updated_at: at })
    .where("id", "=", sql<number>`any(${ids}::int[])`)
    .where("status", "=", from)
    .returning("id")
    .execute();
  return rows.map((r) => r.id);
}

/** One history row per part for a movement's status change (via `movement`). */
export async function insertMovementHistory(
  trx: Tx,
  rows: { part_id: number; from_status: PartStatus; to_status: PartStatus }[],
  movementId: number,
  changedBy: number,
  at: Date,
): Promise<void> {
  await trx.insertInto("part_status_history")
    .values(rows.map((r) => ({
      ...r,
      changed_at: at,
      changed_by: changedBy,
      via: "movement" as const,
      movement_id: movementId,
    })))
    .execute();
}

/** docs/protocol.md 3b rule 3: the reverse movement is linked on the claim's management record. */
export async function linkMovementOnManagement(trx: Tx, claimId: number, movementId: number): Promise<void> {
  await trx.updateTable("claim_management").set({ parts_movement_id: movementId })
    .where("claim_id", "=", claimId).execute();
}

/**
 * A movement locked for leg 2, with its HQ, and whether its claim is of the same vehicle as `claimId`
 * (the claim the rego resolved to: after a trip completes, a retry may resolve to another claim of the
 * same vehicle, D11).
 */
export async function lockMovement(trx: Tx, id: number, claimId: number) {
  return await trx.selectFrom("parts_movements as m")
    .innerJoin("claims as c", "c.id", "m.claim_id")
    .leftJoin("hq_locations as h", "h.id", "m.hq_location_id")
    .select([
      "m.id",
      "m.claim_id",
      "m.movement_type",
      "m.movement_status",
      "c.registration",
      "h.name as hq_name",
      sql<boolean>`c.registration_norm = (select registration_norm from claims where id = ${claimId})`
        .as("same_vehicle"),
    ])
    .where("m.id", "=", id)
    .forUpdate("m")
    .executeTakeFirst();
}

/** The Deliver_Parts of a movement: which parts are on the trip and whether each is back at HQ. */
export async function tripParts(trx: Tx, movementId: number) {
  return await trx.selectFrom("deliver_parts").select(["id", "part_id", "delivery"])
    .where("movement_id", "=", movementId).execute();
}

/**
 * Leg 2's end: the driver and time of the drop-off, and `Parts Dropped off` once no part of the trip is
 * still on the truck (the update sees this transaction's own Deliver_Parts changes).
 */
export async function recordDropOff(
  trx: Tx,
  movementId: number,
  userId: number,
  at: Date,
): Promise<MovementStatus> {
  const row = await trx.updateTable("parts_movements")
    .set({
      dropped_off_by: userId,
      dropped_off_at: at,
      movement_status: sql<MovementStatus>`case when exists (select 1 from deliver_parts d
        where d.movement_id = ${movementId} and d.delivery = false)
        then movement_status else 'Parts Dropped off' end`,
    })
    .where("id", "=", movementId)
    .returning("movement_status")
    .executeTakeFirstOrThrow();
  return row.movement_status;
}

/** One earlier step matching a requested (part, image) pair: see `findAppliedSubmission`. */
export interface AppliedStep {
  delivery_id: number;
  part_id: number;
  movement_id: number;
  changed_by: number | null;
  changed_at: Date;
  /** How many parts that earlier submission moved (same movement, user, time and target status). */
  submission_size: number;
  same_vehicle: boolean;
  movement_status: MovementStatus;
  dropped_off_by: number | null;
  dropped_off_at: Date | null;
}

/**
 * What an earlier submission left for these (part, image) pairs (D16): the Deliver_Parts that used the
 * image in `imageColumn` for that part, and the history row of the part reaching `toStatus` on that
 * movement. A staged image is used at most once (D14), so the image ids pin down the earlier submission.
 */
export async function findAppliedSteps(
  trx: Tx,
  opts: {
    pairs: { part_id: number; image_id: number }[];
    imageColumn: "pickup_image_id" | "delivery_image_id";
    toStatus: PartStatus;
    claimId: number;
  },
): Promise<AppliedStep[]> {
  const { pairs, toStatus } = opts;
  const column = sql.ref(`d.${opts.imageColumn}`);
  const result = await sql<AppliedStep>`
    select d.id as delivery_id, d.part_id, d.movement_id, h.changed_by, h.changed_at,
      (select count(*) from part_status_history g
        where g.movement_id = h.movement_id and g.via = 'movement' and g.to_status = h.to_status
          and g.changed_at = h.changed_at and g.changed_by is not distinct from h.changed_by
      )::int as submission_size,
      c.registration_norm = (select registration_norm from claims where id = ${opts.claimId}) as same_vehicle,
      m.movement_status, m.dropped_off_by, m.dropped_off_at
    from unnest(${pairs.map((p) => p.part_id)}::int[], ${pairs.map((p) => p.image_id)}::int[])
      as r(part_id, image_id)
    join deliver_parts d on d.part_id = r.part_id and ${column} = r.image_id
    join parts_movements m on m.id = d.movement_id
    join claims c on c.id = m.claim_id
    join part_status_history h on h.movement_id = d.movement_id and h.part_id = d.part_id
      and h.via = 'movement' and h.to_status = ${toStatus}`.execute(trx);
  return result.rows;
}
