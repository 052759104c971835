/**
 * The handover step of a tablet submission (docs/handover.md): checked against the leg's policy and recorded
 * inside the movement's transaction. `takeHandover` runs with the submission's checks, before its write: it
 * reads the policy, checks what the driver sent and locks the staged images it names (a second submission
 * naming them waits, then finds them used). `recordHandover` runs after the write: it marks the images used
 * by the movement leg and writes the handover row with its digest. Any refusal is a DomainError thrown
 * before the write, so the transaction writes nothing.
 */
import type { HandoverPolicy, MovementStage, UnsignedReason } from "@/db/schema.ts";
import type { Tx } from "@/db/queries/compiled.ts";
import {
  handoverExists,
  insertHandover,
  type LockedHandoverImage,
  lockedPolicyOfLeg,
  lockHandoverImages,
  markHandoverImagesUsed,
  photoKeysOf,
} from "@/db/queries/handovers.ts";
import { DomainError } from "@/lib/errors.ts";
import { handoverDigest } from "@/lib/handover/digest.ts";
import { DEFAULT_POLICY, isUnsignedReason } from "@/lib/handover/policy.ts";
import { isLineText } from "@/lib/validation.ts";

/** What the tablet sends of a handover (routes/tablet/api.ts parses it); every field may be missing. */
export interface HandoverInput {
  receiverName: string | null;
  signatureImageId: number | null;
  unsignedReason: string | null;
  leftImageId: number | null;
}

export const MAX_RECEIVER_NAME = 100;

/** A handover that passed its checks, with its images locked, waiting for the movement's id. */
export interface TakenHandover {
  leg: MovementStage;
  userId: number;
  receiverName: string | null;
  unsignedReason: UnsignedReason | null;
  signature: LockedHandoverImage | null;
  left: LockedHandoverImage | null;
}

const SIGNATURE_AND_NAME = "This job needs the receiver's name and signature.";
const SIGNATURE_OR_NOBODY =
  'This job needs the receiver\'s name and signature, or "Nobody to sign" with a reason and a photo of where the parts were left.';

/** The receiver's name: trimmed, 1 to 100 characters, no control characters. */
export function checkReceiverName(name: string | null): string {
  const clean = (name ?? "").trim();
  if (clean === "") throw new DomainError("invalid", "Type the receiver's name.");
  if (!isLineText(clean)) {
    throw new DomainError("invalid", "The receiver's name must not contain control characters.");
  }
  if ([...clean].length > MAX_RECEIVER_NAME) {
    throw new DomainError("invalid", `The receiver's name must be at most ${MAX_RECEIVER_NAME} characters.`);
  }
  return clean;
}

/** Which way the driver recorded the handover, checked against the policy (no database read). */
export function handoverShape(
  policy: HandoverPolicy,
  input: HandoverInput | null,
): { signed: true; name: string } | { signed: false; reason: UnsignedReason } | null {
  const signed = input !== null && (input.receiverName !== null || input.signatureImageId !== null);
  const unsigned = input !== null && (input.unsignedReason !== null || input.leftImageId !== null);
  if (policy === "off") {
    if (signed || unsigned) throw new DomainError("refused", "This job takes no signature.");
    return null;
  }
  if (signed && unsigned) {
    throw new DomainError("invalid", 'Send either the receiver\'s signature or "Nobody to sign", not both.');
  }
  if (!signed && !unsigned) {
    throw new DomainError("refused", policy === "required" ? SIGNATURE_AND_NAME : SIGNATURE_OR_NOBODY);
  }
  if (signed) {
    const name = checkReceiverName(input!.receiverName);
    if (input!.signatureImageId === null) {
      throw new DomainError("invalid", "The receiver's signature is missing.");
    }
    return { signed: true, name };
  }
  if (policy === "required") {
    throw new DomainError("refused", `${SIGNATURE_AND_NAME} "Nobody to sign" is not allowed for it.`);
  }
  const reason = input!.unsignedReason;
  if (reason === null || !isUnsignedReason(reason)) {
    throw new DomainError("invalid", "Choose why nobody signed.");
  }
  if (input!.leftImageId === null) {
    throw new DomainError("invalid", "The photo of where the parts were left is missing.");
  }
  return { signed: false, reason };
}

