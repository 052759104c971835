/**
 * Per tablet page: JavaScript and CSS on the wire as the assets route serves them to a browser that
 * accepts brotli, against the 30 KB JavaScript budget; the page's bytes on the wire (HTML, scripts,
 * stylesheet) compressed against the same files uncompressed, both fetched in this run; and the server's
 * render time (session, queries, render) against the cheapest request through the same app (/healthz),
 * the two timed in interleaved rounds (bench/pairs.ts), each after an untimed warm-up. Every answer
 * fetched or timed must be a 200. Runs in process over an in-memory embedded database with the demo data.
 */
import { openDb } from "@/db/client.ts";
import { newPGlite } from "@/db/pglite.ts";
import { importData } from "@/lib/import.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { ASSET_URL_PREFIX, ensureAssets } from "@/render/assets.ts";
import { systemClock } from "@/io/clock.ts";
import { testConfig } from "@/io/config.ts";
import { DEMO_DATA_URL } from "@/lib/demo_data.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { createApp } from "@/main.ts";
import { sessionCookie } from "@/routes/web/session.ts";
import { demoDriverForm, enrolBenchTablet } from "@/bench/tablet_sign_in.ts";
import { percentile } from "@/bench/load.ts";
import { compare, interleave, sized } from "@/bench/pairs.ts";
import type { BenchRow } from "@/bench/report.ts";
import type { Hono } from "hono";

const PAGES = ["/tablet/sign-in", "/tablet", "/tablet/deliver", "/tablet/collect", "/tablet/return"];
const JS_BUDGET = 30 * 1024;
const RENDERS = sized(60, 20);

/** What a browser sends (Chromium's list); the baseline asks for the files as they are. */
const COMPRESSED = "gzip, deflate, br, zstd";
const UNCOMPRESSED = "identity";

/** Body bytes of one asset as served for this Accept-Encoding (the bytes that cross the network). */
async function wireBytes(app: Hono, url: string, acceptEncoding: string): Promise<number> {
  const res = await app.request(`http://localhost${url}`, { headers: { "accept-encoding": acceptEncoding } });
  if (res.status !== 200) throw new Error(`bench: ${url} answered ${res.status}`);
  return (await res.arrayBuffer()).byteLength;
}

/** The page's scripts (boot + module preloads) and stylesheets, in bytes on the wire, per encoding asked. */
async function shipped(
  app: Hono,
  html: string,
  acceptEncoding: string,
): Promise<{ js: number; css: number }> {
  const urls = (re: RegExp) => [...html.matchAll(re)].map((m) => m[1]);
  const js = urls(/<script[^>]+src="([^"]+)"/g).concat(
    urls(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g),
  );
  const css = urls(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g);
  const size = async (list: string[]) => {
    let total = 0;
    for (const url of new Set(list)) total += await wireBytes(app, url, acceptEncoding);
    return total;
  };
  return { js: await size(js), css: await size(css) };
}

/** The median of RENDERS timed calls of `fn`, after RENDERS / 4 untimed ones. */
async function medianMs(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < RENDERS / 4; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < RENDERS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return percentile(times.sort((a, b) => a - b), 50);
}

export async function benchPages(): Promise<BenchRow[]> {
  const manifest = await ensureAssets({ log: () => {} });
  const db = openDb({ pglite: newPGlite({}) });
  const rows: BenchRow[] = [];
  try {
    await migrateToLatest(db);
    await importData(db, JSON.parse(await Deno.readTextFile(DEMO_DATA_URL)), systemClock);
    const storage = new DiskPhotoStore(await Deno.makeTempDir());
    const config = testConfig();
    const app = createApp({ db, config, clock: systemClock, storage });
    const tablet = await enrolBenchTablet(db, config);
    const device = `${tablet.name}=${tablet.value}`;
    const signIn = await app.request("http://localhost/tablet/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: device },
      body: new URLSearchParams(await demoDriverForm(db)).toString(),
    });
    const session = signIn.headers.getSetCookie().map((c) => c.split(";")[0]).find((c) =>
      c.startsWith(`${sessionCookie(config).name}=`)
    );
    if (signIn.status !== 303 || !session) throw new Error(`bench sign-in failed: ${signIn.status}`);
    // The floor: one request through the same app that runs one query (the health check).
    // Every timed answer must be the page itself: a redirect or an error page would time something else.
    const text200 = async (res: Response) => {
      if (res.status !== 200) throw new Error(`bench: ${res.url || "page"} answered ${res.status}`);
      return await res.text();
    };
    const floor = async () => await text200(await app.request("http://localhost/healthz"));
    for (const path of PAGES) {
      const cookie = path === "/tablet/sign-in" ? device : `${session}; ${device}`;
      const headers: Record<string, string> = { cookie };
      const get = async () => await text200(await app.request(`http://localhost${path}`, { headers }));
      const html = await get();
      const htmlBytes = new TextEncoder().encode(html).byteLength;
      const wire = await shipped(app, html, COMPRESSED);
      const plain = await shipped(app, html, UNCOMPRESSED);
      const render = compare(
        await interleave(() => medianMs(get), () => medianMs(floor)),
        (p) => p,
        (f) => f,
      );
      const kb = (n: number) => (n / 1024).toFixed(1);
      rows.push({
        figure: `page ${path}: JS / CSS on the wire, brotli (KB)`,
        service: `${kb(wire.js)} / ${kb(wire.css)}`,
        vs: "budget",
        baseline: `${JS_BUDGET / 1024} (JS)`,
        ratio: wire.js / JS_BUDGET,
      }, {
        figure: `page ${path}: bytes on the wire, compressed vs uncompressed (KB)`,
        service: (htmlBytes + wire.js + wire.css) / 1024,
        vs: "same service, uncompressed",
        baseline: (htmlBytes + plain.js + plain.css) / 1024,
        ratio: (htmlBytes + wire.js + wire.css) / (htmlBytes + plain.js + plain.css),
        note: `HTML ${kb(htmlBytes)} KB as rendered; scripts and stylesheet as the assets route serves them`,
      }, {
        figure: `page ${path}: server render median (ms)`,
        service: render.service,
        vs: "same service, /healthz",
        baseline: render.baseline,
        ratio: render.ratio,
        note: `GET /healthz through the same app runs one query; median of ${RENDERS} a round`,
      });
    }
    // The camera scan's QR decoder (docs/tablet.md "Scanning"): not in any page's figures above, fetched on
    // Scan only, on a browser without its own QR reader.
    const decoder = async (ext: string, encoding: string) => {
      let total = 0;
      for (const f of manifest.decoder.filter((f) => f.endsWith(ext))) {
        total += await wireBytes(app, ASSET_URL_PREFIX + f, encoding);
      }
      return total;
    };
    const [js, wasm] = [await decoder(".js", COMPRESSED), await decoder(".wasm", COMPRESSED)];
    const plain = (await decoder(".js", UNCOMPRESSED)) + (await decoder(".wasm", UNCOMPRESSED));
    rows.push({
      figure: "QR decoder on Scan: JS / WebAssembly on the wire, brotli (KB)",
      service: `${(js / 1024).toFixed(1)} / ${(wasm / 1024).toFixed(1)}`,
      vs: "same service, uncompressed",
      baseline: `${(plain / 1024).toFixed(1)} (both)`,
      ratio: (js + wasm) / plain,
      note: "fetched only when the driver presses Scan; the job pages' JS above excludes it",
    });
  } finally {
    await db.destroy();
  }
  return rows;
}
