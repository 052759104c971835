/** `parts_drop_off` (docs/protocol.md 3a): HQ pickup and repair-shop drop-off recorded together. */
import { DomainError } from "@/lib/errors.ts";
import { FLOWS } from "@/lib/flows.ts";
import type { MovementDeps } from "@/lib/movements/checks.ts";
import type { DropOffInput } from "@/lib/movements/input.ts";
import { type NewMovementResult, submitNewMovement } from "@/lib/movements/new_movement.ts";
import { countedSubmission } from "@/lib/movements/outcomes.ts";
import type { Actor } from "@/lib/users.ts";

function recordDropOff(deps: MovementDeps, actor: Actor, input: DropOffInput): Promise<NewMovementResult> {
  return submitNewMovement(deps, actor, {
    flow: FLOWS.direct,
    claimFlow: "direct",
    title: "Parts Delivered",
    delivered: true,
    linkOnManagement: false,
    pickup: false,
    // D15: the shop chosen in the app's repairer dropdown, which must be a known, active repairer (read
    // with the checks' reads; a null id finds none).
    repairerId: input.repairShopId,
    destination: ({ repairer }) => {
      if (!repairer) throw new DomainError("invalid", "Choose a repair shop.");
      return {
        fields: { repairer_id: repairer.id, location_type: null, hq_location_id: null },
        place: repairer.name,
      };
    },
  }, input);
}

export const dropOff = countedSubmission("parts_drop_off", recordDropOff);
