/**
 * Quotas on staged photos (docs/photos.md "Quotas"): photos uploaded (call 2b, or the tablet's photo) and not
 * yet used by a submission hold disk until a submission uses them or the purge takes them (30 days, D19), so
 * anyone holding the public key could fill the disk with them. Two limits, from the configuration:
 * `STAGED_PHOTOS_PER_USER` photos per uploader (the user call 2a named) and `STAGED_PHOTO_BYTES_TOTAL` bytes
 * in all. A retake replaces the uploader's earlier photo of the same part and stage: it does not add to the
 * uploader's count (db/queries/photos.ts stagedUseAround leaves those out).
 *
 * Checked twice: before a byte of the body is read (a refused upload costs nothing), and again, under one
 * lock for every instance, in the transaction that records the photo (lib/photos/upload.ts), so parallel
 * uploads cannot pass the limit together.
 */
import type { Config } from "@/io/config.ts";
import type { StagedUse } from "@/db/queries/photos.ts";
import { UploadRefused } from "@/lib/photos/upload_refused.ts";

/** Refuses when recording `incomingBytes` more would pass either limit; nothing otherwise. */
export function checkStagedQuota(
  config: Pick<Config, "stagedPhotosPerUser" | "stagedPhotoBytesTotal">,
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
  if (use.totalBytes + incomingBytes > config.stagedPhotoBytesTotal) {
    throw new UploadRefused(
      "staging_full",
      "The server holds as many photos waiting to be submitted as it may; the photo was not stored. " +
        "Submit waiting movements, or try again later.",
    );
  }
}
