/**
 * `parts_drop_off_reverse` (D20): leg 2 of a return, the parts of an open trip handed in at HQ. A trip may
 * come back in several drop-offs: it stays `Parts Picked Up` (and the reverse search keeps answering stage
 * `dropoff` with what is still on the truck) until every part is back, then becomes `Parts Dropped off`.
 *
 * Order of checks: claim; the trip (`Return trip not found.`, `This return trip is already complete.`);
 * then D13's: none confirmed, a part listed twice, unknown part, part of another claim; a part not on the
 * trip; per part in request order its status, then its photo.
 */
import { writeLeg2DropOff } from "@/db/queries/movements.ts";
import type { MovementStatus } from "@/db/schema.ts";
import { announcementOutbox, announcementsWritten } from "@/lib/announcements/outbox.ts";
import { DomainError } from "@/lib/errors.ts";
import { FLOWS } from "@/lib/flows.ts";
import {
  checkBelongToClaim,
  checkStatusesAndPhotos,
  type ConfirmedPart,
  lockedConfirmedParts,
  type MovementDeps,
} from "@/lib/movements/checks.ts";
import type { DeliveryPart, DropOffReverseInput } from "@/lib/movements/input.ts";
import { countedSubmission } from "@/lib/movements/outcomes.ts";
import { replayOf } from "@/lib/movements/replay.ts";
import { recordHandover, takeHandover } from "@/lib/handover/record.ts";
import { handlerAuditOf, submit } from "@/lib/movements/submission.ts";
import type { Actor } from "@/lib/users.ts";

export interface DropOffReverseResult {
  movementId: number;
  deliveryParts: DeliveryPart[];
  /** `Parts Dropped off` once every part of the trip is back, else still `Parts Picked Up`. */
  movementStatus: MovementStatus;
}

const flow = FLOWS.reverse_dropoff;

async function recordDropOffReverse(
  deps: MovementDeps,
  actor: Actor,
  input: DropOffReverseInput,
): Promise<DropOffReverseResult> {
  const { db, config, clock } = deps;
  const now = clock.now();
  const answer = (movementStatus: MovementStatus, deliveryParts: DeliveryPart[]): DropOffReverseResult => ({
    movementId: input.movementId,
    deliveryParts,
    movementStatus,
  });
  const scope = {
    flow,
    claimFlow: "reverse" as const,
    rego: input.rego,
    parts: input.parts,
    pickup: false,
    // The trip row is locked first: two drop-offs of one trip take turns, so exactly one of them sees the
    // last part come back and completes it (the write statement decides it, db/queries/movements.ts).
    tripId: input.movementId,
    repairerId: null,
  };

  // The claim only locates the trip: `same_vehicle` compares the trip's claim with it (D11).
  const result = await submit(deps, actor, scope, async ({ trx, user, read, confirmed }) => {
    const trip = read.trip;
    if (!trip || trip.movement_type !== "reverse" || !trip.same_vehicle) {
      throw new DomainError("not_found", "Return trip not found.");
    }
    const replayed = (list: ConfirmedPart[]) => {
      const replay = replayOf(read.steps, { flow, userId: user.id, confirmed: list, now });
      return replay && replay.movementId === trip.id ? replay : null;
    };
    if (trip.movement_status !== "Parts Picked Up") {
      // The retry of the drop-off that completed the trip still gets its answer (D16).
      let list: ConfirmedPart[] | null = null;
      try {
        list = confirmed();
      } catch {
        // Not a valid retry: the trip being complete is the first thing to say.
      }
      const replay = list && replayed(list);
      if (replay) return { wrote: false, ...answer(replay.movementStatus, replay.deliveryParts) };
      throw new DomainError("conflict", "This return trip is already complete.");
    }

    const list = confirmed();
    const parts = lockedConfirmedParts(list, read.parts);
    const replay = replayed(list);
    if (replay) return { wrote: false, ...answer(replay.movementStatus, replay.deliveryParts) };
    checkBelongToClaim(list, parts, trip.claim_id);
    const tripPartIds = new Set(read.trip_part_ids);
    for (const { partId } of list) {
      if (!tripPartIds.has(partId)) {
        throw new DomainError(
          "refused",
          `${parts.get(partId)!.part_no} is not part of this return trip.`,
          partId,
        );
      }
    }
    const checked = checkStatusesAndPhotos(flow, list, parts, read.staged, user.id);
    const handover = input.handover === undefined ? null : await takeHandover(trx, {
      leg: flow.stage,
      userId: user.id,
      movementId: trip.id,
      input: input.handover,
    });

    const ids = checked.map((c) => c.part.id);
    const { deliveryOf, flipped, movementStatus } = await writeLeg2DropOff(trx, {
      movementId: trip.id,
      rows: checked.map((c) => ({ part_id: c.part.id, image_id: c.imageId, photo_id: c.photoId })),
      flip: { ids, from: flow.from, to: flow.to, at: now, by: user.id },
      audit: handlerAuditOf(actor, flow),
      outbox: announcementOutbox(config, {
        title: "Parts Returned to HQ",
        rego: trip.registration,
        place: trip.hq_name ?? "HQ",
        parts: checked.map((c) => ({ partNo: c.part.part_no, description: c.part.description })),
        driver: user.name,
        at: now.toISOString(),
      }, now),
    });
    // Locked parts with a checked status, on the trip and not yet delivered (their status says so): every
    // one changes. Anything else is a bug and must not commit half a drop-off.
    if (deliveryOf.size !== ids.length || flipped !== ids.length) {
      throw new Error("drop-off: a locked part or its Deliver_Parts changed");
    }
    if (handover) {
      const legParts = checked.map((c) => ({ partId: c.part.id, photoId: c.photoId }));
      await recordHandover(trx, handover, trip.id, legParts, now);
    }
    return {
      wrote: true,
      ...answer(movementStatus, ids.map((id) => ({ parts_order_id: id, delivery_id: deliveryOf.get(id)! }))),
    };
  });
  const { wrote, ...data } = result;
  if (wrote) announcementsWritten(db);
  return data;
}

export const dropOffReverse = countedSubmission("parts_drop_off_reverse", recordDropOffReverse);
