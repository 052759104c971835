/**
 * Quotas on staged photos (docs/photos.md "Quotas"): photos uploaded (call 2b, or the tablet's photo) and not
 * yet used by a submission hold disk until a submission uses them or the purge takes them (30 days, D19), so
 * anyone holding the public key could fill the disk with them. Two limits, from the configuration:
 * `STAGED_PHOTOS_PER_USER` photos per uploader (the user call 2a named) and `STAGED_PHOTO_BYTES_TOTAL` bytes
 * in all. A retake replaces the uploader's earlier photo of the same part and stage: it does not add to the
 * uploader's count (db/queries/staged_photos.ts stagedUseAround leaves those out).
 *
 * Checked twice: before a byte of the body is read (a refused upload costs nothing), and again, under one
 * lock for every instance, in the transaction that records the photo (lib/photos/upload.ts), so parallel
 * uploads cannot pass the limit together.
 *
 * Everyone's bytes are read from a bound kept beside them (`staged_photo_bytes`, never less than the truth:
 * every upload adds its bytes, nothing takes any away), so neither check sums every staged photo; only
 * when the bound alone would refuse are they counted exactly, and under the lock the bound is set to that
 * count. The purge sets it too (lib/photos/purge.ts).
 */
import type { Config } from "@/io/config.ts";
import type { Db } from "@/db/client.ts";
import {
  lockStagedQuota,
  recountStagedBytes,
  stagedBytesExactly,
  type StagedUse,
  stagedUseAdding,
  stagedUseAround,
} from "@/db/queries/staged_photos.ts";
import type { QueryRunner, Tx } from "@/db/queries/compiled.ts";
import { UploadRefused } from "@/lib/photos/upload_refused.ts";

type QuotaConfig = Pick<Config, "stagedPhotosPerUser" | "stagedPhotoBytesTotal">;

const overBytes = (config: QuotaConfig, use: StagedUse, incomingBytes: number) =>
  use.totalBytes + incomingBytes > config.stagedPhotoBytesTotal;

/** Before the body of a photo for staged record `recordId`: refuses an uploader or a server at its quota. */
export async function checkStagedQuotaBefore(db: QueryRunner, config: QuotaConfig, recordId: number) {
  const use = await stagedUseAround(db, recordId);
  if (overBytes(config, use, 0)) use.totalBytes = await stagedBytesExactly(db);
  checkStagedQuota(config, use, 0);
}

/** Sets the bound to the exact bytes again, under the lock (the purge, once it removed staged rows). */
export async function recountStagedQuota(db: Db): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockStagedQuota(trx);
    await recountStagedBytes(trx);
  });
}

/**
 * In the transaction that records a photo of `bytes` for staged record `recordId`: takes the quota's lock,
 * refuses as checkStagedQuota does, and adds the bytes to the bound (rolled back with a refusal).
 */
export async function reserveStagedQuota(trx: Tx, config: QuotaConfig, recordId: number, bytes: number) {
  await lockStagedQuota(trx);
  const use = await stagedUseAdding(trx, recordId, bytes);
  if (overBytes(config, use, bytes)) use.totalBytes = await recountStagedBytes(trx, bytes);
  checkStagedQuota(config, use, bytes);
}

/** Refuses when recording `incomingBytes` more would pass either limit; nothing otherwise. */
export function checkStagedQuota(
  config: QuotaConfig,
  use: StagedUse,
  incomingBytes: number,
): void {
  if (use.uploaderPhotos >= config.stagedPhotosPerUser) {
    throw new UploadRefused(
      "too_many_staged",
      `Too many of your photos are waiting to be submitted (${use.uploaderPhotos}, the most one user may ` +
        "have). Submit the parts you photographed, then take new photos.",
    );
  }
  if (overBytes(config, use, incomingBytes)) {
    throw new UploadRefused(
      "staging_full",
      "The server holds as many photos waiting to be submitted as it may; the photo was not stored. " +
        "Submit waiting movements, or try again later.",
    );
  }
}
