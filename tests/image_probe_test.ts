import assert from "node:assert/strict";
import { isTooManyPixels, MAX_PIXELS, PROBE_BYTES, probeImage } from "@/io/image_probe.ts";
import {
  loadFixture,
  loadPhoto,
  notAPhoto,
  PHOTO_FIXTURES,
  type PhotoFixtureName,
} from "@/testkit/photos.ts";

const names = Object.keys(PHOTO_FIXTURES) as PhotoFixtureName[];

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** An APP1 segment of `size` payload bytes (the max a segment can hold is 65533). */
function app1(size: number, fill = 0x45): Uint8Array {
  const seg = new Uint8Array(4 + size).fill(fill);
  seg.set([0xff, 0xe1, (size + 2) >> 8, (size + 2) & 0xff]);
  return seg;
}

for (const name of names) {
  Deno.test(`image_probe: the ${name} sample is recognised with its size`, async () => {
    const { info } = PHOTO_FIXTURES[name];
    assert.deepEqual(probeImage(await loadPhoto(name)), info);
  });

  Deno.test(`image_probe: every truncation of the ${name} sample gives null or the right answer`, async () => {
    const bytes = await loadPhoto(name);
    for (let n = 0; n <= Math.min(bytes.length, 2048); n++) {
      const result = probeImage(bytes.subarray(0, n));
      if (result !== null) assert.deepEqual(result, PHOTO_FIXTURES[name].info, `prefix of ${n} bytes`);
    }
  });
}

Deno.test("image_probe: a text file named .jpg is not an image", async () => {
  assert.equal(probeImage(await notAPhoto()), null);
  assert.equal(probeImage(new Uint8Array(0)), null);
  assert.equal(probeImage(new TextEncoder().encode("GIF89a\x01\x00\x01\x00")), null);
});

Deno.test("image_probe: JPEG size is found behind ~190 KiB of EXIF/APPn segments", async () => {
  const jpeg = await loadPhoto("jpeg");
  // SOI, three full APP1 segments, then the rest of the original file (after its own SOI).
  const big = concat(jpeg.subarray(0, 2), app1(65533), app1(65533), app1(65533), jpeg.subarray(2));
  assert.ok(big.length > 190 * 1024 && big.length < PROBE_BYTES);
  assert.deepEqual(probeImage(big.subarray(0, PROBE_BYTES)), { type: "image/jpeg", width: 480, height: 360 });
  // With only the first 64 KiB the frame header is out of reach: null, not a guess.
  assert.equal(probeImage(big.subarray(0, 64 * 1024)), null);
});

Deno.test("image_probe: JPEG fill bytes before a marker and payload bytes that look like SOF are skipped", async () => {
  const jpeg = await loadPhoto("jpeg");
  // An APP1 whose payload is full of FF C0 (a fake SOF) must be skipped by its length, not scanned.
  const fake = app1(64);
  for (let i = 4; i + 1 < fake.length; i += 2) fake.set([0xff, 0xc0], i);
  const withFill = concat(jpeg.subarray(0, 2), fake, new Uint8Array([0xff, 0xff]), jpeg.subarray(2));
  assert.deepEqual(probeImage(withFill), { type: "image/jpeg", width: 480, height: 360 });
});

Deno.test("image_probe: a JPEG that reaches its scan without a frame header has no size", () => {
  const bytes = new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0x00, 0x08, 1, 2, 3, 4, 5, 6]);
  assert.equal(probeImage(bytes), null);
});

Deno.test("image_probe: PNG whose first chunk is not IHDR is refused", async () => {
  const png = await loadPhoto("png");
  const broken = png.slice();
  broken.set(new TextEncoder().encode("IDAT"), 12);
  assert.equal(probeImage(broken), null);
});

Deno.test("image_probe: HEIC takes the largest ispe, so a grid photo reports the whole image", async () => {
  const heic = await loadPhoto("heic");
  assert.deepEqual(probeImage(heic), { type: "image/heic", width: 4032, height: 3024 });
});

Deno.test("image_probe: AVIF (mif1 with an avif brand) is not taken for HEIC", async () => {
  const heic = (await loadPhoto("heic")).slice();
  // ftyp payload: major(4) minor(4) compatible "mif1" "heic" -> major "avif", compatible "mif1" "avif".
  heic.set(new TextEncoder().encode("avif"), 8);
  heic.set(new TextEncoder().encode("mif1avif"), 16);
  assert.equal(probeImage(heic), null);
  // Generic mif1 alone (no AV1 brand) still counts as HEIF.
  heic.set(new TextEncoder().encode("mif1"), 8);
  heic.set(new TextEncoder().encode("mif1msf1"), 16);
  assert.equal(probeImage(heic)?.type, "image/heic");
});

Deno.test("image_probe: HEIC without an ispe box has no size", async () => {
  const heic = (await loadPhoto("heic")).slice();
  const text = new TextDecoder("latin1").decode(heic);
  for (let at = text.indexOf("ispe"); at !== -1; at = text.indexOf("ispe", at + 1)) {
    heic.set(new TextEncoder().encode("free"), at);
  }
  assert.equal(probeImage(heic), null);
});

Deno.test("image_probe: isTooManyPixels refuses above 50 megapixels, not at it", async () => {
  assert.equal(MAX_PIXELS, 50_000_000);
  assert.equal(isTooManyPixels({ width: 8000, height: 6250 }), false); // exactly 50 MP
  assert.equal(isTooManyPixels({ width: 8000, height: 6251 }), true);
  // A tiny PNG whose header claims 100000x100000: probed fine, then refused as a bomb.
  const png = (await loadFixture("photo.png")).slice();
  const view = new DataView(png.buffer);
  view.setUint32(16, 100_000);
  view.setUint32(20, 100_000);
  const info = probeImage(png);
  assert.deepEqual(info, { type: "image/png", width: 100_000, height: 100_000 });
  assert.equal(isTooManyPixels(info!), true);
});
