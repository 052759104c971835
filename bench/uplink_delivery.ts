/**
 * What a driver feels on a depot's poor uplink (docs/uplink.md): a delivery of 4 parts on the tablet pages
 * in real Chromium, timed from the first photo taken to the receipt shown, against its physical limit in the
 * same round: the bytes the browser sent ÷ the uplink + the round trips it made one after another × the
 * round trip, both counted from the browser's own network events (bench/cdp_network.ts). Two links,
 * interleaved (bench/pairs.ts): 1.5 Mbit/s up and 150 ms round trips emulated by Chromium itself (DevTools
 * `Network.emulateNetworkConditions`), and the same with 1 % of segments lost through a loopback proxy
 * (bench/uplink_proxy.ts: Chromium's emulation drops WebRTC packets only). Before them, the photo shrink's
 * bytes against SSIM per encoder and quality (bench/photo_encoding.ts) on stand-in camera photos
 * (bench/camera_photo.ts). The service worker is blocked: the emulation does not reach a worker's fetches.
 */
import type { BrowserContext, CDPSession, Page } from "@/testkit/browser.ts";
import { openDb } from "@/db/client.ts";
import { newPGlite } from "@/db/pglite.ts";
import { importData } from "@/lib/import.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { ensureAssets } from "@/render/assets.ts";
import { systemClock } from "@/io/clock.ts";
import { testConfig } from "@/io/config.ts";
import { DEMO_DATA_URL } from "@/lib/demo_data.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { createApp } from "@/main.ts";
import { PHOTO_QUALITY, PHOTO_TYPE } from "@/islands/_tablet_net.ts";
import { demoDriverForm, enrolBenchTablet } from "@/bench/tablet_sign_in.ts";
import { cameraPhoto } from "@/bench/camera_photo.ts";
import { type Encoded, encodingStudy } from "@/bench/photo_encoding.ts";
import { recordNetwork, serialRoundTrips } from "@/bench/cdp_network.ts";
import { startUplinkProxy } from "@/bench/uplink_proxy.ts";
import { compare, interleave, ROUNDS, spreadOf } from "@/bench/pairs.ts";
import { launchBrowser, serveApp } from "@/testkit/browser.ts";
import type { BenchRow } from "@/bench/report.ts";

const PARTS = 4;
const UPLINK_BYTES_PER_SECOND = 1.5e6 / 8;
const ROUND_TRIP_MS = 150;
const LOSS = 0.01;
/** The goal: a delivery within 1.3× its physical limit. */
const TARGET = 1.3;

/** Rego of bench claim `i`: each delivery uses a claim of its own (4 parts ready for delivery). */
const regoOf = (i: number) => `UPL${100 + i}`;
const partNo = (i: number, k: number) => `UPL${100 + i}-P${k}`;

async function benchData(claims: number) {
  const demo = JSON.parse(await Deno.readTextFile(DEMO_DATA_URL));
  return {
    ...demo,
    claims: Array.from({ length: claims }, (_, i) => ({
      claim_number: `CLM-UPL-${i}`,
      registration: regoOf(i),
      management: { repairer: "North Smash Repairs" },
      parts: Array.from({ length: PARTS }, (_, k) => ({
        part_no: partNo(i, k),
        description: `Bench part ${k + 1}`,
        qty: 1,
        status: "Arrived",
      })),
    })),
  };
}

interface Delivery {
  ms: number;
  /** Bytes of the 4 photo uploads alone. */
  photoBytes: number;
  limitMs: number;
  bytes: number;
  roundTrips: number;
  photoUploads: number;
  /** ms from the first photo taken to its upload's start. */
  firstUploadAfterMs: number;
  /** ms from the last photo upload's end to the receipt shown (the signature, the submission, the page). */
  tailMs: number;
  /** ms the uplink sat idle between the first photo upload's start and the last one's end. */
  idleBetweenUploadsMs: number;
  lost: number;
}

/** One signed-in tablet on one link: a browser context, its page, the page's DevTools session. */
interface Tablet {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  baseUrl: string;
  lost: () => number;
}

