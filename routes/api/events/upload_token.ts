/** `parts_movement_upload_token` (docs/protocol.md 2a, D17): the fields sit directly on `payload`. */
import { z } from "zod";
import { MOVEMENT_STAGES } from "@/db/schema.ts";
import { createUploadToken } from "@/lib/photos/upload_tokens.ts";
import { containsFromOf } from "@/lib/claims.ts";
import { actorUser } from "@/lib/users.ts";
import { emailField, idField, regoField } from "@/lib/validation.ts";
import { defineEvent } from "@/routes/api/events/types.ts";

export const uploadTokenEvent = defineEvent({
  // In the order of docs/protocol.md's table, so the first problem reported is the first field's.
  schema: z.object({
    Parts_Order: idField,
    Movement_Stage: z.enum(MOVEMENT_STAGES),
    rego: regoField,
    user_email: emailField,
  }),
  run: async (deps, actor, input) =>
    createUploadToken(deps, await actorUser(deps.db, actor), {
      partId: input.Parts_Order,
      stage: input.Movement_Stage,
      rego: input.rego,
      containsFrom: containsFromOf(actor), // D30
    }),
});
