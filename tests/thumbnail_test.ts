import assert from "node:assert/strict";
import sharp from "sharp";
import { probeImage } from "@/io/image_probe.ts";
import { makeThumbnail, THUMBNAIL_EDGE } from "@/io/thumbnail.ts";
import { fixturePath, loadPhoto, notAPhoto, PHOTO_FIXTURES } from "@/testkit/photos.ts";
import { Hono, type MiddlewareHandler } from "hono";
import type { AppDeps } from "@/lib/deps.ts";
import type { SessionUser } from "@/lib/sessions.ts";
import { thumbnailCap } from "@/lib/photos/thumbnail_jobs.ts";
import { photoRoutes } from "@/routes/photos.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makePhoto } from "@/testkit/factories.ts";

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

/** The photo routes behind a guard that lets a dispatcher in (the app mounts them behind the session guard). */
function viewer(a: TestApp, decode: AppDeps["makeThumbnail"]) {
  const asDispatcher: MiddlewareHandler<SessionEnv> = async (c, next) => {
    c.set("session", { user: { id: 0, role: "dispatcher" } } as SessionUser);
    await next();
  };
  return new Hono().route("/photos", photoRoutes({ ...a, makeThumbnail: decode }, asDispatcher));
}

/** Polls `ready` (no timing asserted: a bound only, so a broken state fails instead of hanging). */
async function until(what: string, ready: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !ready(); i++) await new Promise((ok) => setTimeout(ok, 5));
  if (!ready()) throw new Error(`never happened: ${what}`);
}

appTest(
  "thumbnail cap: with THUMBNAIL_CONCURRENCY=1 two parallel first views never decode at once, and both finish",
  async (a) => {
    const jpeg = await makePhoto(a.db, a.storage, await loadPhoto("jpeg"));
    const png = await makePhoto(a.db, a.storage, await loadPhoto("png"));
    let inFlight = 0;
    let mostAtOnce = 0;
    let decodes = 0;
    const counting: typeof makeThumbnail = async (input, type) => {
      decodes++;
      mostAtOnce = Math.max(mostAtOnce, ++inFlight);
      try {
        return await makeThumbnail(input, type);
      } finally {
        inFlight--;
      }
    };
    const app = viewer(a, counting);
    const answers = await Promise.all([jpeg, png].map((p) => app.request(`/photos/${p.id}/thumb`)));
    for (const res of answers) {
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "image/jpeg");
      jpegSize(new Uint8Array(await res.arrayBuffer()));
    }
    assert.equal(decodes, 2);
    assert.equal(mostAtOnce, 1, "two decodes ran at the same time");
    assert.deepEqual([thumbnailCap(a.config).running, thumbnailCap(a.config).waiting], [0, 0]);
  },
  { config: { thumbnailConcurrency: 1 } },
);

appTest(
  "thumbnail cap: a view whose client goes away while it waits is never decoded; the next view is",
  async (a) => {
    const first = await makePhoto(a.db, a.storage, await loadPhoto("jpeg"));
    const second = await makePhoto(a.db, a.storage, await loadPhoto("png"));
    const decoded: Uint8Array[] = [];
    let release!: () => void;
    const gate = new Promise<void>((ok) => release = ok);
    const gated: typeof makeThumbnail = async (input, type) => {
      decoded.push(input as Uint8Array);
      await gate;
      return await makeThumbnail(input, type);
    };
    const app = viewer(a, gated);
    const cap = thumbnailCap(a.config);
    const firstView = app.request(`/photos/${first.id}/thumb`);
    await until("the first decode started", () => decoded.length === 1);
    const leaving = new AbortController();
    const secondView = app.request(`/photos/${second.id}/thumb`, { signal: leaving.signal });
    await until("the second view waits its turn", () => cap.waiting === 1);
    leaving.abort();
    await until("the second view left the queue", () => cap.waiting === 0);
    assert.equal((await secondView).status, 503);
    release();
    assert.equal((await firstView).status, 200);
    assert.equal(decoded.length, 1, "the abandoned view was decoded");
    assert.deepEqual([cap.running, cap.waiting], [0, 0]);

    const again = await app.request(`/photos/${second.id}/thumb`);
    assert.equal(again.status, 200);
    assert.equal(again.headers.get("content-type"), "image/jpeg");
    assert.equal(decoded.length, 2);
  },
  { config: { thumbnailConcurrency: 1 } },
);
