/** `Parts_search_details` (docs/protocol.md §1). */
import { z } from "zod";
import { onOneConnection } from "@/db/client.ts";
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
  // Its statements share one pooled connection (db/client.ts onOneConnection).
  run: ({ db }, actor, { details }): Promise<DirectSearchResult | ReverseSearchResult> =>
    onOneConnection(db, async (db) => {
      await actorUser(db, actor);
      return details.movement_type === "direct"
        ? await searchDirect(db, details.rego)
        : await searchReverse(db, details.rego);
    }),
});
