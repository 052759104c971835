/**
 * Per tablet page: JavaScript and CSS shipped (gzipped), against the 30 KB JavaScript budget, and
 * the server's render time (session, queries, render) against the cheapest request through the same app.
 * Runs in process over an in-memory embedded database with the demo data.
 */
import { newPGlite, openDb } from "@/db/client.ts";
import { importData } from "@/lib/import.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { DIST_DIR, ensureAssets } from "@/render/assets.ts";
import { systemClock } from "@/io/clock.ts";
import { testConfig } from "@/io/config.ts";
import { DEMO_DATA_URL } from "@/lib/demo_data.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { createApp } from "@/main.ts";
import { percentile } from "@/bench/load.ts";
import type { BenchRow } from "@/tasks/bench.ts";

const PAGES = ["/tablet/sign-in", "/tablet", "/tablet/deliver", "/tablet/collect", "/tablet/return"];
const JS_BUDGET = 30 * 1024;
const RENDERS = 60;

async function gzipSize(path: string): Promise<number> {
  const stream = (await Deno.open(path)).readable.pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

/** Sums the gzipped sizes of the page's scripts (boot + module preloads) and stylesheets. */
async function shipped(html: string): Promise<{ js: number; css: number }> {
  const urls = (re: RegExp) => [...html.matchAll(re)].map((m) => m[1]);
  const js = urls(/<script[^>]+src="([^"]+)"/g).concat(
    urls(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g),
  );
  const css = urls(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g);
  const size = async (list: string[]) => {
    let total = 0;
    for (const url of new Set(list)) total += await gzipSize(`${DIST_DIR}/${url.split("/").pop()}`);
    return total;
  };
  return { js: await size(js), css: await size(css) };
}

async function medianMs(fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RENDERS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return percentile(times.sort((a, b) => a - b), 50);
}

export async function benchPages(): Promise<BenchRow[]> {
  await ensureAssets({ log: () => {} });
  const db = openDb({ pglite: newPGlite({}) });
  const rows: BenchRow[] = [];
  try {
    await migrateToLatest(db);
    await importData(db, JSON.parse(await Deno.readTextFile(DEMO_DATA_URL)), systemClock);
    const storage = new DiskPhotoStore(await Deno.makeTempDir());
    const app = createApp({ db, config: testConfig(), clock: systemClock, storage });
    const signIn = await app.request("http://localhost/tablet/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=dana%40depot.example&pin=4821&next=%2Ftablet",
    });
    const cookie = signIn.headers.getSetCookie().map((c) => c.split(";")[0]).find((c) =>
      c.startsWith("pm_session=")
    );
    if (!cookie) throw new Error(`bench sign-in failed: ${signIn.status}`);
    // The floor: one request through the same app that runs one query (the health check).
    const floor = await medianMs(async () => await (await app.request("http://localhost/healthz")).text());
    for (const path of PAGES) {
      const headers: Record<string, string> = path === "/tablet/sign-in" ? {} : { cookie };
      const get = async () => await (await app.request(`http://localhost${path}`, { headers })).text();
      const html = await get();
      const { js, css } = await shipped(html);
      const render = await medianMs(get);
      rows.push({
        figure: `page ${path}: JS / CSS gzipped (KB)`,
        service: `${(js / 1024).toFixed(1)} / ${(css / 1024).toFixed(1)}`,
        baseline: `${JS_BUDGET / 1024} (JS budget)`,
        ratio: (js / JS_BUDGET).toFixed(2),
      }, {
        figure: `page ${path}: server render median (ms)`,
        service: render.toFixed(2),
        baseline: floor.toFixed(2),
        ratio: (render / floor).toFixed(1),
        note: "baseline: GET /healthz through the same app (one query)",
      });
    }
  } finally {
    await db.destroy();
  }
  return rows;
}
