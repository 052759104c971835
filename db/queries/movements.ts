/**
 * Queries of the movements family (parts_movements, deliver_parts) for the three movement submissions
 * (docs/protocol.md 3a/3b, D20) and the open return trips; the pages' reads are in movement_reads.ts. Every
 * function that locks or writes takes a Transaction, except `writeNewMovement`, whose one statement is all
 * or nothing and locks what it writes. Each one is a single statement whatever the number
 * of parts (arrays through `unnest` or multi-row VALUES), so a submission costs the same number of
 * statements for 1 or 50 parts.
 */
import { type RawBuilder, sql } from "kysely";
import { insertAnnouncementsSql, type OutboxWrite } from "@/db/queries/announcements.ts";
import { notifyChangeSql } from "@/db/queries/changes.ts";
import type {
  DeliverPart,
  MovementStage,
  MovementStatus,
  NewDeliverPartRow,
  NewPartsMovement,
  PartsMovement,
  PartStatus,
} from "@/db/schema.ts";
import type { Db } from "@/db/client.ts";
import type { QueryRunner, Tx } from "@/db/queries/compiled.ts";
import { latestReverseMovement } from "@/db/queries/claims.ts";

/**
 * A new movement's columns as a submission writes them (its id, part count, place and creation time are the
 * statement's or the database's).
 */
export type NewMovement = Required<
  Pick<
    NewPartsMovement,
    | "claim_id"
    | "movement_type"
    | "movement_status"
    | "picked_up_by"
    | "dropped_off_by"
    | "pick_up_at"
    | "dropped_off_at"
    | "repairer_id"
    | "location_type"
    | "hq_location_id"
  >
>;

/** One part of a new movement: its Deliver_Parts row's columns, with the staged image its photo came from. */
export type NewDeliverPart =
  & Pick<NewDeliverPartRow, "part_id" | "qty_ordered" | "pickup_photo_id">
  & { pickup_image_id: NonNullable<NewDeliverPartRow["pickup_image_id"]> };

/** A row of a submission's write statement: one Deliver_Parts it wrote or changed. */
type WrittenRow = Pick<DeliverPart, "id" | "part_id"> & {
  /** How many parts the statement's status flip changed (the same on every row). */
  flipped: number;
};

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
function flipAndHistory(f: StatusFlip, movementId: RawBuilder<number>, when: RawBuilder<boolean>) {
  return sql`f as (
      update parts_orders set status = ${f.to}::text, updated_at = ${f.at}::timestamptz
      where id = any(${f.ids}::int[]) and status = ${f.from}::text and ${when}
      returning id),
    h as (
      insert into part_status_history (part_id, from_status, to_status, changed_at, changed_by, via, movement_id)
      select v.part_id, ${f.from}::text, ${f.to}::text, ${f.at}::timestamptz, ${f.by}::int, 'movement', ${movementId}
      from unnest(${f.ids}::int[]) with ordinality as v(part_id, ord)
      where ${when}
      order by v.ord)`;
}

/**
 * The audit entry a handler submission writes with its movement (docs/dashboard.md "Audit trail"): the
 * client address it came from and the stage recorded; null for a tablet's (its session is the record).
 */
export interface MovementAudit {
  stage: MovementStage;
  sourceAddress: string;
}

/**
 * The movement's `handler.movement` audit entry, as a CTE of the submission's statement, so the movement
 * and its entry are written together or not at all; nothing when `audit` is null or `when` is false.
 */
function auditEntry(
  audit: MovementAudit | null,
  f: StatusFlip,
  movementId: RawBuilder<number>,
  claimId: RawBuilder<number>,
  when: RawBuilder<boolean>,
) {
  const after = audit === null
    ? null
    : JSON.stringify({ stage: audit.stage, source_address: audit.sourceAddress });
  return sql`x as (
      insert into audit_log (at, actor_id, action, subject, claim_id, after)
      select ${f.at}::timestamptz, ${f.by}::int, 'handler.movement', 'movement:' || ${movementId}, ${claimId},
        ${after}::jsonb
      where ${after}::jsonb is not null and ${when})`;
}

