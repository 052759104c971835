/**
 * What a movement submission carries, as the use cases take it, and the zod pieces every face uses to get
 * there from the protocol's `details` (docs/protocol.md 3a/3b, D20).
 */
import { z } from "zod";
import { idField, isId } from "@/lib/validation.ts";

/** Far more than a claim has; the handler's 64 KiB body limit is the real bound. */
export const MAX_SUBMITTED_PARTS = 500;

/** One `details.parts[]` item. */
export interface SubmittedPart {
  partId: number;
  confirm: boolean;
  /** The staged photo (`record_id` of call 2a); null when the app sent none. */
  imageId: number | null;
}

/**
 * An `image_id`: an ID as string or number; empty, null or absent means "no photo", which is the
 * flow's "missing its … photo" message for a confirmed part, not a validation failure.
 */
const imageIdField = z.preprocess(
  (v) => v === "" || v === null ? undefined : v,
  idField.optional(),
).transform((v) => v ?? null);

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

export interface DropOffInput {
  rego: string;
  /** null: none chosen, or not a usable ID. */
  repairShopId: number | null;
  parts: SubmittedPart[];
}

export interface PickUpReverseInput {
  rego: string;
  parts: SubmittedPart[];
}

export interface DropOffReverseInput {
  rego: string;
  movementId: number;
  parts: SubmittedPart[];
}

/** `delivery_parts[]` of every submission's answer, in request order. */
export interface DeliveryPart {
  parts_order_id: number;
  delivery_id: number;
}
