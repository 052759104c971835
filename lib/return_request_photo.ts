/**
 * A return request's photo (docs/return-requests.md "Photo"): one photo of the parts at the shop, sent by the
 * driver who asked, after the request itself, so the request (a few hundred bytes) gets through a dead spot
 * first and the photo follows when the network allows. Only while the request is open: once a dispatcher
 * decided, a photo would change what they decided on. A later photo replaces the earlier one, which the purge
 * then removes (nothing references it, db/queries/photo_purge.ts).
 */
import { upsertPhoto } from "@/db/queries/photos.ts";
import { notifyChange } from "@/db/queries/changes.ts";
import { setReturnRequestPhotoIf } from "@/db/queries/return_requests.ts";
import type { User } from "@/db/schema.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import { type ImageReader, stageCheckedImage } from "@/lib/photos/checked_image.ts";
import { loadReturnRequest, type ReturnRequest } from "@/lib/return_requests.ts";

const decided = (r: ReturnRequest) =>
  new DomainError(
    "conflict",
    `Return request #${r.id} was already ${r.state} by ${
      r.decidedBy ?? "a dispatcher"
    }; the photo was not added.`,
  );

/**
 * Stores the photo `readFile` gives and puts it on request `requestId`. Null when there is no such request
 * or another driver made it (told apart from nothing, like an unknown id). Throws UploadRefused for a file
 * that is not a photo (or too large), DomainError `conflict` when the request was decided; either way the
 * request is unchanged.
 */
export async function attachReturnRequestPhoto(
  { db, config, clock, storage }: Pick<AppDeps, "db" | "config" | "clock" | "storage">,
  user: User,
  requestId: number,
  readFile: ImageReader,
): Promise<ReturnRequest | null> {
  const before = await loadReturnRequest(db, requestId);
  if (!before || before.requestedBy.id !== user.id) return null;
  if (before.state !== "open") throw decided(before);
  // Committed to the store before the row names it; a file whose row is rolled back is the purge's.
  const image = await stageCheckedImage(storage, config.maxPhotoBytes, readFile);
  await db.transaction().execute(async (tx) => {
    const photoId = await upsertPhoto(tx, { ...image, createdAt: clock.now() });
    if (!await setReturnRequestPhotoIf(tx, requestId, user.id, photoId)) {
      // Decided while the photo was uploading: read who decided it (rolled back, nothing is written).
      throw decided((await loadReturnRequest(tx, requestId)) ?? before);
    }
    await notifyChange(tx, "return_requests");
  });
  return await loadReturnRequest(db, requestId);
}
