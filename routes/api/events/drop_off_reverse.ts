/** `parts_drop_off_reverse` (D20): leg 2 of a return, at HQ. */
import { z } from "zod";
import { dropOffReverse } from "@/lib/movements/drop_off_reverse.ts";
import { emailField, idField, regoField } from "@/lib/validation.ts";
import { submittedPartsField } from "@/routes/api/events/fields.ts";
import { defineEvent } from "@/routes/api/events/types.ts";

export const dropOffReverseEvent = defineEvent({
  schema: z.object({
    user_email: emailField,
    details: z.object({
      rego: regoField,
      movement_type: z.literal("reverse"),
      parts_movement_id: idField,
      parts: submittedPartsField,
    }),
  }),
  run: async (deps, actor, { details }) => {
    const recorded = await dropOffReverse(deps, actor, {
      rego: details.rego,
      movementId: details.parts_movement_id,
      parts: details.parts,
    });
    return {
      delivery_parts: recorded.deliveryParts,
      movement_type: "reverse" as const,
      parts_movement_id: recorded.movementId,
      movement_status: recorded.movementStatus,
    };
  },
});
