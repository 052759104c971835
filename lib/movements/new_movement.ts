/**
 * The shared core of the two submissions that create a movement: `parts_drop_off` (direct, 3a) and
 * `parts_pick_up_reverse` (reverse leg 1, 3b). They differ only in the flow, the movement's destination
 * fields and what the Deliver_Parts rows get; the checks, the writes and their order are the same.
 *
 * Four round trips whatever the number of parts (lib/movements/submission.ts): BEGIN, the statement that
 * reads the user and claim, locks the parts (id order) and reads what the checks need, then the movement,
 * all Deliver_Parts, the status flip (a conditional UPDATE), the history rows, the outbox rows and the live
 * dashboard's NOTIFY in one statement (data-modifying CTEs), COMMIT. A drop-off first tries two: the read
 * without locks, then that statement on its own (all or nothing). A tablet's submission takes the locked
 * path, with the handover step's own statements in its transaction (lib/handover/record.ts).
 */
import { type NewMovement, writeNewMovement } from "@/db/queries/movements.ts";
import type { SubmissionRead } from "@/db/queries/submission_reads.ts";
import type { AnnouncementTitle } from "@/db/schema.ts";
import { announcementOutbox, announcementsWritten } from "@/lib/announcements/outbox.ts";
import type { Flow } from "@/lib/flows.ts";
import {
  checkBelongToClaim,
  checkStatusesAndPhotos,
  lockedConfirmedParts,
  type MovementDeps,
} from "@/lib/movements/checks.ts";
import type { DeliveryPart, SubmittedPart, WithHandover } from "@/lib/movements/input.ts";
import { recordHandover, takeHandover } from "@/lib/handover/record.ts";
import { replayOf } from "@/lib/movements/replay.ts";
import { handlerAuditOf, StaleRead, submit, submitOptimistically } from "@/lib/movements/submission.ts";
import type { Actor } from "@/lib/users.ts";
import type { Tx } from "@/db/queries/compiled.ts";

export interface NewMovementSpec {
  flow: Flow;
  claimFlow: "direct" | "reverse";
  title: AnnouncementTitle;
  /** The repair shop the app chose (drop-off): read with the checks' reads, handed to `destination`. */
  repairerId: number | null;
  /** Reverse pickup: lock the claim row, read its open trip, and write only while it has none. */
  pickup: boolean;
  /**
   * The movement's destination, checked after the parts (D15), from the read: its columns and the place
   * the announcement names. Throws the flow's message when there is none.
   */
  destination(read: SubmissionRead): {
    fields: Pick<NewMovement, "repairer_id" | "location_type" | "hq_location_id">;
    place: string;
  };
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
  actor: Actor,
  spec: NewMovementSpec,
  input: { rego: string; parts: SubmittedPart[] } & WithHandover,
): Promise<NewMovementResult> {
  const { config, clock } = deps;
  const { flow } = spec;
  const now = clock.now();
  const scope = {
    flow,
    claimFlow: spec.claimFlow,
    rego: input.rego,
    parts: input.parts,
    pickup: spec.pickup,
    tripId: null,
    repairerId: spec.repairerId,
  };
  // A drop-off's write statement locks its parts itself (all or nothing), so it may skip the locks and the
  // transaction; a reverse pickup must hold the claim row before it reads (lib/movements/submission.ts), and
  // a tablet's handover is checked and recorded in the movement's transaction (docs/handover.md).
  const run = spec.pickup || input.handover !== undefined ? submit : submitOptimistically;
  const result = await run(deps, actor, scope, async ({ trx, user, claim, read, confirmed }) => {
    const list = confirmed();
    const parts = lockedConfirmedParts(list, read.parts);
    const replay = replayOf(read.steps, { flow, userId: user.id, confirmed: list, now });
    if (replay) return { movementId: replay.movementId, deliveryParts: replay.deliveryParts, wrote: false };
    checkBelongToClaim(list, parts, claim.id);
    const checked = checkStatusesAndPhotos(flow, list, parts, read.staged, user.id);
    const destination = spec.destination(read);
    // A tablet's submission runs on the locked path (above): `trx` is its transaction.
    const handover = input.handover === undefined ? null : await takeHandover(trx as Tx, {
      leg: flow.stage,
      userId: user.id,
      movementId: null,
      input: input.handover,
    });

    const ids = checked.map((c) => c.part.id);
    const written = await writeNewMovement(trx, {
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
      audit: handlerAuditOf(actor, flow),
      outbox: announcementOutbox(
        config,
        {
          title: spec.title,
          rego: claim.registration,
          place: destination.place,
          parts: checked.map((c) => ({ partNo: c.part.part_no, description: c.part.description })),
          driver: user.name,
          at: now.toISOString(),
        },
        now,
        spec.repairerId !== null ? { repairerId: spec.repairerId } : { claimId: claim.id },
      ),
      unlessOpenTrip: spec.pickup,
    });
    if (!written) throw new StaleRead();
    // The statement wrote only with every part locked in its `from` status, so every one flips; anything
    // else is a bug and must not commit a Deliver_Parts without its status change (throwing rolls back
    // the locked path; the optimistic path's statement cannot get here with a difference).
    if (written.flipped !== ids.length || written.deliveryOf.size !== ids.length) {
      throw new Error("movement: a locked part changed status");
    }
    if (handover) {
      const parts = checked.map((c) => ({ partId: c.part.id, photoId: c.photoId }));
      await recordHandover(trx as Tx, handover, written.movementId, parts, now);
    }
    return {
      movementId: written.movementId,
      deliveryParts: ids.map((id) => ({ parts_order_id: id, delivery_id: written.deliveryOf.get(id)! })),
      wrote: true,
    };
  });
  if (result.wrote) announcementsWritten(deps.db);
  return { movementId: result.movementId, deliveryParts: result.deliveryParts };
}
