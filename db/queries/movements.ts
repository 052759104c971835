/**
 * Queries of the movements family (parts_movements, deliver_parts) for the three movement submissions
 * (docs/protocol.md 3a/3b, D20) and the open return trips; the pages' reads are in movement_reads.ts. Every
 * function that locks or writes takes a Transaction. Each one is a single statement whatever the number
 * of parts (arrays through `unnest` or multi-row VALUES), so a submission costs the same number of
 * statements for 1 or 50 parts.
 */
import { sql } from "kysely";
import type { MovementStatus, PartStatus } from "@/db/schema.ts";
import type { QueryRunner, Tx } from "@/db/queries/compiled.ts";
import { latestReverseMovement } from "@/db/queries/claims.ts";

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

// --- open return trips (D20): a part on one is on a truck until the driver drops it off at HQ ---

/**
 * Whether the part rides on the claim's open return trip: the claim's latest reverse movement is still
 * `Parts Picked Up` and holds a Deliver_Parts row for the part not yet delivered to HQ (D20).
 */
export async function isOnOpenReturnTrip(db: QueryRunner, claimId: number, partId: number): Promise<boolean> {
  const trip = await latestReverseMovement(db, claimId);
  if (!trip || trip.movement_status !== "Parts Picked Up") return false;
  const row = await db.selectFrom("deliver_parts").select("id")
    .where("movement_id", "=", trip.id).where("part_id", "=", partId).where("delivery", "=", false)
    .executeTakeFirst();
  return row !== undefined;
}

/** The open reverse movement (picked up, not yet dropped off) carrying this part, or null. */
export async function openReturnTripOf(db: QueryRunner, partId: number): Promise<number | null> {
  const row = await db.selectFrom("deliver_parts as d")
    .innerJoin("parts_movements as m", "m.id", "d.movement_id")
    .select("m.id")
    .where("d.part_id", "=", partId)
    .where("d.delivery", "=", false)
    .where("m.movement_type", "=", "reverse")
    .where("m.movement_status", "=", "Parts Picked Up")
    .orderBy("m.id", "desc")
    .executeTakeFirst();
  return row?.id ?? null;
}

/** What leg 2 lists: the trip's parts picked up and not yet delivered to HQ, in Deliver_Parts order (D12). */
export async function partsOnTruck(db: QueryRunner, movementId: number) {
  return await db.selectFrom("deliver_parts as d")
    .innerJoin("parts_orders as p", "p.id", "d.part_id")
    .select(["d.id as delivery_id", "p.id as parts_order_id", "p.description", "p.part_no"])
    .where("d.movement_id", "=", movementId)
    .where("d.pickup", "=", true)
    .where("d.delivery", "=", false)
    .orderBy("d.id")
    .execute();
}
