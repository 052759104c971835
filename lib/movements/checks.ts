/**
 * The checks every submission runs, in the order of D13: confirmed parts, parts listed twice, unknown
 * parts, parts of another claim, then per part in request order its status and its photo (D14).
 * Each throws the first failure as a DomainError with the exact text and the part it is about.
 */
import type { LockedPart } from "@/db/queries/parts.ts";
import type { StagedImageRow } from "@/db/queries/photos.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError, ValidationError } from "@/lib/errors.ts";
import type { Flow } from "@/lib/flows.ts";
import type { SubmittedPart } from "@/lib/movements/input.ts";

/** What the use cases need of the app's dependencies. */
export type MovementDeps = Pick<AppDeps, "db" | "config" | "clock" | "metrics">;

export interface ConfirmedPart {
  partId: number;
  imageId: number | null;
}

/** Drops `confirm: false` items; none left or a part listed twice is an error (D13). */
export function confirmedParts(flow: Flow, parts: SubmittedPart[]): ConfirmedPart[] {
  const confirmed = parts.filter((p) => p.confirm).map((p) => ({ partId: p.partId, imageId: p.imageId }));
  if (confirmed.length === 0) throw new DomainError("invalid", flow.noneSelected);
  const seen = new Set<number>();
  for (const p of confirmed) {
    if (seen.has(p.partId)) throw new ValidationError("details.parts", "lists a part twice");
    seen.add(p.partId);
  }
  return confirmed;
}

/** The locked rows of the confirmed parts by id; an id that is no part answers `Part not found.` */
export function lockedConfirmedParts(
  confirmed: ConfirmedPart[],
  rows: LockedPart[],
): Map<number, LockedPart> {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const unknown = confirmed.find((p) => !byId.has(p.partId));
  if (unknown) throw new DomainError("not_found", "Part not found.", unknown.partId);
  return byId;
}

/** Every confirmed part belongs to the claim, else `<Part No.> does not belong to this claim.` */
export function checkBelongToClaim(
  confirmed: ConfirmedPart[],
  parts: Map<number, LockedPart>,
  claimId: number,
) {
  for (const { partId } of confirmed) {
    const part = parts.get(partId)!;
    if (part.claim_id !== claimId) {
      throw new DomainError("refused", `${part.part_no} does not belong to this claim.`, partId);
    }
  }
}

/** A confirmed part whose status and photo passed: the staged image and its stored photo. */
export interface CheckedPart {
  part: LockedPart;
  imageId: number;
  photoId: number;
}

/**
 * Per part, in request order: still in the flow's `from` status (else its "no longer …" text), then a
 * matching photo (else its "missing its … photo" text). A photo matches when the staged row exists, is for
 * that part, has the flow's stage, holds an uploaded file and is not used by any Deliver_Parts yet (D14),
 * was staged by the submitting user (no one submits another's photo: docs/photos.md "Whose photo") and was
 * not replaced by that user's retake. The parts are locked, so the statuses read here are the ones the
 * status flip will see.
 */
export function checkStatusesAndPhotos(
  flow: Flow,
  confirmed: ConfirmedPart[],
  parts: Map<number, LockedPart>,
  stagedRows: StagedImageRow[],
  userId: number,
): CheckedPart[] {
  const staged = new Map(stagedRows.map((s) => [s.id, s]));
  return confirmed.map(({ partId, imageId }) => {
    const part = parts.get(partId)!;
    if (part.status !== flow.from) {
      throw new DomainError("conflict", flow.noLongerAvailable(part.part_no), partId);
    }
    const photo = imageId === null ? undefined : staged.get(imageId);
    if (
      !photo || photo.part_id !== partId || photo.movement_stage !== flow.stage || photo.photo_id === null ||
      photo.used || photo.uploaded_by !== userId || photo.replaced
    ) {
      throw new DomainError("refused", flow.missingPhoto(part.part_no), partId);
    }
    return { part, imageId: photo.id, photoId: photo.photo_id };
  });
}
