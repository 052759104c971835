/**
 * The run sheet (docs/performance.md "The run sheet at 1M claims", docs/runs.md):
 * - `runsheet` (only with `--only runsheet`, like the dashboard): `GET /tablet/api/run-sheet` on a database of
 *   `--claims` claims (bench/generate_scale.ts, three parts each, its depot stopped two days ago) whose day is
 *   shaped like a depot's: work open on the newest DAY_CLAIMS claims that have some, the older work moved on
 *   before today (with its history), DONE_CLAIMS claims' work moved today, five stops planned for the driver. Timed through a fresh
 *   service: the second request alone (against the 100 ms budget), and the median of the next ones beside the
 *   sheet's own statements replayed on a bare driver ("bare SQL", recorded as bench/dashboard_bare.ts does).
 * - `home` (no database: in process over the demo data, as the `pages` group): the tablet's home on the wire,
 *   its HTML, scripts and stylesheet as served plus the sheet's JSON, beside today's jobs page.
 */
import { sql } from "kysely";
import { type Db, openDb } from "@/db/client.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { newPGlite } from "@/db/pglite.ts";
import { BENCH_DRIVER } from "@/bench/generate.ts";
import { fillScale } from "@/bench/generate_scale.ts";
import { onScaleDatabase, ownTarget } from "@/bench/dashboard.ts";
import { bareSide, recorded } from "@/bench/dashboard_bare.ts";
import { timedMs } from "@/bench/dashboard_pages.ts";
import { compare, interleave, spreadOf } from "@/bench/pairs.ts";
import { startChild } from "@/bench/process.ts";
import type { BenchRow } from "@/bench/report.ts";
import { type BenchTarget, serviceEnv } from "@/bench/target.ts";
import { demoDriverForm, enrolBenchTablet } from "@/bench/tablet_sign_in.ts";
import { formerJobsPage } from "@/bench/former_jobs_page.tsx";
import { systemClock } from "@/io/clock.ts";
import { parseConfig, testConfig } from "@/io/config.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { dateInZone } from "@/io/time_zone.ts";
import { enrolDevice } from "@/lib/devices.ts";
import { DEMO_DATA_URL } from "@/lib/demo_data.ts";
import { importData } from "@/lib/import.ts";
import { runSheetFor } from "@/lib/run_sheet.ts";
import { IDLE_TIMEOUT_MS } from "@/lib/sessions.ts";
import { createApp } from "@/main.ts";
import { ensureAssets } from "@/render/assets.ts";
import { deviceCookie } from "@/routes/web/device.ts";
import { sessionCookie } from "@/routes/web/session.ts";
import { hashToken, randomToken } from "@/io/tokens.ts";
import type { CompiledQuery } from "kysely";

const BUDGET_MS = 100;
/** The claims whose open work stays open: the newest that have some (a depot's day of about 450 lines). */
const DAY_CLAIMS = 300;
/** The next ones, whose work was moved today: done lines on the sheet. */
const DONE_CLAIMS = 100;
/** The generated depot stops this long before the run (bench/generate_scale.ts `now`): nothing yet today. */
const ANCHOR_BEFORE_MS = 2 * 86_400_000;
/** The stops planned for the bench driver (the rest are unassigned). */
const PLANNED = 5;
/** The service children and the sheet's day: UTC, so the day does not depend on the host's zone. */
const ZONE = "UTC";
const EMBEDDED_MAX_CLAIMS = 100_000;

/**
 * Gives the generated depot (its clock stopped ANCHOR_BEFORE_MS ago, so nothing happened yet today) a depot's
 * day: work (parts `Arrived` or flagged for pick-up) stays open on the DAY_CLAIMS newest claims that have
 * some; the next DONE_CLAIMS claims' work was moved on today, the older work a minute after it became work
 * (history rows from the work status, so each part's history stays a chain). Then VACUUM ANALYZE, as
 * autovacuum would after it.
 */