export interface NewMovementWrite {
  movement: NewMovement;
  deliverParts: NewDeliverPart[];
  delivered: boolean;
  flip: StatusFlip;
  linkOnManagement: boolean;
  outbox: OutboxWrite;
  /**
   * Reverse pickup: write nothing when the claim has an open return trip. The submission's read may be
   * stale (db/queries/submission_reads.ts); this statement starts after the claim row is locked, so its
   * snapshot holds the trip of a pickup that held the lock before.
   */
  unlessOpenTrip: boolean;
  audit: MovementAudit | null;
}

/**
 * Everything a new movement writes, in one statement (data-modifying CTEs): the movement, one Deliver_Parts
 * per part (request order; direct: the staged photo is the delivery photo too, so Delivery true), the
 * status flip and history rows, the link on the claim's management record (reverse leg 1) and the outbox
 * rows. References are checked at the end of the statement, so the rows may point at the new movement;
 * those of the per-part rows (Deliver_Parts, history) once per statement, whatever the number of parts
 * (db/migrations/20261220T0900_set_based_references.ts).
 * The movement stores its number of parts (`part_count`, the dashboard's index for sorting by it): they
 * are all written here and never added or removed later.
 * Every other write hangs on the movement row, so when a guard stops it nothing is written: all or
 * nothing, so the statement is safe on its own, outside a transaction (the drop-off's optimistic path,
 * lib/movements/submission.ts). The guards:
 * - `g` locks the parts (id order) that are still in the flip's `from` status and of the claim; the
 *   movement is written only when that is every part. PostgreSQL re-checks a row it waited for against
 *   its latest version, so a part a racing submission moved meanwhile is not counted. On the locked path
 *   the parts are already held by this transaction and `g` re-locks them at no cost.
 * - `unlessOpenTrip` (reverse pickup).
 */
export function writeNewMovementSql(w: NewMovementWrite) {
  const m = w.movement;
  const movementId = sql<number>`(select id from m)`;
  const written = sql<boolean>`exists (select 1 from m)`;
  const rows = w.deliverParts;
  const f = w.flip;
  return sql<WrittenRow & { movement_id: PartsMovement["id"] }>`
    with g as materialized (
      select id from parts_orders
      where id = any(${f.ids}::int[]) and status = ${f.from}::text and claim_id = ${m.claim_id}::int
      order by id for update),
    m as (
      insert into parts_movements (claim_id, movement_type, movement_status, picked_up_by, dropped_off_by,
        pick_up_at, dropped_off_at, repairer_id, location_type, hq_location_id, part_count)
      select ${m.claim_id}::int, ${m.movement_type}::text, ${m.movement_status}::text, ${m.picked_up_by}::int,
        ${m.dropped_off_by}::int, ${m.pick_up_at}::timestamptz, ${m.dropped_off_at}::timestamptz,
        ${m.repairer_id}::int, ${m.location_type}::text, ${m.hq_location_id}::int, ${rows.length}::int
      where (select count(*) from g) = ${f.ids.length}::int
        and not (${w.unlessOpenTrip}::boolean and exists (select 1 from parts_movements o
          where o.claim_id = ${m.claim_id}::int and o.movement_type = 'reverse'
            and o.movement_status = 'Parts Picked Up'))
      returning id),
    d as (
      insert into deliver_parts (movement_id, part_id, pickup, delivery, qty_ordered, pickup_image_id,
        delivery_image_id, pickup_photo_id, delivery_photo_id)
      select m.id, v.part_id, true, ${w.delivered}::boolean, v.qty_ordered, v.image_id,
        case when ${w.delivered}::boolean then v.image_id end, v.photo_id,
        case when ${w.delivered}::boolean then v.photo_id end
      from m, unnest(${rows.map((r) => r.part_id)}::int[], ${rows.map((r) => r.qty_ordered)}::int[],
        ${rows.map((r) => r.pickup_image_id)}::int[], ${rows.map((r) => r.pickup_photo_id)}::int[])
        with ordinality as v(part_id, qty_ordered, image_id, photo_id, ord)
      order by v.ord
      returning id, part_id),
    ${flipAndHistory(f, movementId, written)},
    l as (
      update claim_management set parts_movement_id = ${movementId}
      where claim_id = ${m.claim_id}::int and ${w.linkOnManagement}::boolean and ${written}),
    a as (${insertAnnouncementsSql(w.outbox, movementId, written)}),
    ${auditEntry(w.audit, f, movementId, sql<number>`${m.claim_id}::int`, written)},
    n as (${notifyChangeSql("movements")})
    select d.id, d.part_id, ${movementId} as movement_id, (select count(*) from f)::int as flipped,
      (select sent from n) as notified
    from d`;
}

