/**
 * A movement submission's one "lock and read" statement (docs/submissions-and-announcements.md, "Cost": a
 * submission is BEGIN, this, the write statement, COMMIT; a drop-off first runs it with `lock: false`,
 * outside a transaction, and then its write statement on its own: lib/movements/submission.ts). In one
 * statement: the acting user (active, by e-mail), D11's claim resolution (db/queries/claims.ts), the row
 * locks — the reverse pickup's claim row or leg 2's trip row first, then the parts in id order — and
 * everything the checks read: the earlier steps of an identical submission (D16), the staged images (D14),
 * leg 2's trip and its parts, the drop-off's repair shop (D15), the pickup's open trip, HQ and shop.
 *
 * Lock modes: the claim and trip rows are taken FOR NO KEY UPDATE, which serialises two pickups of a claim
 * (or two drop-offs of a trip) but not the foreign-key checks (KEY SHARE) of other writers: every movement
 * and every staged upload checks its claim row while it holds or waits for parts, so a FOR UPDATE on the
 * claim would deadlock with them whichever order the pickup took (the concurrent state-machine test found
 * both orders). Claim first, then parts, is also the import's order. The parts stay FOR UPDATE, as before.
 * The order is forced, not left to the planner: the parts' CTE has a one-time filter reading the claim and
 * trip CTEs, so they are locked first; all three are MATERIALIZED and read whole (the claim's through the
 * open-trip read).
 *
 * Staleness (READ COMMITTED): the statement's snapshot is taken when it starts, before any lock wait. The
 * locked rows come back in their latest committed version (PostgreSQL re-reads a row it waited for), but
 * the other reads do not see what a submission that held the locks committed meanwhile. So a read that
 * refuses may be stale, and lib/movements/submission.ts re-reads (same statement, the claim pinned, locks
 * already held, fresh snapshot) before it answers a refusal; a stale read that lets a submission through
 * is stopped by the write statement's own guards (db/queries/movements.ts), whose snapshot is taken after
 * every lock is held.
 */
import { sql } from "kysely";
import {
  type ClaimFlow,
  type ClaimResolution,
  claimResolutionColumns,
  claimResolutionCtes,
} from "@/db/queries/claims.ts";
import type { Db } from "@/db/client.ts";
import type { QueryRunner, Tx } from "@/db/queries/compiled.ts";
import { containsPattern } from "@/db/queries/like.ts";
import type { LockedPart } from "@/db/queries/parts.ts";
import { type StagedImageRow, stagedImagesQuery } from "@/db/queries/photos.ts";
import { activeRepairerQuery, hqLocationQuery } from "@/db/queries/places.ts";
import type { JsonRow } from "@/db/queries/json_row.ts";
import type {
  Claim,
  DeliverPart,
  HqLocation,
  PartsMovement,
  PartStatus,
  PartStatusChange,
  Repairer,
  User,
} from "@/db/schema.ts";

/**
 * One earlier step matching a requested (part, image) pair (D16): the Deliver_Parts that used the image, the
 * history row of the part's status change on that movement, and the movement. Read as JSON, so its
 * timestamps are ISO strings.
 */
export interface AppliedStep
  extends
    Pick<DeliverPart, "part_id" | "movement_id">,
    JsonRow<Pick<PartStatusChange, "changed_by" | "changed_at">>,
    JsonRow<Pick<PartsMovement, "movement_status" | "dropped_off_by" | "dropped_off_at">> {
  delivery_id: DeliverPart["id"];
  /** How many parts that earlier submission moved (same movement, user, time and target status). */
  submission_size: number;
  same_vehicle: boolean;
}

/** Which earlier steps to look for (D16): the Deliver_Parts that used each image for its part. */
export interface AppliedStepsQuery {
  pairs: { part_id: number; image_id: number }[];
  imageColumn: "pickup_image_id" | "delivery_image_id";
  toStatus: PartStatus;
}