export async function shapeDay(db: Db): Promise<void> {
  await sql`with open as (
      select id, dense_rank() over (order by claim_id) as claim_rank
      from parts_orders where status in ('Arrived', 'Pending Repair Shop Pick-Up')
    ), moved as (
      update parts_orders p set status = case p.status when 'Arrived' then 'Delivered to Repair Shop directly'
          else 'Returned to HQ' end,
        updated_at = case when o.claim_rank <= ${DAY_CLAIMS + DONE_CLAIMS} then now()
          else p.updated_at + interval '1 minute' end
      from open o where o.id = p.id and o.claim_rank > ${DAY_CLAIMS}
      returning p.id, p.status, p.updated_at
    )
    insert into part_status_history (part_id, from_status, to_status, changed_at, via)
    select id, case status when 'Returned to HQ' then 'Pending Repair Shop Pick-Up' else 'Arrived' end, status,
      updated_at, 'import'
    from moved`.execute(db);
  for (const table of ["parts_orders", "part_status_history"]) {
    await sql`vacuum analyze ${sql.table(table)}`.execute(db);
  }
}

/** The bench driver's session on an enrolled tablet, seeded directly; their first PLANNED stops planned. */
async function driverSession(db: Db): Promise<string> {
  const driver = await db.selectFrom("users").select("id").where("email", "=", BENCH_DRIVER)
    .executeTakeFirstOrThrow();
  const { device, token: deviceToken } = await enrolDevice(db, systemClock, {
    name: "Bench tablet",
    enrolledBy: null,
  });
  const token = randomToken();
  await db.insertInto("sessions").values({
    token_hash: hashToken(token),
    user_id: driver.id,
    csrf_token: randomToken(),
    created_at: new Date(),
    last_seen_at: new Date(),
    device_id: device.id,
  }).execute();
  const shops = await db.selectFrom("repairers").select("id").orderBy("id").limit(PLANNED).execute();
  await db.insertInto("run_stops").values(shops.map((s, i) => ({
    run_date: dateInZone(new Date(), ZONE),
    repairer_id: s.id,
    driver_id: driver.id,
    position: PLANNED - i,
    updated_by: driver.id,
    updated_at: new Date(),
  }))).execute();
  const config = parseConfig({ APP_ENV: "development" });
  return `${sessionCookie(config).name}=${token}; ${deviceCookie(config).name}=${deviceToken}`;
}

/** One service round: a fresh child, a cold request, the second timed alone, then the median of more. */
async function serviceSample(target: BenchTarget, cookie: string) {
  const service = await startChild("tasks/start.ts", { ...serviceEnv(target), DEPOT_TIME_ZONE: ZONE });
  const get = async () => {
    const res = await fetch(`${service.url}/tablet/api/run-sheet`, { headers: { cookie } });
    if (res.status !== 200) throw new Error(`bench: /tablet/api/run-sheet answered ${res.status}`);
    return await res.arrayBuffer();
  };
  try {
    await get();
    const t0 = performance.now();
    const body = await get();
    const second = performance.now() - t0;
    return { second, median: await timedMs(get), bytes: body.byteLength };
  } finally {
    await service.stop();
  }
}

/** One bare round: the sheet's statements (recorded once, in process) replayed on a plain driver. */
async function bareSample(target: BenchTarget, recording: { value?: CompiledQuery[] }) {
  const bare = bareSide(target);
  try {
    const userId = (await bare.db.selectFrom("users").select("id").where("email", "=", BENCH_DRIVER)
      .executeTakeFirstOrThrow()).id;
    const statements = recording.value ??= await recorded(
      bare.db,
      (db) =>
        runSheetFor({ db, clock: systemClock, config: testConfig({ depotTimeZone: ZONE }) }, { id: userId }),
    );
    return {
      median: await timedMs(async () => {
        for (const s of statements) await bare.query(s.sql, s.parameters);
      }),
      statements: statements.length,
    };
  } finally {
    await bare.close();
  }
}

