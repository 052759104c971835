/**
 * The zod pieces of the protocol's submission `details` (docs/protocol.md 3a/3b, D15, D20), shared by the
 * handler's three submission events; they parse into the use cases' input types (lib/movements/input.ts).
 */
import { z } from "zod";
import { MAX_SUBMITTED_PARTS, type SubmittedPart } from "@/lib/movements/input.ts";
import { idField, isId } from "@/lib/validation.ts";

/**
 * An `image_id`: an ID as string or number; empty, null or absent means "no photo", which is the
 * flow's "missing its … photo" message for a confirmed part, not a validation failure.
 */
const imageIdField = z.preprocess(
  (v) => v === "" || v === null ? undefined : v,
  idField.optional(),
).transform((v) => v ?? null);

/** `details.parts[]`. */
export const submittedPartsField = z.array(
  z.object({
    parts_order_id: idField,
    confirm: z.boolean(),
    image_id: imageIdField,
  }),
).max(MAX_SUBMITTED_PARTS).transform((items): SubmittedPart[] =>
  items.map((p) => ({ partId: p.parts_order_id, confirm: p.confirm, imageId: p.image_id }))
);

/**
 * `delivery_location.id` of a direct submission: anything is accepted here, and anything that is not the
 * ID of an active repairer answers `Choose a repair shop.` (D15), as an empty dropdown would send "".
 */
export const repairShopIdField = z.union([z.string(), z.number(), z.null()]).optional().transform((v) => {
  const n = typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  return isId(n) ? n : null;
});