const WORDS = { signature: "signature", left: "photo of where the parts were left" } as const;

/** The staged image `id` of this kind, the driver's own and unused, from the locked rows. */
function imageOf(
  rows: LockedHandoverImage[],
  id: number,
  kind: LockedHandoverImage["kind"],
  userId: number,
): LockedHandoverImage {
  const row = rows.find((r) => r.id === id);
  // Another driver's image reads as unknown: its id tells nothing of someone else's upload.
  if (!row || row.kind !== kind || row.uploaded_by !== userId) {
    throw new DomainError("refused", `The ${WORDS[kind]} was not found. Send it again.`);
  }
  if (row.movement_id !== null) {
    throw new DomainError(
      "conflict",
      `The ${WORDS[kind]} was already used by another movement. Send it again.`,
    );
  }
  return row;
}

/**
 * Checks a tablet's handover against the leg's policy, locking the images it names. `movementId`: the
 * open trip a return finishes (null when the submission creates its movement). Returns null when the leg
 * records none (policy off, or a trip whose return was already signed for).
 */
export async function takeHandover(
  trx: Tx,
  p: { leg: MovementStage; userId: number; movementId: number | null; input: HandoverInput | null },
): Promise<TakenHandover | null> {
  if (p.movementId !== null && await handoverExists(trx, p.movementId, p.leg)) {
    // A trip handed in in parts: the leg's handover is the first one's (docs/handover.md "Policy").
    if (p.input !== null) {
      throw new DomainError("conflict", "The return of this trip was already signed for.");
    }
    return null;
  }
  const policy = await lockedPolicyOfLeg(trx, p.leg) ?? DEFAULT_POLICY[p.leg];
  const shape = handoverShape(policy, p.input);
  if (shape === null) return null;
  const input = p.input!;
  const ids = shape.signed ? [input.signatureImageId!] : [input.leftImageId!];
  const rows = await lockHandoverImages(trx, ids);
  return {
    leg: p.leg,
    userId: p.userId,
    receiverName: shape.signed ? shape.name : null,
    unsignedReason: shape.signed ? null : shape.reason,
    signature: shape.signed ? imageOf(rows, input.signatureImageId!, "signature", p.userId) : null,
    left: shape.signed ? null : imageOf(rows, input.leftImageId!, "left", p.userId),
  };
}

/**
 * Records a taken handover for the movement just written: marks its image used by the leg and writes the
 * handover row with its digest over the leg's parts (`parts`: each part with its photo of this leg).
 */
export async function recordHandover(
  trx: Tx,
  h: TakenHandover,
  movementId: number,
  parts: { partId: number; photoId: number | null }[],
  now: Date,
): Promise<void> {
  const image = h.signature ?? h.left!;
  // Locked since takeHandover and unused then: the update marks it, or the lock was not held (a bug).
  if (await markHandoverImagesUsed(trx, [image.id], movementId, h.leg) !== 1) {
    throw new Error("handover: a locked image changed");
  }
  const keys = await photoKeysOf(trx, parts.flatMap((p) => p.photoId === null ? [] : [p.photoId]));
  const digest = handoverDigest({
    movementId,
    leg: h.leg,
    parts: parts.map((p) => ({ partId: p.partId, sha256: p.photoId === null ? null : keys.get(p.photoId)! })),
    signatureSha256: h.signature?.sha256 ?? null,
    leftSha256: h.left?.sha256 ?? null,
  });
  await insertHandover(trx, {
    movementId,
    leg: h.leg,
    receiverName: h.receiverName,
    signaturePhotoId: h.signature?.photo_id ?? null,
    unsignedReason: h.unsignedReason,
    leftPhotoId: h.left?.photo_id ?? null,
    recordedAt: now,
    recordedBy: h.userId,
    digest,
  });
}