/** What the shaped day holds (for the rows' notes). */
async function dayOf(target: BenchTarget) {
  const db = target.open();
  try {
    const user = await db.selectFrom("users").select("id").where("email", "=", BENCH_DRIVER)
      .executeTakeFirstOrThrow();
    const sheet = await runSheetFor(
      { db, clock: systemClock, config: testConfig({ depotTimeZone: ZONE }) },
      user,
    );
    const lines = sheet.stops.reduce((n, s) => n + s.total, 0);
    const done = sheet.stops.reduce((n, s) => n + s.done, 0);
    const parts = Number(
      (await sql<{ n: number }>`select count(*) as n from parts_orders`.execute(db)).rows[0].n,
    );
    return { stops: sheet.stops.length, lines, done, parts };
  } finally {
    await db.destroy();
  }
}

/** The sheet at `target` (already filled and shaped): the budget row and the bare SQL row. */
export async function measureRunSheet(target: BenchTarget, cookie: string): Promise<BenchRow[]> {
  const day = await dayOf(target);
  const recording: { value?: CompiledQuery[] } = {};
  const samples = await interleave(() => serviceSample(target, cookie), () => bareSample(target, recording));
  const median = compare(samples, (s) => s.median, (b) => b.median);
  const what =
    `${day.stops} stops, ${day.lines} claim lines (${day.done} done today) of ${day.parts} parts; ` +
    `${Math.round(samples.service[0].bytes / 1024)} KB of JSON`;
  return [{
    figure: "run sheet GET /tablet/api/run-sheet, second request (ms)",
    service: spreadOf(samples.service.map((s) => s.second)),
    vs: "budget",
    baseline: BUDGET_MS,
    ratio: spreadOf(samples.service.map((s) => s.second / BUDGET_MS)),
    note: `a fresh service's second request; ${what}`,
    target: `≤ ${BUDGET_MS} ms`,
  }, {
    figure: "run sheet GET /tablet/api/run-sheet (ms)",
    service: median.service,
    vs: "baseline",
    baseline: median.baseline,
    ratio: median.ratio,
    note: `bare SQL: the sheet's ${samples.baseline[0].statements} statements replayed on a bare driver ` +
      "(no Kysely, no HTTP, no session); medians of the 3rd–7th requests",
  }];
}

/**
 * The `runsheet` group: a database of its own at `claims`, filled, its day shaped, measured, dropped. Given
 * `scaleUrl` (`--scale-url`), a server database already filled instead, kept: its day shaped (shapeDay leaves
 * a shaped day as it is) and today's plan for the bench driver made again.
 */
export async function benchRunSheet(
  target: BenchTarget,
  claims: number,
  scaleUrl?: string,
): Promise<BenchRow[]> {
  if (scaleUrl) {
    return await onScaleDatabase("runsheet", target, scaleUrl, async (scale) => {
      const db = scale.open();
      try {
        await shapeDay(db);
        // The plan's rows are keyed by day and shop: an earlier run of the same day made them.
        await sql`delete from run_stops where run_date = ${dateInZone(new Date(), ZONE)}
          and driver_id = (select id from users where email = ${BENCH_DRIVER})`.execute(db);
        const cookie = await driverSession(db);
        await db.destroy();
        return await measureRunSheet(scale, cookie);
      } catch (error) {
        await db.destroy().catch(() => {});
        throw error;
      }
    });
  }
  if (target.kind === "embedded" && claims > EMBEDDED_MAX_CLAIMS) {
    console.error(
      `bench: runsheet (embedded) skipped: ${claims} claims is over the embedded run's ${EMBEDDED_MAX_CLAIMS}; ` +
        "the server database gives the figures",
    );
    return [];
  }
  const own = await ownTarget(target);
  try {
    const db = own.target.open();
    await migrateToLatest(db);
    await fillScale(db, claims, {
      log: (line) => console.error(line),
      now: new Date(Date.now() - ANCHOR_BEFORE_MS),
    });
    const t0 = performance.now();
    await shapeDay(db);
    console.error(`  shaped the day in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const cookie = await driverSession(db);
    await db.destroy();
    return await measureRunSheet(own.target, cookie);
  } finally {
    await own.drop();
  }
}

// ---- The home's bytes on the wire ----

/** The home (the run sheet and the jobs off it) and its JSON; the baseline is bench/former_jobs_page.tsx. */
const HOME = "/tablet";
const SHEET = "/tablet/api/run-sheet";
const COMPRESSED = "gzip, deflate, br, zstd";

/**
 * A page's HTML (fetched from `path`, or given) and the scripts and stylesheets it names, in bytes as served
 * to a browser (brotli).
 */
async function pageOnWire(
  get: (path: string) => Promise<Response>,
  page: { path: string } | { html: string },
) {
  const bytes = async (p: string) => {
    const res = await get(p);
    if (res.status !== 200) throw new Error(`bench: ${p} answered ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  };
  const html = "path" in page ? await bytes(page.path) : new TextEncoder().encode(page.html);
  const text = new TextDecoder().decode(html);
  const urls = [
    ...[...text.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1]),
    ...[...text.matchAll(/<link[^>]+rel="(?:modulepreload|stylesheet)"[^>]+href="([^"]+)"/g)].map((m) =>
      m[1]
    ),
  ];
  let assets = 0;
  for (const url of new Set(urls)) assets += (await bytes(url)).byteLength;
  return { html: html.byteLength, assets };
}

