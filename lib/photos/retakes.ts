/**
 * Retakes (docs/photos.md "Retakes"). A retake is a new photo of the same part for the same stage by the same
 * uploader: the protocol has no "replace" call, so the app and the tablet each make a new staged record (2a)
 * and upload to it (2b). When that photo is recorded, the uploader's earlier staged photos of that part and
 * stage that no submission used are marked replaced (db/queries/photos.ts replaceEarlierStaged, in the
 * upload's transaction): they stop counting for the uploader's quota and can no longer be submitted.
 *
 * Removing them is this sweep's, a short while later (RETAKE_GRACE_MS), not the upload's: the same bytes may
 * be on their way in for another record right now (identical photos share one file), and such an upload
 * stores its file before it records its row; after the grace it has recorded it, so its file is kept
 * (lib/photos/purge.ts removeUnreferencedPhotos). Until removed, a replaced photo still counts in the total
 * bytes (it is on disk). The daily purge removes them too, should the server have stopped meanwhile.
 */
import { deleteReplacedBefore } from "@/db/queries/staged_photos.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { logger } from "@/io/log.ts";
import { repeatEvery, type Repeating } from "@/io/repeat.ts";
import { removeUnreferencedPhotos, RETAKE_GRACE_MS } from "@/lib/photos/purge.ts";

const BATCH = 200;

export interface RetakeSweepReport {
  stagedRows: number;
  photoRows: number;
  files: number;
}

type SweepDeps = Pick<AppDeps, "db" | "storage" | "clock">;

/** Removes staged rows replaced more than RETAKE_GRACE_MS ago, then their photos nothing else uses. */
export async function removeReplacedPhotos({ db, storage, clock }: SweepDeps): Promise<RetakeSweepReport> {
  const edge = new Date(clock.now().getTime() - RETAKE_GRACE_MS);
  const report: RetakeSweepReport = { stagedRows: 0, photoRows: 0, files: 0 };
  for (let n = BATCH; n === BATCH;) {
    const photoIds = await deleteReplacedBefore(db, edge, BATCH);
    n = photoIds.length;
    report.stagedRows += n;
    // A file written since the edge may be an upload of the same bytes still recording: left for later.
    const removed = await removeUnreferencedPhotos({ db, storage }, photoIds, edge);
    report.photoRows += removed.photoRows;
    report.files += removed.files;
  }
  return report;
}

/** How often the server removes replaced photos. */
export const RETAKE_SWEEP_INTERVAL_MS = 30 * 1000;

const log = logger("purge");

/** Runs removeReplacedPhotos every RETAKE_SWEEP_INTERVAL_MS while the server runs. */
export function startRetakeSweep(deps: SweepDeps): Repeating {
  return repeatEvery(async () => {
    const r = await removeReplacedPhotos(deps);
    if (r.stagedRows) {
      log.info("retakes: {staged_rows} replaced photos removed ({files} files)", {
        staged_rows: r.stagedRows,
        files: r.files,
      });
    }
  }, {
    firstDelayMs: RETAKE_SWEEP_INTERVAL_MS,
    intervalMs: RETAKE_SWEEP_INTERVAL_MS,
    onError: (error) =>
      log.error("retake sweep failed: {error}", { error: String((error as Error)?.stack ?? error) }),
  });
}
