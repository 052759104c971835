/**
 * Queries of the movements family (parts_movements, deliver_parts) for the three movement submissions
 * (docs/protocol.md 3a/3b, D20) and the open return trips; the pages' reads are in movement_reads.ts. Every
 * function that locks or writes takes a Transaction. Each one is a single statement whatever the number
 * of parts (arrays through `unnest` or multi-row VALUES), so a submission costs the same number of
 * statements for 1 or 50 parts.
 */
import { type RawBuilder, sql } from "kysely";
import { insertAnnouncementsSql, type OutboxWrite } from "@/db/queries/announcements.ts";
import { notifyChangeSql } from "@/db/queries/changes.ts";
import type { MovementStatus, PartStatus } from "@/db/schema.ts";
import type { QueryRunner, Tx } from "@/db/queries/compiled.ts";
import { latestReverseMovement } from "@/db/queries/claims.ts";
import { type StagedImageRow, stagedImagesQuery } from "@/db/queries/photos.ts";
import { activeRepairerQuery } from "@/db/queries/places.ts";

/** An active repairer as a drop-off names it. */
export interface Repairer {
  id: number;
  name: string;
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

export interface NewDeliverPart {
  part_id: number;
  qty_ordered: number;
  pickup_image_id: number;
  pickup_photo_id: number;
}

/** A submission's status flip: `from` → `to` for these parts (request order), by the user, at `at`. */
export interface StatusFlip {
  ids: number[];
  from: PartStatus;
  to: PartStatus;
  at: Date;
  by: number;
}

/** What a submission's one write statement reports back. */
export interface Written {
  /** `part_id → delivery id` of the Deliver_Parts it wrote or changed. */
  deliveryOf: Map<number, number>;
  /** How many parts the conditional status flip changed. */
  flipped: number;
}

/**
 * The status flip guarded by the status (a conditional UPDATE: a part no longer `from` is left alone) and
 * one history row per part (via `movement`), as CTEs of the submission's statement. The caller compares
 * `flipped` with the parts it checked and rolls back on a difference.
 */
function flipAndHistory(f: StatusFlip, movementId: RawBuilder<number>) {
  return sql`f as (
      update parts_orders set status = ${f.to}::text, updated_at = ${f.at}::timestamptz
      where id = any(${f.ids}::int[]) and status = ${f.from}::text
      returning id),
    h as (
      insert into part_status_history (part_id, from_status, to_status, changed_at, changed_by, via, movement_id)
      select v.part_id, ${f.from}::text, ${f.to}::text, ${f.at}::timestamptz, ${f.by}::int, 'movement', ${movementId}
      from unnest(${f.ids}::int[]) with ordinality as v(part_id, ord)
      order by v.ord)`;
}

/**
 * Everything a new movement writes, in one statement (data-modifying CTEs): the movement, one Deliver_Parts
 * per part (request order; direct: the staged photo is the delivery photo too, so Delivery true), the
 * status flip and history rows, the link on the claim's management record (reverse leg 1) and the outbox
 * rows. Foreign keys are checked at the end of the statement, so the rows may point at the new movement.
 */
export async function writeNewMovement(
  trx: Tx,
  w: {
    movement: NewMovement;
    deliverParts: NewDeliverPart[];
    delivered: boolean;
    flip: StatusFlip;
    linkOnManagement: boolean;
    outbox: OutboxWrite;
  },
): Promise<Written & { movementId: number }> {
  const m = w.movement;
  const movementId = sql<number>`(select id from m)`;
  const rows = w.deliverParts;
  const result = await sql<{ id: number; part_id: number; movement_id: number; flipped: number }>`
    with m as (
      insert into parts_movements (claim_id, movement_type, movement_status, picked_up_by, dropped_off_by,
        pick_up_at, dropped_off_at, repairer_id, location_type, hq_location_id)
      values (${m.claim_id}::int, ${m.movement_type}::text, ${m.movement_status}::text, ${m.picked_up_by}::int,
        ${m.dropped_off_by}::int, ${m.pick_up_at}::timestamptz, ${m.dropped_off_at}::timestamptz,
        ${m.repairer_id}::int, ${m.location_type}::text, ${m.hq_location_id}::int)
      returning id),
    d as (
      insert into deliver_parts (movement_id, part_id, pickup, delivery, qty_ordered, pickup_image_id,
        delivery_image_id, pickup_photo_id, delivery_photo_id)
      select ${movementId}, v.part_id, true, ${w.delivered}::boolean, v.qty_ordered, v.image_id,
        case when ${w.delivered}::boolean then v.image_id end, v.photo_id,
        case when ${w.delivered}::boolean then v.photo_id end
      from unnest(${rows.map((r) => r.part_id)}::int[], ${rows.map((r) => r.qty_ordered)}::int[],
        ${rows.map((r) => r.pickup_image_id)}::int[], ${rows.map((r) => r.pickup_photo_id)}::int[])
        with ordinality as v(part_id, qty_ordered, image_id, photo_id, ord)
      order by v.ord
      returning id, part_id),
    ${flipAndHistory(w.flip, movementId)},
    l as (
      update claim_management set parts_movement_id = ${movementId}
      where claim_id = ${m.claim_id}::int and ${w.linkOnManagement}::boolean),
    a as (${insertAnnouncementsSql(w.outbox, movementId)}),
    n as (${notifyChangeSql("movements")})
    select d.id, d.part_id, ${movementId} as movement_id, (select count(*) from f)::int as flipped,
      (select sent from n) as notified
    from d`
    .execute(trx);
  return {
    movementId: result.rows[0].movement_id,
    deliveryOf: new Map(result.rows.map((r) => [r.part_id, r.id])),
    flipped: result.rows[0].flipped,
  };
}

/**
 * Everything leg 2 (D20) writes, in one statement: the trip's Deliver_Parts of these parts get Delivery true
 * and the drop-off photo (only while not yet delivered), the status flip and history rows, the trip's
 * driver and time of drop-off, and the outbox rows. The trip becomes `Parts Dropped off` once no part is
 * left on the truck: the CTEs do not see each other's changes, so "left" is a part not delivered before
 * this statement and not among the parts it delivers. The trip row is locked by the caller, so no other
 * leg 2 of this trip runs in between.
 */
export async function writeLeg2DropOff(
  trx: Tx,
  w: {
    movementId: number;
    rows: { part_id: number; image_id: number; photo_id: number }[];
    flip: StatusFlip;
    outbox: OutboxWrite;
  },
): Promise<Written & { movementStatus: MovementStatus }> {
  const { rows, flip } = w;
  const movementId = sql<number>`${w.movementId}::int`;
  const result = await sql<{ id: number; part_id: number; flipped: number; movement_status: MovementStatus }>`
    with d as (
      update deliver_parts d
      set delivery = true, delivery_image_id = v.image_id, delivery_photo_id = v.photo_id
      from unnest(${rows.map((r) => r.part_id)}::int[], ${rows.map((r) => r.image_id)}::int[],
                  ${rows.map((r) => r.photo_id)}::int[]) as v(part_id, image_id, photo_id)
      where d.movement_id = ${movementId} and d.part_id = v.part_id and d.delivery = false
      returning d.id, d.part_id),
    ${flipAndHistory(flip, movementId)},
    t as (
      update parts_movements
      set dropped_off_by = ${flip.by}::int, dropped_off_at = ${flip.at}::timestamptz,
        movement_status = case when exists (select 1 from deliver_parts x
          where x.movement_id = ${movementId} and x.delivery = false and x.part_id <> all(${flip.ids}::int[]))
          then movement_status else 'Parts Dropped off' end
      where id = ${movementId}
      returning movement_status),
    a as (${insertAnnouncementsSql(w.outbox, movementId)}),
    n as (${notifyChangeSql("movements")})
    select d.id, d.part_id, (select count(*) from f)::int as flipped,
      (select movement_status from t) as movement_status, (select sent from n) as notified
    from d`.execute(trx);
  return {
    deliveryOf: new Map(result.rows.map((r) => [r.part_id, r.id])),
    flipped: result.rows[0]?.flipped ?? 0,
    movementStatus: result.rows[0]?.movement_status ?? "Parts Picked Up",
  };
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

/**
 * One earlier step matching a requested (part, image) pair (D16). Read as JSON, so its timestamps are ISO
 * strings.
 */
export interface AppliedStep {
  delivery_id: number;
  part_id: number;
  movement_id: number;
  changed_by: number | null;
  changed_at: string;
  /** How many parts that earlier submission moved (same movement, user, time and target status). */
  submission_size: number;
  same_vehicle: boolean;
  movement_status: MovementStatus;
  dropped_off_by: number | null;
  dropped_off_at: string | null;
}

/** Which earlier steps to look for: see `checkReads`. */
export interface AppliedStepsQuery {
  pairs: { part_id: number; image_id: number }[];
  imageColumn: "pickup_image_id" | "delivery_image_id";
  toStatus: PartStatus;
  claimId: number;
}

/**
 * What an earlier submission left for these (part, image) pairs (D16): the Deliver_Parts that used the
 * image in `imageColumn` for that part, and the history row of the part reaching `toStatus` on that
 * movement. A staged image is used at most once (D14), so the image ids pin down the earlier submission.
 */
function appliedStepsSql(q: AppliedStepsQuery) {
  const column = sql.ref(`d.${q.imageColumn}`);
  return sql<AppliedStep>`
    select d.id as delivery_id, d.part_id, d.movement_id, h.changed_by, h.changed_at,
      (select count(*) from part_status_history g
        where g.movement_id = h.movement_id and g.via = 'movement' and g.to_status = h.to_status
          and g.changed_at = h.changed_at and g.changed_by is not distinct from h.changed_by
      )::int as submission_size,
      c.registration_norm = (select registration_norm from claims where id = ${q.claimId}) as same_vehicle,
      m.movement_status, m.dropped_off_by, m.dropped_off_at
    from unnest(${q.pairs.map((p) => p.part_id)}::int[], ${q.pairs.map((p) => p.image_id)}::int[])
      as r(part_id, image_id)
    join deliver_parts d on d.part_id = r.part_id and ${column} = r.image_id
    join parts_movements m on m.id = d.movement_id
    join claims c on c.id = m.claim_id
    join part_status_history h on h.movement_id = d.movement_id and h.part_id = d.part_id
      and h.via = 'movement' and h.to_status = ${q.toStatus}`;
}

/**
 * Everything a submission's checks read once its parts are locked, in one statement: the earlier steps of
 * an identical submission (D16), the staged images (D14), for leg 2 the ids of the trip's parts and for a
 * drop-off its repair shop if active (D15). Run
 * after the locking statement, so its snapshot holds what a submission that held the locks before
 * committed.
 */
export async function checkReads(
  trx: Tx,
  q: AppliedStepsQuery & { imageIds: number[]; tripId: number | null; repairerId: number | null },
): Promise<
  { steps: AppliedStep[]; staged: StagedImageRow[]; tripPartIds: number[]; repairer: Repairer | null }
> {
  const { rows: [row] } = await sql<
    { steps: AppliedStep[]; staged: StagedImageRow[]; trip_part_ids: number[]; repairer: Repairer | null }
  >`
    select
      (select coalesce(json_agg(s), '[]'::json) from (${appliedStepsSql(q)}) s) as steps,
      (select coalesce(json_agg(u), '[]'::json) from (${stagedImagesQuery(trx, q.imageIds)}) u) as staged,
      array(select part_id from deliver_parts where movement_id = ${q.tripId}::int) as trip_part_ids,
      (select row_to_json(r) from (${activeRepairerQuery(trx, q.repairerId)}) r) as repairer`
    .execute(trx);
  return { steps: row.steps, staged: row.staged, tripPartIds: row.trip_part_ids, repairer: row.repairer };
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
