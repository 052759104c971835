/**
 * "Report a problem" (docs/shop-page.md): a repair shop reports a part it holds (or was told it holds) as the
 * wrong part, damaged, or not received, with a note and, after, an optional photo; the report waits in the
 * dispatchers' queue (`/hq/problem-reports`) until one marks it handled. Audited with the shop as the actor.
 */
import { insertAuditEntry } from "@/db/queries/audit.ts";
import { notifyChange } from "@/db/queries/changes.ts";
import { upsertPhoto } from "@/db/queries/photos.ts";
import { lockPartsAsShopSees } from "@/db/queries/shop_page.ts";
import {
  insertProblemReport,
  openProblemReports,
  problemReportById,
  type ProblemReportRow,
  resolvedProblemReports,
  resolveProblemReportIf,
  setProblemPhotoIf,
} from "@/db/queries/shop_problems.ts";
import type { ProblemReason } from "@/db/schema.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import { type ImageReader, stageCheckedImage } from "@/lib/photos/checked_image.ts";
import { AT_SHOP, FLAGGED } from "@/lib/shops/page.ts";
import { cleanFreeText } from "@/lib/validation.ts";

export const PROBLEM_REASONS: Record<ProblemReason, string> = {
  wrong_part: "Wrong part",
  damaged: "Damaged",
  not_received: "Not received",
};

export const PROBLEM_NOTE_MAX = 500;

/** A report may be about a part the shop holds, or one the depot says it holds (not received). */
const REPORTABLE = new Set([AT_SHOP, FLAGGED]);

export async function reportProblem(
  { db, clock }: Pick<AppDeps, "db" | "clock">,
  repairerId: number,
  input: { partId: number; reason: ProblemReason; note: string | null },
): Promise<number> {
  const cleaned = cleanFreeText(input.note ?? "");
  if (cleaned === null) throw new DomainError("invalid", "The note must not contain control characters.");
  const note = cleaned.trim() || null;
  if (note && note.length > PROBLEM_NOTE_MAX) {
    throw new DomainError("invalid", `Keep the note under ${PROBLEM_NOTE_MAX} characters.`);
  }
  const at = clock.now();
  return await db.transaction().execute(async (tx) => {
    const [part] = await lockPartsAsShopSees(tx, repairerId, [input.partId]);
    if (!part?.ours) throw new DomainError("not_found", "That part is not one of your shop's.");
    if (!REPORTABLE.has(part.status)) {
      throw new DomainError("conflict", `${part.part_no} is not at your shop now (${part.status}).`);
    }
    const id = await insertProblemReport(tx, { repairerId, partId: part.id, reason: input.reason, note, at });
    await insertAuditEntry(tx, {
      actorId: null,
      actorRepairerId: repairerId,
      action: "shop.problem_report",
      subject: `part:${part.id}`,
      claimId: part.claim_id,
      after: { report: id, part_no: part.part_no, reason: input.reason, note },
      at,
    });
    // The action queue lists open reports (docs/action-queue.md): its pages refresh.
    await notifyChange(tx, "problem_reports");
    return id;
  });
}

/** The shop's photo for its open report; a later photo replaces it (the purge takes the old one). */
export async function attachProblemPhoto(
  { db, config, clock, storage }: Pick<AppDeps, "db" | "config" | "clock" | "storage">,
  repairerId: number,
  reportId: number,
  readFile: ImageReader,
): Promise<void> {
  const report = await problemReportById(db, reportId);
  if (!report || report.repairer_id !== repairerId) throw new DomainError("not_found", "Report not found.");
  if (report.state !== "open") throw new DomainError("conflict", "HQ has already dealt with this report.");
  const image = await stageCheckedImage(storage, config.maxPhotoBytes, readFile);
  await db.transaction().execute(async (tx) => {
    const photoId = await upsertPhoto(tx, { ...image, createdAt: clock.now() });
    if (!await setProblemPhotoIf(tx, reportId, repairerId, photoId)) {
      throw new DomainError("conflict", "HQ has already dealt with this report.");
    }
  });
}

/** The dispatchers' queue: open reports oldest first, and the latest handled. */
export async function problemReportQueue(
  { db }: Pick<AppDeps, "db">,
): Promise<{ open: ProblemReportRow[]; resolved: ProblemReportRow[] }> {
  const [open, resolved] = await Promise.all([openProblemReports(db, 200), resolvedProblemReports(db, 20)]);
  return { open, resolved };
}

/** A dispatcher marks a report handled; the second of two gets a conflict naming who did. */
export async function resolveProblemReport(
  { db, clock }: Pick<AppDeps, "db" | "clock">,
  userId: number,
  id: number,
): Promise<void> {
  const at = clock.now();
  await db.transaction().execute(async (tx) => {
    const done = await resolveProblemReportIf(tx, id, userId, at);
    if (!done) {
      const now = await problemReportById(tx, id);
      if (!now) throw new DomainError("not_found", "Report not found.");
      throw new DomainError(
        "conflict",
        `Report #${id} was already handled by ${
          now.resolved_by_name ?? "a dispatcher"
        }; nothing was changed.`,
      );
    }
    await insertAuditEntry(tx, {
      actorId: userId,
      action: "shop.problem_resolved",
      subject: `repairer:${done.repairer_id}`,
      claimId: done.claim_id,
      after: { report: id },
      at,
    });
    await notifyChange(tx, "problem_reports");
  });
}
