/**
 * Sample photos for tests and the bench (files in tests/fixtures/, rebuilt by
 * tests/fixtures/generate_photos.ts). Each loader reads a fresh copy, so a test may change its bytes without affecting another.
 */

import type { ImageInfo } from "@/io/image_probe.ts";

export interface PhotoFixture {
  file: string;
  /** What probeImage must report for it. */
  info: ImageInfo;
}

/** The real images, with the type and size each one has. */
export const PHOTO_FIXTURES = {
  jpeg: { file: "photo.jpg", info: { type: "image/jpeg", width: 480, height: 360 } },
  png: { file: "photo.png", info: { type: "image/png", width: 90, height: 120 } },
  /** Lossy WebP (VP8 chunk). */
  webp: { file: "photo.webp", info: { type: "image/webp", width: 200, height: 150 } },
  /** Lossless WebP (VP8L chunk). */
  webpLossless: { file: "photo_lossless.webp", info: { type: "image/webp", width: 60, height: 45 } },
  /** WebP with alpha (VP8X extended header). */
  webpAlpha: { file: "photo_alpha.webp", info: { type: "image/webp", width: 150, height: 100 } },
  /** HEIC header only (ftyp + meta/iprp/ipco/ispe): probes as 4032x3024 but cannot be decoded. */
  heic: { file: "photo.heic", info: { type: "image/heic", width: 4032, height: 3024 } },
} as const satisfies Record<string, PhotoFixture>;

export type PhotoFixtureName = keyof typeof PHOTO_FIXTURES;

/** Absolute path of a file in tests/fixtures/. */
export function fixturePath(file: string): string {
  return new URL(`../tests/fixtures/${file}`, import.meta.url).pathname;
}

export async function loadFixture(file: string): Promise<Uint8Array> {
  return await Deno.readFile(fixturePath(file));
}

export async function loadPhoto(name: PhotoFixtureName): Promise<Uint8Array> {
  return await loadFixture(PHOTO_FIXTURES[name].file);
}

export const jpegPhoto = () => loadPhoto("jpeg");
export const pngPhoto = () => loadPhoto("png");
export const webpPhoto = () => loadPhoto("webp");
export const heicPhoto = () => loadPhoto("heic");
/** A text file named photo-like (`not_a_photo.jpg`): must be refused by its first bytes (415). */
export const notAPhoto = () => loadFixture("not_a_photo.jpg");

/**
 * A multipart form with the photo in the `file` part, as the mobile app sends it (docs/protocol.md 2b).
 * `new Request(url, { method: "POST", body: form })` sets the multipart Content-Type and boundary.
 */
export function photoForm(bytes: Uint8Array, filename = "photo.jpg", type = "image/jpeg"): FormData {
  const form = new FormData();
  form.append("file", new File([bytes as Uint8Array<ArrayBuffer>], filename, { type }));
  return form;
}
