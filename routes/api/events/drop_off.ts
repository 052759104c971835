/** `parts_drop_off` (docs/protocol.md 3a). */
import { z } from "zod";
import { dropOff } from "@/lib/movements/drop_off.ts";
import { emailField, lineTextField, regoField } from "@/lib/validation.ts";
import { repairShopIdField, submittedPartsField } from "@/routes/api/events/fields.ts";
import { defineEvent } from "@/routes/api/events/types.ts";

export const dropOffEvent = defineEvent({
  schema: z.object({
    user_email: emailField,
    details: z.object({
      rego: regoField,
      movement_type: z.literal("direct"),
      delivery_location: z.object({ id: repairShopIdField, name: lineTextField.optional() }),
      parts: submittedPartsField,
    }),
  }),
  run: async (deps, actor, { details }) => {
    const recorded = await dropOff(deps, actor, {
      rego: details.rego,
      repairShopId: details.delivery_location.id,
      parts: details.parts,
    });
    return { delivery_parts: recorded.deliveryParts, parts_movement_id: recorded.movementId };
  },
});
