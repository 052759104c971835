/**
 * The photo purge (D19): staged rows (Parts_Uploaded_Images) older than 30 days go, with their tokens
 * (ON DELETE CASCADE); Deliver_Parts rows that used one keep their photo and lose only the staged link
 * (ON DELETE SET NULL), and so do staged rows a retake replaced (lib/photos/retakes.ts), and handover images
 * no submission took (docs/handover.md). Then photo rows nothing references any more (no staged row, no
 * Deliver_Parts, no return request, no handover image or handover)
 * and their files go; photos used by Deliver_Parts are kept for good. Last, files no photo row names
 * (an upload that lost a race or died between storing and recording) and leftovers in tmp/.
 *
 * Safe beside live uploads: rows and files younger than IN_FLIGHT_GRACE_MS are never touched, a photo
 * row is deleted only by a statement that re-checks it is unreferenced, and files are removed with
 * `olderThan` (storage.remove) the purge's start less that grace, so a photo re-uploaded (deduplicated
 * onto its file, which refreshes its time) meanwhile is kept.
 * Runs daily inside the server (startPurgeSchedule) and on demand: `deno task purge`.
 */
import { deleteUnusedHandoverImagesBefore } from "@/db/queries/handovers.ts";
import { deleteReplacedBefore } from "@/db/queries/staged_photos.ts";
import {
  deletePhotoIfUnreferenced,
  deleteStagedBefore,
  keysInUse,
  unreferencedPhotoIds,
} from "@/db/queries/photo_purge.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { logger } from "@/io/log.ts";
import { repeatEvery, type Repeating } from "@/io/repeat.ts";
import { recountStagedQuota } from "@/lib/photos/quota.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Staged rows older than this are purged (D19). */
export const STAGED_MAX_AGE_MS = 30 * DAY_MS;
/** Anything younger may belong to an upload still finishing; left for the next run. */
export const IN_FLIGHT_GRACE_MS = 60 * 60 * 1000;
/**
 * A photo a retake replaced is removed this long after it was replaced (lib/photos/retakes.ts): longer than
 * an upload of the same bytes takes from storing its file to recording it (one statement under
 * DB_STATEMENT_TIMEOUT_MS), so the file of such an upload is never taken from under it.
 */
export const RETAKE_GRACE_MS = 60 * 1000;
/** How often the server runs the purge. */
export const PURGE_INTERVAL_MS = DAY_MS;

const BATCH = 500;

export interface PurgeReport {
  stagedRows: number;
  photoRows: number;
  /** Photo and thumbnail files removed (of deleted rows, and files no row named). */
  files: number;
  tmpFiles: number;
}

type PurgeDeps = Pick<AppDeps, "db" | "storage" | "clock">;

export async function purgePhotos({ db, storage, clock }: PurgeDeps): Promise<PurgeReport> {
  const start = clock.now();
  const graceEdge = new Date(start.getTime() - IN_FLIGHT_GRACE_MS);
  const report: PurgeReport = { stagedRows: 0, photoRows: 0, files: 0, tmpFiles: 0 };

  // 1. Staged rows, in batches so no statement holds many locks for long.
  const cutoff = new Date(start.getTime() - STAGED_MAX_AGE_MS);
  for (let n = BATCH; n === BATCH;) {
    n = await deleteStagedBefore(db, cutoff, BATCH);
    report.stagedRows += n;
  }

  // 1b. Staged rows a retake replaced (lib/photos/retakes.ts does this within minutes while serving).
  for (let n = BATCH; n === BATCH;) {
    const photoIds = await deleteReplacedBefore(db, new Date(start.getTime() - RETAKE_GRACE_MS), BATCH);
    n = photoIds.length;
    report.stagedRows += n;
  }

  // 1c. Handover images no submission took (docs/handover.md "What is stored"), at the staged rows' age.
  for (let n = BATCH; n === BATCH;) {
    n = await deleteUnusedHandoverImagesBefore(db, cutoff, BATCH);
    report.stagedRows += n;
  }

  // 1d. The staged bytes' bound (lib/photos/quota.ts) back to the truth: the rows removed above and the
  // photos submitted since the last purge no longer count.
  await recountStagedQuota(db);

  // 2. Photo rows nothing references; each delete re-checks, so a reference made meanwhile keeps it.
  for (let afterId = 0;;) {
    const ids = await unreferencedPhotoIds(db, graceEdge, afterId, BATCH);
    if (ids.length === 0) break;
    afterId = ids[ids.length - 1];
    const removed = await removeUnreferencedPhotos({ db, storage }, ids, graceEdge);
    report.photoRows += removed.photoRows;
    report.files += removed.files;
  }

  // 3. Files no photo row names: left by a lost upload race or a crash between storing and recording.
  let batch: string[] = [];
  for await (const key of storage.keys()) {
    batch.push(key);
    if (batch.length === BATCH) {
      report.files += await removeUnnamedFiles({ db, storage }, batch, graceEdge);
      batch = [];
    }
  }
  report.files += await removeUnnamedFiles({ db, storage }, batch, graceEdge);

  // 4. Temporary files of uploads cut off by a crash (a live upload's file is younger than the grace).
  report.tmpFiles = await storage.sweepTmp(IN_FLIGHT_GRACE_MS, start);
  return report;
}

