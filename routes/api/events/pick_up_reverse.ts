/** `parts_pick_up_reverse` (docs/protocol.md 3b). */
import { z } from "zod";
import { pickUpReverse } from "@/lib/movements/pick_up_reverse.ts";
import { emailField, regoField } from "@/lib/validation.ts";
import { submittedPartsField } from "@/routes/api/events/fields.ts";
import { defineEvent } from "@/routes/api/events/types.ts";

export const pickUpReverseEvent = defineEvent({
  schema: z.object({
    user_email: emailField,
    details: z.object({
      rego: regoField,
      movement_type: z.literal("reverse"),
      // Sent as an empty string; the feature is disabled server-side and nothing is captured (3b).
      delivery_location: z.unknown().optional(),
      parts: submittedPartsField,
    }),
  }),
  run: async (deps, actor, { details }) => {
    const recorded = await pickUpReverse(deps, actor, { rego: details.rego, parts: details.parts });
    return {
      delivery_parts: recorded.deliveryParts,
      movement_type: "reverse" as const,
      parts_movement_id: recorded.movementId,
    };
  },
});