/** Runs `writeNewMovementSql`; null when a guard stopped it (nothing written). */
export async function writeNewMovement(
  db: Db | Tx,
  w: NewMovementWrite,
): Promise<(Written & { movementId: number }) | null> {
  const result = await writeNewMovementSql(w).execute(db);
  if (result.rows.length === 0) return null;
  return {
    movementId: result.rows[0].movement_id,
    deliveryOf: new Map(result.rows.map((r) => [r.part_id, r.id])),
    flipped: result.rows[0].flipped,
  };
}

/** What leg 2 (D20) writes: the trip, its parts dropped off with their photos, the flip and the outbox. */
export interface Leg2DropOffWrite {
  movementId: number;
  rows: { part_id: number; image_id: number; photo_id: number }[];
  flip: StatusFlip;
  outbox: OutboxWrite;
  audit: MovementAudit | null;
}

/**
 * Everything leg 2 (D20) writes, in one statement: the trip's Deliver_Parts of these parts get Delivery true
 * and the drop-off photo (only while not yet delivered), the status flip and history rows, the trip's
 * driver and time of drop-off, and the outbox rows. The trip becomes `Parts Dropped off` once no part is
 * left on the truck: the CTEs do not see each other's changes, so "left" is a part not delivered before
 * this statement and not among the parts it delivers. The trip row is locked by the caller, so no other
 * leg 2 of this trip runs in between.
 */
export function writeLeg2DropOffSql(w: Leg2DropOffWrite) {
  const { rows, flip } = w;
  const movementId = sql<number>`${w.movementId}::int`;
  return sql<WrittenRow & Pick<PartsMovement, "movement_status">>`
    with d as (
      update deliver_parts d
      set delivery = true, delivery_image_id = v.image_id, delivery_photo_id = v.photo_id
      from unnest(${rows.map((r) => r.part_id)}::int[], ${rows.map((r) => r.image_id)}::int[],
                  ${rows.map((r) => r.photo_id)}::int[]) as v(part_id, image_id, photo_id)
      where d.movement_id = ${movementId} and d.part_id = v.part_id and d.delivery = false
      returning d.id, d.part_id),
    ${flipAndHistory(flip, movementId, sql<boolean>`true`)},
    t as (
      update parts_movements
      set dropped_off_by = ${flip.by}::int, dropped_off_at = ${flip.at}::timestamptz,
        movement_status = case when exists (select 1 from deliver_parts x
          where x.movement_id = ${movementId} and x.delivery = false and x.part_id <> all(${flip.ids}::int[]))
          then movement_status else 'Parts Dropped off' end
      where id = ${movementId}
      returning movement_status, claim_id),
    a as (${insertAnnouncementsSql(w.outbox, movementId)}),
    ${auditEntry(w.audit, flip, movementId, sql<number>`(select claim_id from t)`, sql<boolean>`true`)},
    n as (${notifyChangeSql("movements")})
    select d.id, d.part_id, (select count(*) from f)::int as flipped,
      (select movement_status from t) as movement_status, (select sent from n) as notified
    from d`;
}

/** Runs `writeLeg2DropOffSql` in the transaction that locked the trip row. */
export async function writeLeg2DropOff(
  trx: Tx,
  w: Leg2DropOffWrite,
): Promise<Written & { movementStatus: MovementStatus }> {
  const result = await writeLeg2DropOffSql(w).execute(trx);
  return {
    deliveryOf: new Map(result.rows.map((r) => [r.part_id, r.id])),
    flipped: result.rows[0]?.flipped ?? 0,
    movementStatus: result.rows[0]?.movement_status ?? "Parts Picked Up",
  };
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