/** Leg 2's trip row, locked, with its claim's registration, its HQ and whether it is the rego's vehicle. */
export interface LockedTrip
  extends
    Pick<PartsMovement, "id" | "claim_id" | "movement_type" | "movement_status">,
    Pick<Claim, "registration"> {
  hq_name: HqLocation["name"] | null;
  /** The trip's claim is of the vehicle the rego resolved to (after a trip completes, a retry may resolve
   * to another claim of the same vehicle, D11). */
  same_vehicle: boolean;
}

export interface SubmissionReadQuery {
  /** The acting user's e-mail, or null when the user is already known. */
  email: string | null;
  /** The roles the user of `email` may have; another role reads as no user (the handler's HANDLER_ROLES). */
  roles: readonly string[];
  /** Home HQ of an already known user (the looked-up user's own otherwise). */
  knownHomeHqId: number | null;
  /** The normalised rego, null when too short to search. */
  norm: string | null;
  /** Whether `norm` may match a part of a registration (D11), or only a whole one (D30). */
  contains: boolean;
  flow: ClaimFlow;
  /** A claim already resolved by an earlier read of this transaction: no vehicle search. */
  pinnedClaimId: number | null;
  /** Reverse pickup: lock the claim row (one open trip per claim) and read its open trip, HQ and shop. */
  pickup: boolean;
  /** Leg 2: the trip to lock and read. */
  tripId: number | null;
  /** The confirmed parts, read in id order (and locked, with `lock`). */
  partIds: number[];
  /**
   * Lock the parts FOR UPDATE (the locked path). A drop-off's first, optimistic read locks nothing: its
   * write statement locks the parts itself and writes only if every one is still as read
   * (lib/movements/submission.ts).
   */
  lock: boolean;
  steps: AppliedStepsQuery;
  imageIds: number[];
  /** Drop-off: the shop chosen (D15). */
  repairerId: number | null;
}

/**
 * The statement's one row: each column a value, a row or a row set of its tables, typed from db/schema.ts
 * (rows and row sets come as JSON: `JsonRow`).
 */
export interface SubmissionRead extends ClaimResolution {
  user: JsonRow<Pick<User, "id" | "name" | "home_hq_id">> | null;
  /** The confirmed parts that exist, locked, in id order. */
  parts: JsonRow<LockedPart>[];
  trip: JsonRow<LockedTrip> | null;
  steps: AppliedStep[];
  staged: JsonRow<StagedImageRow>[];
  trip_part_ids: DeliverPart["part_id"][];
  repairer: JsonRow<Pick<Repairer, "id" | "name">> | null;
  open_trip: PartsMovement["id"] | null;
  hq: JsonRow<Pick<HqLocation, "id" | "name">> | null;
  shop: Repairer["name"] | null;
}

/**
 * What an earlier submission left for these (part, image) pairs (D16): the Deliver_Parts that used the
 * image in `imageColumn` for that part, and the history row of the part reaching `toStatus` on that
 * movement. A staged image is used at most once (D14), so the image ids pin down the earlier submission.
 *
 * The Deliver_Parts row and the history row are LATERAL subqueries with LIMIT so the plan is fixed: from
 * each pair by the unique image index, then that part's history row. Written as plain joins, the planner
 * may start from every history row reaching `toStatus` (all movements ever) and compare each with every
 * pair — 47 ms for 50 parts against 3 250 history rows, growing with both — or hash the whole Deliver_Parts
 * table. At most one row matches each (unique image; a part reaches a status once per
 * movement), so LIMIT 1 changes no answer.
 */
