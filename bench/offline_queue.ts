/**
 * The tablet's durable queue draining after the network returns: 10 photos of about 0.6 MB queued on the
 * device (IndexedDB) while offline, then the network back; the figure is the time from the browser's
 * `online` event to the last photo acknowledged by the server and removed from the device. Baseline: the
 * same 10 uploads sent one after another by a plain script in the same page (fetch, no queue, no
 * IndexedDB). Real Chromium over loopback against the app in process (embedded database, demo data);
 * interleaved runs (bench/pairs.ts) after an untimed one of each.
 */
import sharp from "sharp";
import type { Page } from "@/testkit/browser.ts";
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
import { demoDriverForm, enrolBenchTablet } from "@/bench/tablet_sign_in.ts";
import { compare, interleave, sized } from "@/bench/pairs.ts";
import { launchBrowser, serveApp } from "@/testkit/browser.ts";
import type { BenchRow } from "@/bench/report.ts";

const PHOTOS = 10;
const RUNS = sized(6, 4); // even: each side goes first in half (bench/pairs.ts)

/** A JPEG of random pixels (barely compressible) of about 0.6 MB, as the tablet's downscaling makes. */
async function photo(): Promise<Uint8Array> {
  const side = 980;
  const pixels = new Uint8Array(side * side * 3);
  for (let i = 0; i < pixels.length; i += 65536) crypto.getRandomValues(pixels.subarray(i, i + 65536));
  return await sharp(pixels, { raw: { width: side, height: side, channels: 3 } }).jpeg({ quality: 80 })
    .toBuffer();
}

/** Queues the photos on the device as the flow store does (one record per photo) while offline. */
function queuePhotos(page: Page, bytes: number[], partId: number): Promise<void> {
  return page.evaluate(async ({ bytes, count, partId }) => {
    const props = document.querySelector<HTMLElement>('[data-island="TabletIdle"]')!.dataset.islandProps!;
    const userId = JSON.parse(props).userId as number;
    const blob = new Blob([new Uint8Array(bytes)], { type: "image/jpeg" });
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open("pm-tablet-queue");
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const tx = db.transaction("photos", "readwrite");
    for (let i = 0; i < count; i++) {
      tx.objectStore("photos").put({
        key: crypto.randomUUID(),
        userId,
        movementKey: "bench",
        partId,
        job: "deliver",
        rego: "ABC123",
        blob,
        bytes: blob.size,
        createdAt: Date.now() + i,
      });
    }
    await new Promise((resolve) => (tx.oncomplete = resolve));
    db.close();
  }, { bytes, count: PHOTOS, partId });
}

/** In the page: ms from the `online` event to no photo bytes left on the device. */
function drainAfterOnline(page: Page): Promise<number> {
  return page.evaluate(() =>
    new Promise<number>((resolve) => {
      addEventListener("online", () => {
        const back = performance.now();
        const poll = () => {
          const open = indexedDB.open("pm-tablet-queue");
          open.onsuccess = () => {
            const all = open.result.transaction("photos").objectStore("photos").getAll();
            all.onsuccess = () => {
              open.result.close();
              const left = (all.result as { blob?: Blob }[]).filter((p) => p.blob).length;
              if (left === 0) resolve(performance.now() - back);
              else setTimeout(poll, 5);
            };
          };
        };
        poll();
      }, { once: true });
    })
  );
}

/** In the page: the same uploads sent directly, one after another; ms until the last answer. */
function directUploads(page: Page, bytes: number[], partId: number): Promise<number> {
  return page.evaluate(async ({ bytes, count, partId }) => {
    const props = document.querySelector<HTMLElement>('[data-island="TabletIdle"]')!.dataset.islandProps!;
    const csrf = JSON.parse(props).csrf as string;
    const blob = new Blob([new Uint8Array(bytes)], { type: "image/jpeg" });
    const t0 = performance.now();
    for (let i = 0; i < count; i++) {
      const res = await fetch(`/tablet/api/photos?job=deliver&rego=ABC123&part_id=${partId}`, {
        method: "POST",
        headers: { "content-type": "image/jpeg", "x-csrf-token": csrf },
        body: blob,
      });
      if (!res.ok) throw new Error(`upload answered ${res.status}`);
    }
    return performance.now() - t0;
  }, { bytes, count: PHOTOS, partId });
}

export async function benchOfflineQueue(): Promise<BenchRow[]> {
  await ensureAssets({ log: () => {} });
  const config = testConfig();
  const db = openDb({ pglite: newPGlite({}) });
  const dir = await Deno.makeTempDir({ prefix: "pm-bench-queue-" });
  const served = serveApp(
    createApp({ db, config, clock: systemClock, storage: new DiskPhotoStore(dir) }),
  );
  const browser = await launchBrowser();
  try {
    await migrateToLatest(db);
    await importData(db, JSON.parse(await Deno.readTextFile(DEMO_DATA_URL)), systemClock);
    const part = await db.selectFrom("parts_orders").select("id").where("part_no", "=", "52119-0K040")
      .executeTakeFirstOrThrow();
    const jpeg = [...await photo()];
    const context = await browser.newContext();
    await context.addCookies([{ ...await enrolBenchTablet(db, config), url: served.baseUrl }]);
    const page = await context.newPage();
    const signIn = await page.request.post(`${served.baseUrl}/tablet/sign-in`, {
      form: await demoDriverForm(db),
    });
    if (!signIn.ok()) throw new Error(`bench sign-in failed: ${signIn.status()}`);
    await page.goto(`${served.baseUrl}/tablet`);
    await page.locator('[data-island="TabletIdle"][data-hydrated]').waitFor({ state: "attached" });

    const queuedRun = async () => {
      await context.setOffline(true);
      await queuePhotos(page, jpeg, part.id);
      const drained = drainAfterOnline(page);
      await context.setOffline(false);
      return await drained;
    };
    // Untimed: one run of each warms the page, the service and the browser's connection.
    await directUploads(page, jpeg, part.id);
    await queuedRun();
    const ms = compare(
      await interleave(queuedRun, () => directUploads(page, jpeg, part.id), RUNS),
      (q) => q,
      (d) => d,
    );
    await context.close();
    const mb = (jpeg.length / 1e6).toFixed(2);
    return [{
      figure:
        `tablet queue: ${PHOTOS} photos of ${mb} MB queued offline, network back → last acknowledged (ms)`,
      service: ms.service,
      vs: "baseline",
      baseline: ms.baseline,
      ratio: ms.ratio,
      note: `${RUNS} interleaved runs a side in Chromium over loopback; baseline: the same uploads sent ` +
        "directly by a script in the page, no queue",
    }];
  } finally {
    await browser.close();
    await served.close();
    await db.destroy();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
