/** `parts_pick_up_reverse` (docs/protocol.md 3b). */
import { z } from "zod";
import { submittedPartsField } from "@/lib/movements/input.ts";
import { pickUpReverse } from "@/lib/movements/pick_up_reverse.ts";
import { emailField, regoField } from "@/lib/validation.ts";
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
  run: (deps, actor, { details }) => pickUpReverse(deps, actor, { rego: details.rego, parts: details.parts }),
});
