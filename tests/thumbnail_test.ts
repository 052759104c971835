import assert from "node:assert/strict";
import sharp from "sharp";
import { probeImage } from "@/io/image_probe.ts";
import { makeThumbnail, THUMBNAIL_EDGE } from "@/io/thumbnail.ts";
import { fixturePath, loadPhoto, notAPhoto, PHOTO_FIXTURES } from "@/testkit/photos.ts";

/** Asserts `thumb` is a JPEG and returns its probed size. */
function jpegSize(thumb: Uint8Array | null): { width: number; height: number } {
  assert.ok(thumb, "expected a thumbnail");
  assert.deepEqual([...thumb.subarray(0, 3)], [0xff, 0xd8, 0xff]);
  const info = probeImage(thumb);
  assert.equal(info?.type, "image/jpeg");
  assert.ok(Math.max(info.width, info.height) <= THUMBNAIL_EDGE && info.width > 0 && info.height > 0);
  return { width: info.width, height: info.height };
}

Deno.test("thumbnail: JPEG, PNG and every WebP flavour become small JPEGs, never enlarged", async () => {
  const expected = {
    jpeg: { width: 320, height: 240 }, // 480x360 scaled to 320 on the long edge
    png: { width: 90, height: 120 }, // smaller than 320: kept as is
    webp: { width: 200, height: 150 },
    webpLossless: { width: 60, height: 45 },
    webpAlpha: { width: 150, height: 100 },
  } as const;
  for (const [name, size] of Object.entries(expected)) {
    const fixture = PHOTO_FIXTURES[name as keyof typeof expected];
    const thumb = await makeThumbnail(await loadPhoto(name as keyof typeof expected), fixture.info.type);
    assert.deepEqual(jpegSize(thumb), size, name);
  }
});

Deno.test("thumbnail: a path works as input too", async () => {
  const thumb = await makeThumbnail(fixturePath(PHOTO_FIXTURES.jpeg.file), "image/jpeg");
  assert.deepEqual(jpegSize(thumb), { width: 320, height: 240 });
});

Deno.test("thumbnail: a large portrait photo is scaled to 320 on its long edge", async () => {
  const big = await sharp({ create: { width: 1200, height: 3000, channels: 3, background: "#808080" } })
    .jpeg().toBuffer();
  const thumb = await makeThumbnail(new Uint8Array(big), "image/jpeg");
  assert.deepEqual(jpegSize(thumb), { width: 128, height: 320 });
});

Deno.test("thumbnail: EXIF orientation is applied, so a sideways phone photo comes out upright", async () => {
  const sideways = await sharp(await loadPhoto("jpeg")).withMetadata({ orientation: 6 }).jpeg().toBuffer();
  const thumb = await makeThumbnail(new Uint8Array(sideways), "image/jpeg");
  assert.deepEqual(jpegSize(thumb), { width: 240, height: 320 });
});

Deno.test("thumbnail: HEIC and undecodable bytes give null (the original is served)", async () => {
  assert.equal(await makeThumbnail(await loadPhoto("heic"), "image/heic"), null);
  assert.equal(await makeThumbnail(await notAPhoto(), "image/jpeg"), null);
  // Right magic bytes, garbage after them.
  const fake = new Uint8Array(2000).fill(0x11);
  fake.set([0xff, 0xd8, 0xff, 0xe0]);
  assert.equal(await makeThumbnail(fake, "image/jpeg"), null);
});

Deno.test("thumbnail: the decoder refuses a decompression bomb on its own too", async () => {
  // A real PNG whose header claims 100000x100000 (10 gigapixels).
  const png = (await loadPhoto("png")).slice();
  new DataView(png.buffer).setUint32(16, 100_000);
  new DataView(png.buffer).setUint32(20, 100_000);
  assert.equal(await makeThumbnail(png, "image/png"), null);
});
