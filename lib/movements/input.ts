/**
 * What a movement submission carries, as the use cases take it. Each face parses its own input into these
 * (the handler: routes/api/events/fields.ts from the protocol's `details`, docs/protocol.md 3a/3b, D20; the
 * tablet: routes/tablet/api.ts).
 */

import type { HandoverInput } from "@/lib/handover/record.ts";

/**
 * The tablet's handover step (docs/handover.md): null when the tablet sent none, absent (undefined) from
 * the mobile app's handler, whose protocol has no handover, so no policy applies to it.
 */
export interface WithHandover {
  handover?: HandoverInput | null;
}

/** Far more than a claim has; the handler's 64 KiB body limit is the real bound. */
export const MAX_SUBMITTED_PARTS = 500;

/** One part of a submission. */
export interface SubmittedPart {
  partId: number;
  confirm: boolean;
  /** The staged photo (`record_id` of call 2a); null when none was sent. */
  imageId: number | null;
}

export interface DropOffInput extends WithHandover {
  rego: string;
  /** null: none chosen, or not a usable ID (the use case answers `Choose a repair shop.`, D15). */
  repairShopId: number | null;
  parts: SubmittedPart[];
}

export interface PickUpReverseInput extends WithHandover {
  rego: string;
  parts: SubmittedPart[];
}

export interface DropOffReverseInput extends WithHandover {
  rego: string;
  movementId: number;
  parts: SubmittedPart[];
}

/** The Deliver_Parts row each submitted part got, in request order (the protocol's `delivery_parts[]`). */
export interface DeliveryPart {
  parts_order_id: number;
  delivery_id: number;
}
