/**
 * The images of a handover (docs/handover.md "What is stored"): the receiver's signature and the photo of
 * where the parts were left, sent by the tablet before its submission. Each goes through the one photo store
 * path (lib/photos/checked_image.ts), is recorded as a photo row and staged for its uploader; a submission
 * takes it for one movement leg (lib/handover/record.ts). A signature must be a PNG of at most
 * SIGNATURE_MAX_BYTES holding some ink: a blank pad is refused.
 */
import type { HandoverImageKind, User } from "@/db/schema.ts";
import { insertHandoverImage, unusedHandoverImagesOf } from "@/db/queries/handovers.ts";
import { upsertPhoto } from "@/db/queries/photos.ts";
import { lockStagedQuota } from "@/db/queries/staged_photos.ts";
import { checkStagedQuota } from "@/lib/photos/quota.ts";
import { inkPixels } from "@/io/ink.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import { type CheckedImage, type ImageReader, stageCheckedImage } from "@/lib/photos/checked_image.ts";
import { UploadRefused } from "@/lib/photos/upload_refused.ts";

/** A signature pad's PNG is tens of KiB; anything far larger is not one. */
export const SIGNATURE_MAX_BYTES = 256 * 1024;

/** Fewer dark pixels than this is an untouched pad (or a stray tap), not a signature. */
export const MIN_INK_PIXELS = 20;

/** The largest body either kind may have: the route's streamed limit. */
export const handoverImageMaxBytes = (config: AppDeps["config"]) =>
  Math.max(SIGNATURE_MAX_BYTES, config.maxPhotoBytes);

/** The refusal of a signature over SIGNATURE_MAX_BYTES. */
export const signatureTooLarge = () =>
  new UploadRefused("too_large", `The signature is larger than ${SIGNATURE_MAX_BYTES / 1024} KiB.`);

/** Refuses a signature that is not a PNG or holds no ink. The bytes are ≤ SIGNATURE_MAX_BYTES. */
async function checkSignature(storage: AppDeps["storage"], image: CheckedImage): Promise<void> {
  if (image.contentType !== "image/png") {
    throw new UploadRefused("not_image", "The signature must be a PNG image.");
  }
  const bytes = await storage.read(image.key);
  const ink = bytes === null ? null : await inkPixels(bytes);
  if (ink === null) {
    throw new DomainError("invalid", "The signature could not be read. Ask the receiver to sign again.");
  }
  if (ink < MIN_INK_PIXELS) {
    throw new DomainError("invalid", "The signature is blank. Ask the receiver to sign.");
  }
}

/**
 * A driver's handover images not yet taken by a submission count against STAGED_PHOTOS_PER_USER on their
 * own (a driver with many parts photographed can still have the receiver sign).
 */
async function checkQuota(deps: Pick<AppDeps, "db" | "config">, user: Pick<User, "id">): Promise<void> {
  const uploaderPhotos = await unusedHandoverImagesOf(deps.db, user.id);
  checkStagedQuota(deps.config, { uploaderPhotos, totalBytes: 0 }, 0);
}

/**
 * Stores a handover image for `user`; returns its staged id. Throws UploadRefused (the photo refusals) or a
 * DomainError (a signature that is blank); nothing is recorded then (a file stored before a refusal is left
 * to the purge, like any refused upload's).
 */
export async function stageHandoverImage(
  deps: Pick<AppDeps, "db" | "storage" | "config" | "clock">,
  user: Pick<User, "id">,
  kind: HandoverImageKind,
  readFile: ImageReader,
): Promise<number> {
  const maxBytes = kind === "signature" ? SIGNATURE_MAX_BYTES : deps.config.maxPhotoBytes;
  // Before a byte of the body is read, and again under the quota's lock when recording (lib/photos/quota.ts).
  await checkQuota(deps, user);
  const image = await stageCheckedImage(deps.storage, maxBytes, readFile).catch((error) => {
    if (kind === "signature" && error instanceof UploadRefused && error.reason === "too_large") {
      throw signatureTooLarge();
    }
    throw error;
  });
  if (kind === "signature") await checkSignature(deps.storage, image);
  const at = deps.clock.now();
  return await deps.db.transaction().execute(async (tx) => {
    await lockStagedQuota(tx);
    await checkQuota({ ...deps, db: tx }, user);
    const photoId = await upsertPhoto(tx, { ...image, createdAt: at });
    return await insertHandoverImage(tx, { kind, photoId, userId: user.id, at });
  });
}
