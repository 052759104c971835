/**
 * Small JPEG previews of uploaded photos for the dashboard and tablet pages, so a page listing parts
 * does not pull multi-megabyte originals. Uses sharp (libvips, prebuilt binary from npm), which loads
 * under Deno with nodeModulesDir "auto". Returns null when no thumbnail can be made (HEIC: the prebuilt
 * libvips has no HEVC decoder; corrupt input; sharp unavailable) and the caller serves the original.
 */

import type { ImageType } from "@/io/image_probe.ts";
import { MAX_PIXELS } from "@/io/image_probe.ts";
import { logger } from "@/io/log.ts";
import { trimNativeHeap } from "@/io/native_heap.ts";

/** Long edge of a thumbnail, in pixels. */
export const THUMBNAIL_EDGE = 320;

type Sharp = typeof import("sharp").default;

let sharpLoad: Promise<Sharp | null> | undefined;

/**
 * Loads sharp on first use rather than at import: a machine where the native binary cannot load still
 * serves uploads and originals, it only goes without thumbnails. The signature check (io/ink.ts) loads it
 * here too.
 */
export function loadSharp(): Promise<Sharp | null> {
  sharpLoad ??= import("sharp").then((mod) => {
    const sharp = mod.default;
    // Thumbnails are made once and stored; libvips' operation cache would only hold memory.
    sharp.cache(false);
    return sharp;
  }).catch((error) => {
    logger("start").warn("Thumbnails off (sharp unavailable), serving originals only: {error}", {
      error: String(error),
    });
    return null;
  });
  return sharpLoad;
}

/** Formats the prebuilt libvips in sharp decodes. */
const DECODABLE = new Set<ImageType>(["image/jpeg", "image/png", "image/webp"]);

/**
 * A JPEG of at most THUMBNAIL_EDGE px on the long edge (never enlarged), turned upright by its EXIF
 * orientation, transparency flattened onto white. `input` is the photo's bytes or its file path.
 */
export async function makeThumbnail(input: Uint8Array | string, type: ImageType): Promise<Uint8Array | null> {
  if (!DECODABLE.has(type)) return null;
  const sharp = await loadSharp();
  if (!sharp) return null;
  try {
    const output = await sharp(input, {
      // Same bomb guard as the upload check, enforced again by the decoder itself.
      limitInputPixels: MAX_PIXELS,
      // Phone photos are sometimes slightly truncated; a thumbnail of what is there beats none.
      failOn: "none",
    })
      .rotate()
      .resize(THUMBNAIL_EDGE, THUMBNAIL_EDGE, { fit: "inside", withoutEnlargement: true })
      .flatten({ background: "#ffffff" })
      .jpeg({ quality: 75, mozjpeg: false })
      .toBuffer();
    return new Uint8Array(output.buffer, output.byteOffset, output.length);
  } catch {
    // Undecodable despite the right magic bytes: no thumbnail, the original is still served.
    return null;
  } finally {
    // A large decode leaves tens of MB in the decoding thread's malloc arena (io/native_heap.ts).
    await trimNativeHeap();
  }
}