async function drawSignature(page: Page): Promise<void> {
  const pad = page.getByLabel("Signature", { exact: true });
  await pad.and(page.locator("[data-ready]")).waitFor({ timeout: 30_000 });
  await pad.evaluate((el) => el.scrollIntoView({ block: "center" }));
  const box = (await pad.boundingBox())!;
  const points = [[0.1, 0.6], [0.3, 0.3], [0.5, 0.65], [0.7, 0.3]]
    .map(([x, y]) => ({ x: box.x + box.width * x, y: box.y + box.height * y }));
  await page.mouse.move(points[0].x, points[0].y);
  await page.mouse.down();
  for (const p of points.slice(1)) await page.mouse.move(p.x, p.y, { steps: 3 });
  await page.mouse.up();
}

/** Offset from the DevTools monotonic clock (s) to the wall clock (s), from a request's two times. */
function clockOffset(cdp: CDPSession): Promise<number> {
  return new Promise((resolve) => {
    const fn = (e: { timestamp: number; wallTime: number }) => {
      cdp.off("Network.requestWillBeSent", fn as never);
      resolve(e.wallTime - e.timestamp);
    };
    cdp.on("Network.requestWillBeSent", fn as never);
  });
}

/** The delivery of claim `i` on `tablet`, photos from `photos` (files), timed and counted. */
async function deliver(tablet: Tablet, i: number, photos: string[]): Promise<Delivery> {
  const { page, cdp, baseUrl } = tablet;
  await page.goto(`${baseUrl}/tablet/deliver?rego=${regoOf(i)}`, { timeout: 60_000 });
  for (let k = 0; k < PARTS; k++) {
    await page.getByTestId(`part-${partNo(i, k)}`).waitFor({ timeout: 60_000 });
  }
  const lostBefore = tablet.lost();
  const record = recordNetwork(cdp, baseUrl);
  const offset = clockOffset(cdp);
  let t0 = 0, t0Wall = 0;
  for (let k = 0; k < PARTS; k++) {
    const card = page.getByTestId(`part-${partNo(i, k)}`);
    await card.getByRole("checkbox").check();
    await card.getByLabel(`Take photo of ${partNo(i, k)}`).setInputFiles(photos[k % photos.length]);
    // The clock starts when the page has the first photo (a camera hands it over at once; Playwright
    // first copies the 6 MB file into the browser).
    if (k === 0) [t0, t0Wall] = [performance.now(), Date.now() / 1000];
    // The preview shows: the camera handed the photo over and the driver turns to the next part.
    await card.getByRole("img", { name: `Photo of ${partNo(i, k)}` }).waitFor({ timeout: 30_000 });
  }
  await page.getByRole("button", { name: /^Review/ }).click();
  await page.getByRole("heading", { name: "Check and confirm" }).waitFor({ timeout: 60_000 });
  await page.getByLabel("Receiver's name").fill("Pat Receiver");
  await drawSignature(page);
  await page.getByRole("button", { name: "Confirm delivery" }).click();
  await page.waitForURL(/\/tablet\/movements\/\d+/, { timeout: 120_000 });
  await page.getByTestId("receipt-title").waitFor({ timeout: 60_000 });
  const ms = performance.now() - t0;
  record.stop();
  const sent = record.finished();
  const bytes = sent.reduce((n, r) => n + r.bodyBytes, 0);
  const roundTrips = serialRoundTrips(sent);
  const uploads = sent.filter((r) => r.method === "POST" && new URL(r.url).pathname === "/tablet/api/photos");
  if (uploads.length !== PARTS || uploads.some((r) => r.bodyBytes === 0)) {
    throw new Error(`expected ${PARTS} photo uploads with their lengths, saw ${JSON.stringify(uploads)}`);
  }
  const t0Cdp = t0Wall - await offset;
  const busy = uploads.reduce((n, r) => n + (r.end! - r.start), 0);
  return {
    ms,
    photoBytes: uploads.reduce((n, r) => n + r.bodyBytes, 0),
    limitMs: bytes / UPLINK_BYTES_PER_SECOND * 1000 + roundTrips * ROUND_TRIP_MS,
    bytes,
    roundTrips,
    photoUploads: uploads.length,
    firstUploadAfterMs: (uploads[0].start - t0Cdp) * 1000,
    tailMs: (t0Cdp + ms / 1000 - uploads.at(-1)!.end!) * 1000,
    idleBetweenUploadsMs: Math.max(0, (uploads.at(-1)!.end! - uploads[0].start - busy) * 1000),
    lost: tablet.lost() - lostBefore,
  };
}

