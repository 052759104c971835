/** `Parts_search_details` (docs/protocol.md §1): the search's result in the protocol's answer. */
import { z } from "zod";
import {
  type DirectSearch,
  type ReverseSearch,
  searchAs,
  searchDirect,
  searchReverse,
} from "@/lib/search.ts";
import { emailField, regoField } from "@/lib/validation.ts";
import { defineEvent } from "@/routes/api/events/types.ts";

/** Stage `pickup` of a direct search, with D10's extras (the repairer's name, the claim number). */
const directAnswer = (rego: string, r: DirectSearch) => ({
  repairer: r.repairer.id,
  form_name: "pickup" as const,
  movement_type: "direct" as const,
  rego,
  parts_list: r.parts.map((p) => ({
    parts_order_id: p.id,
    description: p.description,
    order_status: "Arrived" as const,
    part_no: p.partNo,
  })),
  repairer_name: r.repairer.name,
  claim_number: r.claimNumber,
});

/** Stage `pickup` (leg 1) or `dropoff` (leg 2, the open trip) of a reverse search, with the claim number. */
function reverseAnswer(rego: string, r: ReverseSearch) {
  if (r.stage === "pickup") {
    return {
      form_name: "pickup" as const,
      movement_type: "reverse" as const,
      rego,
      stage: "pickup" as const,
      parts_list: r.parts.map((p) => ({
        parts_order_id: p.id,
        description: p.description,
        part_no: p.partNo,
      })),
      claim_number: r.claimNumber,
    };
  }
  return {
    form_name: "dropoff" as const,
    movement_type: "reverse" as const,
    rego,
    stage: "dropoff" as const,
    parts_list: r.parts.map((p) => ({
      delivery_id: p.deliveryId,
      parts_order_id: p.id,
      description: p.description,
      part_no: p.partNo,
    })),
    hq_location: r.hqLocation,
    parts_movement_id: r.movementId,
    claim_number: r.claimNumber,
  };
}

export const searchEvent = defineEvent({
  schema: z.object({
    user_email: emailField,
    details: z.object({
      rego: regoField,
      movement_type: z.enum(["direct", "reverse"]),
    }),
  }),
  run: async ({ db }, actor, { details: { rego, movement_type } }) =>
    movement_type === "direct"
      ? directAnswer(rego, await searchAs(db, actor, searchDirect, rego))
      : reverseAnswer(rego, await searchAs(db, actor, searchReverse, rego)),
});
