/**
 * The one way a photo's bytes enter the store (docs/photos.md "Upload path"): streamed to storage under the
 * size cap, typed by its first bytes, checked for size in pixels, and only then committed (durable and
 * verified in the configured store, io/photo_storage.ts). Used by the photo uploads (lib/photos/upload.ts)
 * and by every other photo a driver sends (a return request's, docs/return-requests.md "Photo"); each caller
 * then records the photo row in its own transaction. A committed file whose row is never recorded is left to
 * the purge (lib/photos/purge.ts).
 */
import { type ImageType, isTooManyPixels, MAX_PIXELS, probeImage } from "@/io/image_probe.ts";
import { NoFilePartError, NotMultipartError } from "@/io/multipart.ts";
import {
  EmptyPhotoError,
  type PhotoStore,
  PhotoStoreUnavailable,
  PhotoTooLargeError,
  type StagedPhoto,
} from "@/io/photo_storage.ts";
import { UploadRefused } from "@/lib/photos/upload_refused.ts";

/** A photo committed to the store, as its photo row records it. */
export interface CheckedImage {
  key: string;
  contentType: ImageType;
  bytes: number;
  width: number;
  height: number;
}

/** Hands the photo's bytes to `sink` as a stream (multipart `file` part, or a raw body). */
export type ImageReader = (
  sink: (file: ReadableStream<Uint8Array>) => Promise<StagedPhoto>,
) => Promise<StagedPhoto>;

/** Stores the photo `readFile` gives, or throws UploadRefused saying why not (nothing is kept then). */
export async function stageCheckedImage(
  storage: PhotoStore,
  maxBytes: number,
  readFile: ImageReader,
): Promise<CheckedImage> {
  const staged = await readFile((file) => storage.stage(file, { maxBytes })).catch((error) => {
    throw refusalOf(error, maxBytes);
  });
  try {
    const info = probeImage(staged.head);
    if (!info) throw new UploadRefused("not_image", "The file is not a JPEG, PNG, WebP or HEIC photo.");
    if (isTooManyPixels(info)) {
      throw new UploadRefused(
        "too_many_pixels",
        `The photo is ${info.width}x${info.height} pixels; at most ${
          MAX_PIXELS / 1_000_000
        } megapixels are accepted.`,
      );
    }
    const key = await staged.commit().catch((error) => {
      throw refusalOf(error, maxBytes);
    });
    return { key, contentType: info.type, bytes: staged.bytes, width: info.width, height: info.height };
  } finally {
    await staged.discard(); // no-op once committed
  }
}

const EXTENSIONS: Record<ImageType, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/webp": "webp",
  "image/heic": "heic",
};

/** The generated name a photo is known by (never the client's filename). */
export const imageFilename = (image: Pick<CheckedImage, "key" | "contentType">): string =>
  `${image.key}.${EXTENSIONS[image.contentType]}`;

/** The refusal of a photo over `maxBytes`: what the streaming cap says, and what a body limit says early. */
export const photoTooLarge = (maxBytes: number) =>
  new UploadRefused("too_large", `The photo is larger than ${formatBytes(maxBytes)}.`);

/** Said when the store fails; the fault itself is logged (operators need it, the driver does not). */
export const STORE_UNAVAILABLE =
  "Photo storage is unavailable right now; the photo was not stored. Try again.";

function refusalOf(error: unknown, maxBytes: number): unknown {
  if (error instanceof PhotoStoreUnavailable) {
    console.error(`upload: ${error.message}`);
    return new UploadRefused("store_unavailable", STORE_UNAVAILABLE);
  }
  if (error instanceof PhotoTooLargeError) return photoTooLarge(maxBytes);
  if (error instanceof EmptyPhotoError) return new UploadRefused("empty", "The uploaded file is empty.");
  if (error instanceof NoFilePartError) {
    return new UploadRefused("no_file", "The upload has no part named file (multipart/form-data).");
  }
  if (error instanceof NotMultipartError) {
    return new UploadRefused(
      "not_multipart",
      "The upload must be multipart/form-data with a part named file.",
    );
  }
  return error;
}

function formatBytes(n: number): string {
  if (n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
