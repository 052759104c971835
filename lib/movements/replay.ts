/**
 * Retry safety (D16): a submission identical to one already applied (same user, claim, confirmed parts and
 * image_ids, within 24 h) answers the original success again and writes nothing. A phone that lost the
 * answer to a timeout retries; without this it would read "no longer available" for its own movement.
 *
 * No table of answers is kept: the earlier submission is found from what it wrote. Each staged image is
 * used by at most one Deliver_Parts (D14), so the image ids lead to the Deliver_Parts rows, and the part
 * history rows of that movement (via `movement`, the flow's target status) say who submitted them and when.
 * One submission writes its history rows with one user and one timestamp, so those identify it, and its
 * size tells a complete retry from a subset of it.
 */
import type { AppliedStep, AppliedStepsQuery } from "@/db/queries/submission_reads.ts";
import type { MovementStatus } from "@/db/schema.ts";
import type { Flow } from "@/lib/flows.ts";
import type { ConfirmedPart } from "@/lib/movements/checks.ts";
import type { DeliveryPart } from "@/lib/movements/input.ts";

export const REPLAY_WINDOW_MS = 24 * 60 * 60_000;

export interface Replay {
  movementId: number;
  deliveryParts: DeliveryPart[];
  /** The movement's status right after the original submission (leg 2 answers it). */
  movementStatus: MovementStatus;
}

/**
 * Which earlier steps would show an identical earlier submission: none to look for when a confirmed part
 * has no photo (such a submission cannot have been applied).
 */
export function appliedStepsQuery(flow: Flow, confirmed: ConfirmedPart[]): AppliedStepsQuery {
  const withPhotos = confirmed.every((p) => p.imageId !== null);
  return {
    pairs: withPhotos ? confirmed.map((p) => ({ part_id: p.partId, image_id: p.imageId! })) : [],
    imageColumn: flow.name === "reverse_dropoff" ? "delivery_image_id" : "pickup_image_id",
    toStatus: flow.to,
  };
}

/**
 * The original answer of an identical earlier submission, or null, from the steps `appliedStepsQuery`
 * found. Read with the parts locked, so that of two identical submissions racing, the second sees the
 * first's rows once it gets the locks.
 */
export function replayOf(
  steps: AppliedStep[],
  opts: { flow: Flow; userId: number; confirmed: ConfirmedPart[]; now: Date },
): Replay | null {
  const { flow, userId, confirmed, now } = opts;
  if (confirmed.length === 0 || steps.length !== confirmed.length) return null;
  const first = steps[0];
  const at = new Date(first.changed_at).getTime();
  const identical = steps.every((s) =>
    s.movement_id === first.movement_id && s.changed_by === userId && s.same_vehicle &&
    new Date(s.changed_at).getTime() === at && s.submission_size === confirmed.length
  );
  if (!identical || now.getTime() - at >= REPLAY_WINDOW_MS) return null;

  const deliveryOf = new Map(steps.map((s) => [s.part_id, s.delivery_id]));
  // Leg 2 answers the trip's status as that submission left it: complete only if it was the last return.
  const completedThen = first.movement_status === "Parts Dropped off" && first.dropped_off_by === userId &&
    first.dropped_off_at !== null && new Date(first.dropped_off_at).getTime() === at;
  return {
    movementId: first.movement_id,
    deliveryParts: confirmed.map((p) => ({
      parts_order_id: p.partId,
      delivery_id: deliveryOf.get(p.partId)!,
    })),
    movementStatus: flow.name === "direct" || completedThen ? "Parts Dropped off" : "Parts Picked Up",
  };
}
