/** `parts_drop_off` (docs/protocol.md 3a): HQ pickup and repair-shop drop-off recorded together. */
import type { User } from "@/db/schema.ts";
import { DomainError } from "@/lib/errors.ts";
import { FLOWS } from "@/lib/flows.ts";
import type { MovementDeps } from "@/lib/movements/checks.ts";
import type { DeliveryPart, DropOffInput } from "@/lib/movements/input.ts";
import { submitNewMovement } from "@/lib/movements/new_movement.ts";

export interface DropOffResult {
  delivery_parts: DeliveryPart[];
  parts_movement_id: number;
}

export async function dropOff(deps: MovementDeps, user: User, input: DropOffInput): Promise<DropOffResult> {
  const result = await submitNewMovement(deps, user, {
    flow: FLOWS.direct,
    claimFlow: "direct",
    title: "Parts Delivered",
    delivered: true,
    linkOnManagement: false,
    // D15: the shop chosen in the app's repairer dropdown, which must be a known, active repairer (read
    // with the checks' reads; a null id finds none).
    repairerId: input.repairShopId,
    destination: (_trx, _claimId, shop) => {
      if (!shop) return Promise.reject(new DomainError("invalid", "Choose a repair shop."));
      return Promise.resolve({
        fields: { repairer_id: shop.id, location_type: null, hq_location_id: null },
        place: shop.name,
      });
    },
  }, input);
  return { delivery_parts: result.deliveryParts, parts_movement_id: result.movementId };
}
