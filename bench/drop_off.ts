/**
 * Direct drop-offs through the real handler (docs/performance.md "Round trips", "Per-part cost"):
 * - round trips per submission (each statement, BEGIN and COMMIT counted, testkit/round_trips.ts) for
 *   the drop-off, the reverse pickup and its leg 2, at 1 and 50 parts, on an in-process app, against the
 *   budget of 4;
 * - movements/s at concurrency 4 of 1-part and 50-part drop-offs against a measured bare baseline
 *   (BARE_DROP_OFF: the same statements through bare pg/PGlite under a bare Deno.serve, no framework), and
 *   the 50-part rate against the same service's 1-part rate. Interleaved rounds (bench/pairs.ts): each round
 *   a fresh child, warmed up with both sizes, then the two sizes timed in alternating order.
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { BENCH_DRIVER } from "@/bench/generate.ts";
import { assertNoFailures, runLoad } from "@/bench/load.ts";
import { compare, interleave, ROUNDS, sized } from "@/bench/pairs.ts";
import type { BenchRow } from "@/bench/report.ts";
import type { BenchTarget } from "@/bench/target.ts";
import { startChild } from "@/bench/process.ts";
import { BENCH_PUBLIC_KEY, serviceEnv } from "@/bench/target.ts";
import { buildTestApp } from "@/testkit/app.ts";
import { COUNTED_SUBMISSIONS, countingDb } from "@/testkit/round_trips.ts";

/**
 * The bare drop-off baseline: a child script like bench/baseline_search_server.ts. Reads PORT
 * and DATABASE_URL or DATA_DIR; GET /healthz answers 200 once the database does; POST with the handler's
 * JSON body (`{ payload }` of parts_drop_off) runs the service's drop-off statements and answers
 * `{ result: { status: "success" } }`.
 */
export const BARE_DROP_OFF = "bench/baseline_drop_off_server.ts";

const SIZES = [1, 50] as const;
type Size = (typeof SIZES)[number];
/** Timed movements per sample and size: about 3 s each at today's rates on 2 cores. */
const MOVEMENTS: Record<Size, number> = { 1: sized(300, 40), 50: sized(40, 6) };
/** Untimed movements per sample and size before the timed ones (JIT, caches, pool connections). */
const WARMUP: Record<Size, number> = { 1: sized(40, 10), 50: sized(8, 2) };
const CONCURRENCY = 4;
const ROUND_TRIP_BUDGET = 4;

export interface Job {
  rego: string;
  parts: { part: number; image: number }[];
}

/**
 * Claims of `size` Arrived parts, each part with a staged photo of its own (as a driver's are: a photo row
 * shared by every part would make each reference check of a submission lock the same row), written
 * set-based.
 */
export async function seed(
  db: Db,
  size: number,
  count: number,
  tag: string,
): Promise<{ jobs: Job[]; shop: number }> {
  const shop = (await sql<{ id: number }>`select min(id) as id from repairers`.execute(db)).rows[0].id;
  await sql`insert into claims (claim_number, registration)
    select ${tag} || '-' || g, ${tag} || g from generate_series(1, ${count}::int) g`.execute(db);
  await sql`insert into claim_management (claim_id, repairer_id)
    select id, ${shop}::int from claims where claim_number like ${tag + "-%"}`.execute(db);
  await sql`insert into parts_orders (claim_id, part_no, description, qty_ordered, status)
    select c.id, ${tag} || '-' || c.id || '-' || k, 'Bench part', 1, 'Arrived'
    from claims c, generate_series(1, ${size}::int) k where c.claim_number like ${tag + "-%"}`.execute(db);
  await sql`with p as (
      select p.id, p.claim_id, md5(${tag} || p.id) || md5(${tag} || p.id || 'x') as storage_key
      from parts_orders p join claims c on c.id = p.claim_id where c.claim_number like ${tag + "-%"}),
    photo as (
      insert into photos (storage_key, content_type, byte_size, width, height)
      select storage_key, 'image/jpeg', 1, 1, 1 from p returning id, storage_key)
    insert into uploaded_images (part_id, claim_id, movement_stage, uploaded_by, uploaded_time, photo_id)
    select p.id, p.claim_id, 'direct_dropoff', (select id from users where email = ${BENCH_DRIVER}), now(),
      photo.id
    from p join photo using (storage_key)`.execute(db);
  const rows = (await sql<{ registration: string; part: number; image: number }>`
    select c.registration, p.id as part, i.id as image from claims c
    join parts_orders p on p.claim_id = c.id join uploaded_images i on i.part_id = p.id
    where c.claim_number like ${tag + "-%"} order by c.id, p.id`.execute(db)).rows;
  const byRego = new Map<string, Job>();
  for (const r of rows) {
    const job = byRego.get(r.registration) ?? { rego: r.registration, parts: [] };
    job.parts.push({ part: r.part, image: r.image });
    byRego.set(r.registration, job);
  }
  return { jobs: [...byRego.values()], shop };
}

export const payload = (job: Job, shop: number) => ({
  payload: {
    event_type: "parts_drop_off",
    user_email: BENCH_DRIVER,
    details: {
      rego: job.rego,
      movement_type: "direct",
      delivery_location: { id: String(shop), name: "Bench Repairer" },
      parts: job.parts.map((p) => ({
        parts_order_id: String(p.part),
        confirm: true,
        image_id: String(p.image),
      })),
    },
  },
});

