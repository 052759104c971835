/** `parts_pick_up_reverse` (docs/protocol.md 3b): leg 1 of a return, parts collected at the repair shop. */
import { DomainError } from "@/lib/errors.ts";
import { FLOWS } from "@/lib/flows.ts";
import type { MovementDeps } from "@/lib/movements/checks.ts";
import type { PickUpReverseInput } from "@/lib/movements/input.ts";
import { type NewMovementResult, submitNewMovement } from "@/lib/movements/new_movement.ts";
import { countedSubmission } from "@/lib/movements/outcomes.ts";
import type { Actor } from "@/lib/users.ts";

export const OPEN_TRIP_EXISTS =
  "Parts of this claim are already on a return trip to HQ. Drop them off at HQ before collecting more.";

function recordPickUpReverse(
  deps: MovementDeps,
  actor: Actor,
  input: PickUpReverseInput,
): Promise<NewMovementResult> {
  return submitNewMovement(deps, actor, {
    flow: FLOWS.reverse_pickup,
    claimFlow: "reverse",
    title: "Parts Picked Up From Repair Shop",
    delivered: false,
    linkOnManagement: true,
    repairerId: null,
    // One open trip per claim. The reverse search answers about the latest reverse movement only
    // (docs/protocol.md §1 rule 2), so a second open trip would hide the first one's parts for good. A
    // search already answers stage `dropoff` while a trip is open; this refuses the pickup that raced it:
    // the claim row is locked, and the write statement writes nothing while the claim has an open trip.
    pickup: true,
    destination: ({ open_trip, hq, shop }) => {
      if (open_trip !== null) throw new DomainError("conflict", OPEN_TRIP_EXISTS);
      // D15: the user's home HQ, else the first HQ location.
      if (!hq) throw new DomainError("refused", "No HQ location is set up. Ask an administrator to add one.");
      // The announcement names the shop the parts were collected from. The app sends no location here
      // (the feature is disabled, 3b), so it is the claim's repairer: the shop that had the parts.
      return {
        fields: { repairer_id: null, location_type: "HQ", hq_location_id: hq.id },
        place: shop ?? "Repair shop not recorded",
      };
    },
  }, input);
}

export const pickUpReverse = countedSubmission("parts_pick_up_reverse", recordPickUpReverse);
