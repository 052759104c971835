/**
 * The checks every submission runs, in the order of D13: confirmed parts, parts listed twice, unknown
 * parts, parts of another claim, then per part in request order its status and its photo (D14).
 * Each throws the first failure as a DomainError with the exact text and the part it is about.
 */
import type { Db } from "@/db/client.ts";
import type { Tx } from "@/db/queries/compiled.ts";
import { type LockedPart, lockPartsInIdOrder } from "@/db/queries/parts.ts";
import { checkReads, type Repairer } from "@/db/queries/movements.ts";
import type { StagedImageRow } from "@/db/queries/photos.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError, ValidationError } from "@/lib/errors.ts";
import type { Flow } from "@/lib/flows.ts";
import type { SubmittedPart } from "@/lib/movements/input.ts";
import { appliedStepsQuery, type Replay, replayOf } from "@/lib/movements/replay.ts";
import { resolveClaim, type ResolvedClaim } from "@/lib/claims.ts";
import type { ClaimFlow } from "@/db/queries/claims.ts";

/** What the use cases need of the app's dependencies. */
export type MovementDeps = Pick<AppDeps, "db" | "config" | "clock">;

export interface ConfirmedPart {
  partId: number;
  imageId: number | null;
}

/** The claim a submission's rego names (D11), else `Claim not found.` */
export async function submissionClaim(db: Db, rego: string, flow: ClaimFlow): Promise<ResolvedClaim> {
  const claim = await resolveClaim(db, rego, flow);
  if (!claim) throw new DomainError("not_found", "Claim not found.");
  return claim;
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

/** Locks the confirmed parts in id order; an id that is no part answers `Part not found.` */
export async function lockConfirmedParts(
  trx: Tx,
  confirmed: ConfirmedPart[],
): Promise<Map<number, LockedPart>> {
  const rows = await lockPartsInIdOrder(trx, confirmed.map((p) => p.partId));
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
 * What the checks read once the parts are locked, in one statement (`checkReads`): an identical earlier
 * submission's answer (D16), the staged images of the confirmed parts, for leg 2 the trip's parts and for a
 * drop-off its repair shop.
 */
export async function readAfterLock(
  trx: Tx,
  opts: {
    flow: Flow;
    userId: number;
    claimId: number;
    confirmed: ConfirmedPart[];
    now: Date;
    tripId: number | null;
    repairerId: number | null;
  },
): Promise<
  { replay: Replay | null; staged: StagedImageRow[]; tripPartIds: Set<number>; repairer: Repairer | null }
> {
  const { flow, confirmed } = opts;
  const reads = await checkReads(trx, {
    ...appliedStepsQuery(flow, opts.claimId, confirmed),
    imageIds: confirmed.flatMap((p) => p.imageId === null ? [] : [p.imageId]),
    tripId: opts.tripId,
    repairerId: opts.repairerId,
  });
  return {
    replay: replayOf(reads.steps, opts),
    staged: reads.staged,
    tripPartIds: new Set(reads.tripPartIds),
    repairer: reads.repairer,
  };
}

/**
 * Per part, in request order: still in the flow's `from` status (else its "no longer …" text), then a
 * matching photo (else its "missing its … photo" text). A photo matches when the staged row exists, is for
 * that part, has the flow's stage, holds an uploaded file and is not used by any Deliver_Parts yet (D14).
 * The parts are locked, so the statuses read here are the ones the status flip will see.
 */
export function checkStatusesAndPhotos(
  flow: Flow,
  confirmed: ConfirmedPart[],
  parts: Map<number, LockedPart>,
  stagedRows: StagedImageRow[],
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
      photo.used
    ) {
      throw new DomainError("refused", flow.missingPhoto(part.part_no), partId);
    }
    return { part, imageId: photo.id, photoId: photo.photo_id };
  });
}