/** The `home` group: the tablet home (page + the sheet's JSON) against today's jobs page, on the wire. */
export async function benchHomeBytes(): Promise<BenchRow[]> {
  await ensureAssets({ log: () => {} });
  const db = openDb({ pglite: newPGlite({}) });
  try {
    await migrateToLatest(db);
    await importData(db, JSON.parse(await Deno.readTextFile(DEMO_DATA_URL)), systemClock);
    const config = testConfig();
    const app = createApp({
      db,
      config,
      clock: systemClock,
      storage: new DiskPhotoStore(await Deno.makeTempDir()),
    });
    const tablet = await enrolBenchTablet(db, config);
    const device = `${tablet.name}=${tablet.value}`;
    const signIn = await app.request("http://localhost/tablet/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: device },
      body: new URLSearchParams(await demoDriverForm(db)).toString(),
    });
    const session = signIn.headers.getSetCookie().map((c) => c.split(";")[0])
      .find((c) => c.startsWith(`${sessionCookie(config).name}=`));
    if (signIn.status !== 303 || !session) throw new Error(`bench sign-in failed: ${signIn.status}`);
    const get = (path: string) =>
      Promise.resolve(app.request(`http://localhost${path}`, {
        headers: { cookie: `${session}; ${device}`, "accept-encoding": COMPRESSED },
      }));
    const home = await pageOnWire(get, { path: HOME });
    // The same banner as the home's: the signed-in driver, their CSRF token and idle time.
    const homeText = await (await get(HOME)).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(homeText)?.[1];
    const driver = await db.selectFrom("users").select(["id", "name", "role"])
      .where("id", "=", Number((await demoDriverForm(db)).user_id)).executeTakeFirstOrThrow();
    const jobs = await pageOnWire(get, {
      html: await formerJobsPage({ user: driver, csrf, expiresInMs: IDLE_TIMEOUT_MS }),
    });
    const sheetRes = await get(SHEET);
    if (sheetRes.status !== 200) throw new Error(`bench: ${SHEET} answered ${sheetRes.status}`);
    const json = (await sheetRes.arrayBuffer()).byteLength;
    const kb = (n: number) => n / 1024;
    const homeTotal = home.html + home.assets + json;
    const jobsTotal = jobs.html + jobs.assets;
    return [{
      figure: "tablet home on the wire: page, scripts, stylesheet and the sheet's JSON (KB)",
      service: kb(homeTotal),
      vs: "same service, the jobs page it replaced",
      baseline: kb(jobsTotal),
      ratio: homeTotal / jobsTotal,
      note:
        `${HOME}: HTML ${kb(home.html).toFixed(1)} KB + scripts and CSS ${kb(home.assets).toFixed(1)} KB ` +
        `(brotli) + ${SHEET} ${kb(json).toFixed(1)} KB (demo data); the former jobs page (banner and three ` +
        `jobs, bench/former_jobs_page.tsx): HTML ` +
        `${kb(jobs.html).toFixed(1)} KB + ${kb(jobs.assets).toFixed(1)} KB; HTML and JSON as the service ` +
        "sends them (uncompressed)",
    }];
  } finally {
    await db.destroy();
  }
}