/** Round trips of one submission of each flow at 1 and 50 parts, through an in-process app over `target`. */
export async function benchRoundTrips(target: BenchTarget): Promise<BenchRow[]> {
  const flows = COUNTED_SUBMISSIONS;
  const db = target.open();
  const counts: number[][] = []; // per flow, per size
  try {
    for (const flow of flows) {
      counts.push([]);
      for (const size of SIZES) {
        const counting = countingDb(db);
        const kind = target.kind === "embedded" ? "pglite" : "postgres";
        const a = await buildTestApp({ kind, db: counting.db, close: () => Promise.resolve() });
        try {
          const submit = await flow.prepare(a, size);
          counting.counter.count = 0;
          const answer = await submit();
          if (answer.result.status !== "success") throw new Error(`${flow.name}: ${JSON.stringify(answer)}`);
          counts.at(-1)!.push(counting.counter.count);
        } finally {
          await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
        }
      }
    }
  } finally {
    await db.destroy();
  }
  const most = Math.max(...counts.flat());
  return [{
    figure: `round trips: ${flows.map((f) => f.name).join(" / ")}`,
    service: counts.map((c) => c[0] === c[1] ? String(c[0]) : c.join("→")).join(" / "),
    vs: "budget",
    baseline: ROUND_TRIP_BUDGET,
    ratio: most / ROUND_TRIP_BUDGET,
    note: `the same at 1 and ${SIZES[1]} parts unless shown as 1→${SIZES[1]}; every statement, BEGIN and ` +
      "COMMIT counted (testkit/round_trips.ts)",
    target: `≤ ${ROUND_TRIP_BUDGET}`,
  }];
}

type Batches = Record<Size, { jobs: Job[]; shop: number }>;

/** Drop-offs of one batch against `url` (the service's handler or the bare baseline); every one must succeed. */
async function submitAll(url: string, { jobs, shop }: { jobs: Job[]; shop: number }, what: string) {
  const result = await runLoad(jobs.length, CONCURRENCY, async (i) => {
    const res = await fetch(url, { method: "POST", body: JSON.stringify(payload(jobs[i], shop)) });
    const body = await res.json();
    if (body.result?.status === "success") return true;
    throw new Error(`HTTP ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
  });
  assertNoFailures(what, result);
  return result.rps;
}

/** One sample: a fresh child, warmed up with both sizes, then both sizes timed (which first alternates). */
async function sample(
  script: string,
  env: Record<string, string>,
  path: string,
  { warm, timed }: { warm: Batches; timed: Batches },
  round: number,
) {
  const child = await startChild(script, env);
  try {
    const url = child.url + path;
    for (const size of SIZES) await submitAll(url, warm[size], `${script} warm-up, ${size} parts`);
    const rates = {} as Record<Size, number>;
    const order = round % 2 === 0 ? SIZES : [...SIZES].reverse();
    for (const size of order) rates[size] = await submitAll(url, timed[size], `${script}, ${size} parts`);
    return rates;
  } finally {
    await child.stop();
  }
}

export async function benchDropOff(target: BenchTarget): Promise<BenchRow[]> {
  // Fresh claims for every sample of both sides (a drop-off consumes its Arrived parts).
  const db = target.open();
  const batches = async (side: string, round: number, counts: Record<Size, number>) =>
    Object.fromEntries(
      await Promise.all(
        SIZES.map(async (size) => [size, await seed(db, size, counts[size], `B${side}${round}P${size}`)]),
      ),
    ) as Batches;
  const seeded: Record<"service" | "bare", { warm: Batches; timed: Batches }[]> = { service: [], bare: [] };
  for (const side of ["service", "bare"] as const) {
    for (let round = 0; round < ROUNDS; round++) {
      seeded[side].push({
        warm: await batches(`${side}W`, round, WARMUP),
        timed: await batches(`${side}T`, round, MOVEMENTS),
      });
    }
  }
  await db.destroy();

  const samples = await interleave(
    (r) =>
      sample(
        "tasks/start.ts",
        serviceEnv(target),
        `/api/handler?publickey=${BENCH_PUBLIC_KEY}`,
        seeded.service[r],
        r,
      ),
    (r) => sample(BARE_DROP_OFF, target.env, "/", seeded.bare[r], r),
  );
  const load = `c=${CONCURRENCY}, ${MOVEMENTS[1]} / ${MOVEMENTS[50]} movements a sample after ` +
    `${WARMUP[1]} / ${WARMUP[50]} untimed`;
  const rows: BenchRow[] = SIZES.map((size) => {
    const c = compare(samples, (s) => s[size], (b) => b[size]);
    return {
      figure: `drop-off of ${size} part${size > 1 ? "s" : ""}: movements/s (c=${CONCURRENCY})`,
      service: c.service,
      vs: "baseline",
      baseline: c.baseline,
      ratio: c.ratio,
      note: `baseline: the same statements through bare pg/PGlite under a bare Deno.serve; ${load}`,
    };
  });
  const perPart = compare({ service: samples.service, baseline: samples.service }, (s) => s[50], (s) => s[1]);
  rows.push({
    figure: `drop-off movements/s at c=${CONCURRENCY}, 50 parts`,
    service: perPart.service,
    vs: "same service, 1 part",
    baseline: perPart.baseline,
    ratio: perPart.ratio,
    note: "the two sizes timed in the same child, in alternating order",
    target: "≥ 0.5",
  });
  return rows;
}