function appliedStepsSql(q: AppliedStepsQuery) {
  const column = sql.ref(`d.${q.imageColumn}`);
  return sql<AppliedStep>`
    select d.id as delivery_id, d.part_id, d.movement_id, h.changed_by, h.changed_at,
      (select count(*) from part_status_history g
        where g.movement_id = d.movement_id and g.via = 'movement' and g.to_status = ${q.toStatus}
          and g.changed_at = h.changed_at and g.changed_by is not distinct from h.changed_by
      )::int as submission_size,
      c.registration_norm = (select registration_norm from claim) as same_vehicle,
      m.movement_status, m.dropped_off_by, m.dropped_off_at
    from unnest(${q.pairs.map((p) => p.part_id)}::int[], ${q.pairs.map((p) => p.image_id)}::int[])
      as r(part_id, image_id)
    join lateral (select d.id, d.part_id, d.movement_id from deliver_parts d
      where ${column} = r.image_id and d.part_id = r.part_id limit 1) d on true
    join parts_movements m on m.id = d.movement_id
    join claims c on c.id = m.claim_id
    join lateral (select x.changed_by, x.changed_at from part_status_history x
      where x.part_id = d.part_id and x.movement_id = d.movement_id and x.via = 'movement'
        and x.to_status = ${q.toStatus}
      order by x.id limit 1) h on true`;
}

/** The statement (see the file's comment); `db` builds its subqueries (the bench compiles it bare). */
export function submissionReadSql(db: QueryRunner, q: SubmissionReadQuery) {
  const pattern = q.norm === null || !q.contains ? null : containsPattern(q.norm);
  const claimId = sql<number>`(select id from claim)`;
  return sql<SubmissionRead>`with
    actor as (select id, name, home_hq_id from users
      where email = ${q.email}::text and active = true and role = any(${q.roles}::text[])),
    ${claimResolutionCtes({ norm: q.norm, pattern, flow: q.flow, pinned: q.pinnedClaimId })},
    locked_claim as materialized (
      select id from claims where ${q.pickup}::boolean and id = ${claimId} for no key update),
    locked_trip as materialized (
      select id, claim_id, movement_type, movement_status, hq_location_id from parts_movements
      where id = ${q.tripId}::int for no key update),
    locked_parts as materialized (
      select id, claim_id, part_no, description, qty_ordered, status from parts_orders
      where id = any(${q.partIds}::int[])
        and (select count(*) from locked_claim) + (select count(*) from locked_trip) >= 0
      order by id ${q.lock ? sql`for update` : sql``})
    select
      (select row_to_json(a) from actor a) as "user",
      ${claimResolutionColumns},
      (select coalesce(json_agg(p), '[]'::json) from locked_parts p) as parts,
      (select row_to_json(t) from (
        select t.id, t.claim_id, t.movement_type, t.movement_status, c.registration, h.name as hq_name,
          c.registration_norm = (select registration_norm from claim) as same_vehicle
        from locked_trip t join claims c on c.id = t.claim_id
        left join hq_locations h on h.id = t.hq_location_id) t) as trip,
      (select coalesce(json_agg(s), '[]'::json) from (${appliedStepsSql(q.steps)}) s) as steps,
      (select coalesce(json_agg(u), '[]'::json) from (${stagedImagesQuery(db, q.imageIds)}) u) as staged,
      array(select part_id from deliver_parts where movement_id = ${q.tripId}::int) as trip_part_ids,
      (select row_to_json(r) from (${activeRepairerQuery(db, q.repairerId)}) r) as repairer,
      (select id from parts_movements where claim_id = (select id from locked_claim)
        and movement_type = 'reverse' and movement_status = 'Parts Picked Up' limit 1) as open_trip,
      (select row_to_json(h) from (${
    hqLocationQuery(db, sql`coalesce((select home_hq_id from actor), ${q.knownHomeHqId}::int)`)
  }) h where ${q.pickup}::boolean) as hq,
      (select r.name from claim_management cm join repairers r on r.id = cm.repairer_id
        where ${q.pickup}::boolean and cm.claim_id = ${claimId}) as shop`;
}

/** Runs the statement: in the submission's transaction, or on its own when it locks nothing. */
export async function readSubmission(db: Db | Tx, q: SubmissionReadQuery): Promise<SubmissionRead> {
  const { rows: [row] } = await submissionReadSql(db, q).execute(db);
  return row;
}