/**
 * Deletes these photo rows if nothing references them (each delete re-checks, so a reference made meanwhile
 * keeps it), then their files and thumbnails that no remaining row names, last written before `olderThan`.
 */
export async function removeUnreferencedPhotos(
  deps: Pick<AppDeps, "db" | "storage">,
  ids: number[],
  olderThan: Date,
): Promise<{ photoRows: number; files: number }> {
  let photoRows = 0;
  const freed: string[] = [];
  for (const id of ids) {
    const gone = await deletePhotoIfUnreferenced(deps.db, id);
    if (!gone) continue;
    photoRows++;
    freed.push(gone.storage_key, ...(gone.thumb_key ? [gone.thumb_key] : []));
  }
  // A thumbnail could equal another photo's bytes: only files no remaining row names go. A file touched
  // since `olderThan` may be an upload of the same bytes about to record a new row: the next run's orphan
  // pass decides about it.
  return { photoRows, files: await removeUnnamedFiles(deps, freed, olderThan) };
}

/** Removes the files of `keys` that no photo row names and that were last written before `olderThan`. */
async function removeUnnamedFiles(
  { db, storage }: Pick<AppDeps, "db" | "storage">,
  keys: string[],
  olderThan: Date,
): Promise<number> {
  const inUse = await keysInUse(db, keys);
  let files = 0;
  for (const key of new Set(keys)) {
    if (!inUse.has(key) && await storage.remove(key, { olderThan })) files++;
  }
  return files;
}

const purgeLog = logger("purge");

export type PurgeSchedule = Repeating;

/**
 * Runs the purge `firstDelayMs` after start-up, then every `intervalMs` (a day). Failures are logged and
 * retried at the next run.
 */
export function startPurgeSchedule(
  deps: PurgeDeps,
  opts: { firstDelayMs?: number; intervalMs?: number; log?: (line: string) => void } = {},
): PurgeSchedule {
  const intervalMs = opts.intervalMs ?? PURGE_INTERVAL_MS;
  const log = opts.log ?? ((line) => purgeLog.info(line));
  return repeatEvery(async () => {
    const r = await purgePhotos(deps);
    if (r.stagedRows || r.photoRows || r.files || r.tmpFiles) {
      log(
        `purge: ${r.stagedRows} staged rows, ${r.photoRows} photo rows, ${r.files} files, ` +
          `${r.tmpFiles} temporary files removed`,
      );
    }
  }, {
    firstDelayMs: opts.firstDelayMs ?? 60_000,
    intervalMs,
    onError: (error) =>
      purgeLog.error("purge failed (next run in {next_run_min} min): {error}", {
        next_run_min: Math.round(intervalMs / 60_000),
        error: String((error as Error)?.stack ?? error),
      }),
  });
}