async function openTablet(
  browser: Awaited<ReturnType<typeof launchBrowser>>,
  baseUrl: string,
  cookie: { name: string; value: string },
  form: Record<string, string>,
  options: { emulate: boolean; lost?: () => number; jpegOnly?: boolean },
): Promise<Tablet> {
  const context = await browser.newContext({
    serviceWorkers: "block",
    viewport: { width: 1280, height: 800 },
  });
  await context.addCookies([{ ...cookie, url: baseUrl }]);
  if (options.jpegOnly) {
    // A canvas that cannot encode WebP answers with a PNG (Safari before 17): the tablet falls back to JPEG.
    await context.addInitScript(() => {
      const toBlob = HTMLCanvasElement.prototype.toBlob;
      HTMLCanvasElement.prototype.toBlob = function (callback, type, quality) {
        toBlob.call(this, callback, type === "image/webp" ? "image/png" : type, quality);
      };
    });
  }
  const page = await context.newPage();
  const signIn = await page.request.post(`${baseUrl}/tablet/sign-in`, { form });
  if (!signIn.ok()) throw new Error(`bench sign-in failed: ${signIn.status()}`);
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  if (options.emulate) {
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: ROUND_TRIP_MS,
      downloadThroughput: -1,
      uploadThroughput: UPLINK_BYTES_PER_SECOND,
    });
  }
  return { context, page, cdp, baseUrl, lost: options.lost ?? (() => 0) };
}

const kb = (bytes: number) => `${Math.round(bytes / 1000)} KB`;

/** The encoder study's rows: the chosen encoding against the JPEG the tablet sent before (quality 0.85). */
function encodingRows(studies: Encoded[][]): BenchRow[] {
  const pick = (s: Encoded[], type: string, quality: number) =>
    s.find((e) => e.type === type && e.quality === quality)!;
  const before = studies.map((s) => pick(s, "image/jpeg", 0.85));
  const chosen = studies.map((s) => pick(s, PHOTO_TYPE, PHOTO_QUALITY));
  const list = studies[0].map((e, j) => {
    const ssims = studies.map((s) => s[j].ssim);
    const bytes = studies.map((s) => s[j].bytes);
    return `${e.type.slice(6)} ${e.quality}: ${kb(spreadOf(bytes).median)}, SSIM ${
      spreadOf(ssims).min.toFixed(4)
    }–${spreadOf(ssims).max.toFixed(4)}, ${
      Math.round(spreadOf(studies.map((s) => s[j].encodeMs)).median)
    } ms`;
  }).join("; ");
  return [
    {
      figure: `tablet photo shrink: bytes of ${PHOTO_TYPE} ${PHOTO_QUALITY} (2048 px) vs JPEG 0.85`,
      service: spreadOf(chosen.map((e) => e.bytes)),
      vs: "same service, JPEG 0.85 (before)",
      baseline: spreadOf(before.map((e) => e.bytes)),
      ratio: spreadOf(chosen.map((e, j) => e.bytes / before[j].bytes)),
      note: `${studies.length} stand-in camera photos (bench/camera_photo.ts), in Chromium; SSIM vs the ` +
        `downscaled original: chosen ${spreadOf(chosen.map((e) => e.ssim)).median.toFixed(4)}, JPEG 0.85 ` +
        `${spreadOf(before.map((e) => e.ssim)).median.toFixed(4)}. All: ${list}`,
    },
  ];
}

