/**
 * How much ink an image holds: the pixels that read dark once the image is laid on white (a stroke drawn on
 * a transparent or a white canvas), so a blank signature can be told from a signed one (docs/handover.md
 * "Refusals"). Decoded by sharp (io/thumbnail.ts loads it), under the upload's pixel cap.
 */
import { MAX_PIXELS } from "@/io/image_probe.ts";
import { trimNativeHeap } from "@/io/native_heap.ts";
import { loadSharp } from "@/io/thumbnail.ts";

/** A pixel darker than this (0 black … 255 white) once laid on white counts as ink. */
const DARK = 160;

/** The number of ink pixels of `image`; null when it cannot be decoded (or sharp is unavailable). */
export async function inkPixels(image: Uint8Array): Promise<number | null> {
  const sharp = await loadSharp();
  if (!sharp) return null;
  try {
    const grey = await sharp(image, { limitInputPixels: MAX_PIXELS })
      .flatten({ background: "#ffffff" })
      .greyscale()
      .raw()
      .toBuffer();
    let ink = 0;
    for (const value of grey) if (value < DARK) ink++;
    return ink;
  } catch {
    return null;
  } finally {
    await trimNativeHeap();
  }
}
