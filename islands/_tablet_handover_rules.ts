/**
 * The proof of handover's rules on the tablet (docs/handover.md): whether a job asks for one, what is
 * still missing before the driver may confirm, and the submission's `handover` built from the records
 * kept on the device. The server checks the same policy again inside the movement's transaction.
 */
import type { HandoverStep } from "@/components/tablet_jobs.ts";
import type { HandoverImageKind } from "@/db/schema.ts";
import type { QueuedHandover, QueuedPhoto } from "./_tablet_queue_db.ts";

/** The longest receiver's name the server takes. */
export const NAME_MAX = 100;

export const emptyHandover = (): QueuedHandover => ({
  receiverName: "",
  strokes: [],
  nobody: false,
  reason: "",
});

/**
 * The job asks for a handover. A claim found before the policy existed carries none (a movement kept on
 * the tablet across the release): it is sent without one, as before.
 */
export const asksHandover = (offer: HandoverStep | undefined): offer is HandoverStep =>
  offer !== undefined && offer.policy !== "off";

/** "Nobody to sign" applies: the policy allows it and the driver chose it. */
const unsigned = (offer: HandoverStep, h: QueuedHandover) => offer.policy === "optional" && h.nobody;

/** The handover image the submission names: the signature, or the photo of where the parts were left. */
export function imageKindOf(
  offer: HandoverStep | undefined,
  h: QueuedHandover,
): HandoverImageKind | undefined {
  if (!asksHandover(offer)) return undefined;
  return unsigned(offer, h) ? "left" : "signature";
}

/**
 * What the driver must still do before confirming, or null when the policy is met. `leftKept`: the photo
 * of where the parts were left is on the device (not refused).
 */
export function handoverMissing(
  offer: HandoverStep | undefined,
  h: QueuedHandover,
  leftKept: boolean,
): string | null {
  if (!asksHandover(offer)) return null;
  if (unsigned(offer, h)) {
    if (!h.reason) return "Choose why nobody signs.";
    return leftKept ? null : "Take a photo of where the parts were left.";
  }
  if (!h.receiverName.trim()) return "Type the receiver's name.";
  return h.strokes.some((s) => s.points.length > 0) ? null : "Ask the receiver to sign in the box.";
}

export type HandoverBody =
  | { receiver_name: string; signature_image_id: number }
  | { unsigned_reason: string; left_image_id: number };

/**
 * The submission's `handover`, from the movement's stored record and its images alone (so every resend
 * is the same submission, D16): `{ body }` (none when the job asks for no handover), or the refusal that
 * stops the movement when its image was refused.
 */
export function handoverBody(
  offer: HandoverStep | undefined,
  h: QueuedHandover | undefined,
  images: QueuedPhoto[],
): { body?: HandoverBody; refusal?: string } {
  const kind = h && imageKindOf(offer, h);
  if (!h || !kind) return {};
  const image = images.find((p) => p.kind === kind);
  if (image?.imageId === undefined) {
    return {
      refusal: image?.error ??
        (kind === "left" ? "Take a photo of where the parts were left." : "Ask the receiver to sign again."),
    };
  }
  return kind === "left"
    ? { body: { unsigned_reason: h.reason, left_image_id: image.imageId } }
    : { body: { receiver_name: h.receiverName.trim(), signature_image_id: image.imageId } };
}