export async function benchUplink(): Promise<BenchRow[]> {
  await ensureAssets({ log: () => {} });
  const config = testConfig();
  const db = openDb({ pglite: newPGlite({}) });
  const dir = await Deno.makeTempDir({ prefix: "pm-bench-uplink-" });
  const served = serveApp(createApp({ db, config, clock: systemClock, storage: new DiskPhotoStore(dir) }));
  const port = Number(new URL(served.baseUrl).port);
  const proxy = startUplinkProxy({ hostname: "127.0.0.1", port }, {
    uplinkBytesPerSecond: UPLINK_BYTES_PER_SECOND,
    roundTripMs: ROUND_TRIP_MS,
    loss: LOSS,
    seed: 7,
  });
  // The proxied tablet reaches the app as "localhost": another host, so each tablet keeps its own cookies.
  const proxiedUrl = `http://localhost:${proxy.port}`;
  const browser = await launchBrowser();
  try {
    await migrateToLatest(db);
    const claims = 3 * (ROUNDS + 1);
    await importData(db, await benchData(claims), systemClock);
    const photos: string[] = [];
    const bytes: Uint8Array[] = [];
    for (const seed of [1, 2]) {
      const photo = await cameraPhoto(seed);
      bytes.push(photo);
      const file = `${dir}/camera-${seed}.jpg`;
      await Deno.writeFile(file, photo);
      photos.push(file);
    }
    const form = await demoDriverForm(db);
    const tablet = async (url: string, options: Parameters<typeof openTablet>[4]) =>
      openTablet(browser, url, await enrolBenchTablet(db, config), form, options);
    const clean = await tablet(served.baseUrl, { emulate: true });
    const jpeg = await tablet(served.baseUrl, { emulate: true, jpegOnly: true });
    const lossy = await tablet(proxiedUrl, { emulate: false, lost: proxy.lost });

    const candidates: { type: Encoded["type"]; quality: number }[] = [
      ...[0.6, 0.7, 0.75, 0.8, 0.85, 0.9].map((quality) => ({ type: "image/jpeg" as const, quality })),
      ...[0.7, 0.75, 0.78, 0.8, 0.85].map((quality) => ({ type: "image/webp" as const, quality })),
    ];
    const studies = [];
    for (const photo of bytes) {
      studies.push(await encodingStudy(clean.page, served.baseUrl, photo, candidates));
    }

    let next = 0;
    // Untimed: one delivery on each tablet warms the pages, their chunks and the connections.
    for (const t of [clean, lossy, jpeg]) await deliver(t, next++, photos);
    // Each round: the tablet as it is on both links, and on the clean link with the JPEG fallback.
    const samples = await interleave(
      async () => ({
        clean: await deliver(clean, next++, photos),
        lossy: await deliver(lossy, next++, photos),
      }),
      () => deliver(jpeg, next++, photos),
    );
    for (const t of [clean, lossy, jpeg]) await t.context.close();

    const rows: BenchRow[] = encodingRows(studies);
    const links = [
      ["1.5 Mbit/s up, 150 ms", samples.service.map((s) => s.clean)],
      [`same, ${LOSS * 100} % segments lost (proxy)`, samples.service.map((s) => s.lossy)],
      ["1.5 Mbit/s up, 150 ms, JPEG fallback", samples.baseline],
    ] as const;
    for (const [name, runs] of links) {
      const c = compare({ service: runs, baseline: runs }, (d) => d.ms, (d) => d.limitMs);
      const median = (pick: (d: Delivery) => number) => spreadOf(runs.map(pick)).median;
      const ms = (pick: (d: Delivery) => number) => Math.round(median(pick));
      const how = name.includes("lost")
        ? `loopback proxy, ${median((d) => d.lost)} segments lost`
        : "DevTools emulation";
      rows.push({
        figure: `tablet delivery of ${PARTS} parts, ${name}: first photo → receipt (ms) vs its limit`,
        service: c.service,
        vs: "budget",
        baseline: c.baseline,
        ratio: c.ratio,
        target: name === links[0][0] ? `≤ ${TARGET}` : undefined,
        note: `limit per round = bytes sent ÷ uplink + round trips in a row × ${ROUND_TRIP_MS} ms, counted ` +
          `from Chromium's Network events: ${kb(median((d) => d.bytes))} (photos ` +
          `${kb(median((d) => d.photoBytes))} in ${median((d) => d.photoUploads)} uploads), ` +
          `${median((d) => d.roundTrips)} round trips; ${ms((d) => d.firstUploadAfterMs)} ms from the ` +
          `first photo to its upload, uplink idle between uploads ${ms((d) => d.idleBetweenUploadsMs)} ms, ` +
          `last upload → receipt ${ms((d) => d.tailMs)} ms; ${how}; ${ROUNDS} interleaved rounds`,
      });
    }
    const photoType = compare(
      { service: samples.service.map((s) => s.clean), baseline: samples.baseline },
      (d) => d.ms,
      (d) => d.ms,
    );
    rows.push({
      figure:
        `tablet delivery of ${PARTS} parts, 1.5 Mbit/s up: photos as ${PHOTO_TYPE} ${PHOTO_QUALITY} (ms)`,
      service: photoType.service,
      vs: "same service, JPEG fallback (0.85)",
      baseline: photoType.baseline,
      ratio: photoType.ratio,
      note: `first photo → receipt; the fallback forced by a canvas that cannot encode WebP; ${ROUNDS} ` +
        "interleaved rounds",
    });
    return rows;
  } finally {
    await browser.close();
    proxy.close();
    await served.close();
    await db.destroy();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
