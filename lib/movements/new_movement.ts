/**
 * The shared core of the two submissions that create a movement: `parts_drop_off` (direct, 3a) and
 * `parts_pick_up_reverse` (reverse leg 1, 3b). They differ only in the flow, the movement's destination
 * fields and what the Deliver_Parts rows get; the checks, the writes and their order are the same.
 *
 * One transaction, a fixed number of statements whatever the number of parts: lock the parts (id order),
 * look for an identical earlier submission, check, then write the movement, all Deliver_Parts, the status
 * flip (a conditional UPDATE), the history rows, the outbox rows and the live dashboard's NOTIFY in one
 * statement (data-modifying CTEs).
 */
import type { Tx } from "@/db/queries/compiled.ts";
import { type NewMovement, type Repairer, writeNewMovement } from "@/db/queries/movements.ts";
import type { AnnouncementTitle, User } from "@/db/schema.ts";
import { announcementOutbox, announcementsWritten } from "@/lib/announcements/outbox.ts";
import type { Flow } from "@/lib/flows.ts";
import {
  checkBelongToClaim,
  checkStatusesAndPhotos,
  confirmedParts,
  lockConfirmedParts,
  type MovementDeps,
  readAfterLock,
  submissionClaim,
} from "@/lib/movements/checks.ts";
import type { DeliveryPart, SubmittedPart } from "@/lib/movements/input.ts";

export interface NewMovementSpec {
  flow: Flow;
  claimFlow: "direct" | "reverse";
  title: AnnouncementTitle;
  /** The repair shop the app chose (drop-off): read with the checks' reads, passed to `destination`. */
  repairerId: number | null;
  /**
   * The movement's destination, checked after the parts (D15): its columns and the place the
   * announcement names. Throws the flow's message when there is none.
   */
  destination(trx: Tx, claimId: number, repairer: Repairer | null): Promise<{
    fields: Pick<NewMovement, "repairer_id" | "location_type" | "hq_location_id">;
    place: string;
  }>;
  /** Direct: the staged photo is both the pickup and the delivery photo; reverse pickup: pickup only. */
  delivered: boolean;
  /** Reverse pickup links the movement on the claim's management record (3b rule 3). */
  linkOnManagement: boolean;
}

export interface NewMovementResult {
  movementId: number;
  deliveryParts: DeliveryPart[];
}

export async function submitNewMovement(
  deps: MovementDeps,
  user: User,
  spec: NewMovementSpec,
  input: { rego: string; parts: SubmittedPart[] },
): Promise<NewMovementResult> {
  const { db, config, clock } = deps;
  const { flow } = spec;
  const claim = await submissionClaim(db, input.rego, spec.claimFlow);
  const confirmed = confirmedParts(flow, input.parts);
  const now = clock.now();

  const result = await db.transaction().execute(
    async (trx): Promise<NewMovementResult & { wrote: boolean }> => {
      const parts = await lockConfirmedParts(trx, confirmed);
      const { replay, staged, repairer } = await readAfterLock(trx, {
        flow,
        userId: user.id,
        claimId: claim.id,
        confirmed,
        now,
        tripId: null,
        repairerId: spec.repairerId,
      });
      if (replay) return { movementId: replay.movementId, deliveryParts: replay.deliveryParts, wrote: false };
      checkBelongToClaim(confirmed, parts, claim.id);
      const checked = checkStatusesAndPhotos(flow, confirmed, parts, staged);
      const destination = await spec.destination(trx, claim.id, repairer);

      const ids = checked.map((c) => c.part.id);
      const { movementId, deliveryOf, flipped } = await writeNewMovement(trx, {
        movement: {
          claim_id: claim.id,
          movement_type: spec.delivered ? "direct" : "reverse",
          movement_status: spec.delivered ? "Parts Dropped off" : "Parts Picked Up",
          picked_up_by: user.id,
          dropped_off_by: spec.delivered ? user.id : null,
          pick_up_at: now,
          dropped_off_at: spec.delivered ? now : null,
          ...destination.fields,
        },
        deliverParts: checked.map((c) => ({
          part_id: c.part.id,
          qty_ordered: c.part.qty_ordered,
          pickup_image_id: c.imageId,
          pickup_photo_id: c.photoId,
        })),
        delivered: spec.delivered,
        flip: { ids, from: flow.from, to: flow.to, at: now, by: user.id },
        linkOnManagement: spec.linkOnManagement,
        outbox: announcementOutbox(config, {
          title: spec.title,
          rego: claim.registration,
          place: destination.place,
          parts: checked.map((c) => ({ partNo: c.part.part_no, description: c.part.description })),
          driver: user.name,
          at: now.toISOString(),
        }, now),
      });
      // The parts are locked and their status was checked above, so every one flips; anything else is a bug
      // and must not commit a Deliver_Parts without its status change (throwing rolls the statement back).
      if (flipped !== ids.length || deliveryOf.size !== ids.length) {
        throw new Error("movement: a locked part changed status");
      }
      return {
        movementId,
        deliveryParts: ids.map((id) => ({ parts_order_id: id, delivery_id: deliveryOf.get(id)! })),
        wrote: true,
      };
    },
  );
  if (result.wrote) announcementsWritten(db);
  return { movementId: result.movementId, deliveryParts: result.deliveryParts };
}
