/** `Parts_search_details` (docs/protocol.md §1). */
import { z } from "zod";
import {
  type DirectSearchResult,
  type ReverseSearchResult,
  searchDirect,
  searchReverse,
} from "@/lib/search.ts";
import { actorUser } from "@/lib/users.ts";
import { emailField, regoField } from "@/lib/validation.ts";
import { defineEvent } from "@/routes/api/events/types.ts";

export const searchEvent = defineEvent({
  schema: z.object({
    user_email: emailField,
    details: z.object({
      rego: regoField,
      movement_type: z.enum(["direct", "reverse"]),
    }),
  }),
  run: async ({ db }, actor, { details }): Promise<DirectSearchResult | ReverseSearchResult> => {
    await actorUser(db, actor);
    return details.movement_type === "direct"
      ? await searchDirect(db, details.rego)
      : await searchReverse(db, details.rego);
  },
});
