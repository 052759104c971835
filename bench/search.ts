/**
 * Search at concurrency 16: the service's handler against a bare baseline (bench/baseline_search_server.ts:
 * bare Deno.serve + the same SQL through bare pg/PGlite), interleaved rounds, each round a fresh child
 * warmed up before it is timed. The resident memory of both during the load (peak VmRSS) is the "under
 * load" memory figure, against the bare baseline under the same load. Then the service's code without its
 * HTTP layer (bench/search_core_server.ts) against the baseline, in a pair of its own: where the gap goes.
 */
import { BENCH_DRIVER, sampleRegos } from "@/bench/generate.ts";
import { assertNoFailures, type LoadResult, runLoad } from "@/bench/load.ts";
import { compare, interleave, sized } from "@/bench/pairs.ts";
import { type BenchRow, formatValue } from "@/bench/report.ts";
import { BENCH_PUBLIC_KEY, type BenchTarget, serviceEnv } from "@/bench/target.ts";
import { startChild, withPeakRss } from "@/bench/process.ts";
import { MEMORY_BUDGET_MB } from "@/bench/budgets.ts";

const CONCURRENCY = 16;
const REQUESTS = sized(4000, 600);
export const WARMUP = sized(400, 100);
const MB = 1e6;

/** The search load (after its warm-up) against `url`; every answer must be a success. */
export async function measureSearch(url: string, regos: string[]): Promise<LoadResult> {
  const send = async (i: number) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        payload: {
          event_type: "Parts_search_details",
          user_email: BENCH_DRIVER,
          details: { rego: regos[i % regos.length], movement_type: "direct" },
        },
      }),
    });
    const body = await res.json();
    if (res.ok && body.result?.status === "success") return true;
    throw new Error(`HTTP ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
  };
  await runLoad(WARMUP, CONCURRENCY, send);
  const result = await runLoad(REQUESTS, CONCURRENCY, send);
  assertNoFailures(`search ${url}`, result);
  return result;
}

/** One sample: a fresh child of `script`, warmed up, timed, its peak RSS during the timed load. */
async function sample(script: string, env: Record<string, string>, path: string, regos: string[]) {
  const child = await startChild(script, env);
  try {
    const { result, peak } = await withPeakRss(child.rss, () => measureSearch(child.url + path, regos));
    return { ...result, peakRss: peak };
  } finally {
    await child.stop();
  }
}

export async function benchSearch(target: BenchTarget): Promise<BenchRow[]> {
  const db = target.open();
  const regos = await sampleRegos(db, 500);
  await db.destroy();

  const samples = await interleave(
    () => sample("tasks/start.ts", serviceEnv(target), `/api/handler?publickey=${BENCH_PUBLIC_KEY}`, regos),
    () => sample("bench/baseline_search_server.ts", target.env, "/", regos),
  );
  // Where the gap goes (docs/performance.md "Search path"): the service's own code under a bare Deno.serve, in a pair of its own.
  const core = await interleave(
    () => sample("bench/search_core_server.ts", serviceEnv(target), "/", regos),
    () => sample("bench/baseline_search_server.ts", target.env, "/", regos),
  );
  const coreRps = compare(core, (s) => s.rps, (b) => b.rps);
  const rps = compare(samples, (s) => s.rps, (b) => b.rps);
  const p50 = compare(samples, (s) => s.p50Ms, (b) => b.p50Ms);
  const p99 = compare(samples, (s) => s.p99Ms, (b) => b.p99Ms);
  const memory = compare(samples, (s) => s.peakRss / MB, (b) => b.peakRss / MB);
  const budget = MEMORY_BUDGET_MB[target.kind];
  const load = `c=${CONCURRENCY}, ${REQUESTS} requests after ${WARMUP} untimed`;
  return [
    {
      figure: `search requests/s (c=${CONCURRENCY})`,
      service: rps.service,
      vs: "baseline",
      baseline: rps.baseline,
      ratio: rps.ratio,
      note: `baseline: bare Deno.serve + the same SQL, no framework or validation; ${load}`,
      target: "≥ 0.95",
    },
    {
      figure: `search requests/s without the HTTP layer (c=${CONCURRENCY})`,
      service: coreRps.service,
      vs: "baseline",
      baseline: coreRps.baseline,
      ratio: coreRps.ratio,
      note:
        "the service's own code under a bare Deno.serve (bench/search_core_server.ts: zod schema, the event " +
        "and its query layer, the envelope; no Hono or middleware): the rest of the gap above is the HTTP layer",
    },
    {
      figure: "search p50 latency (ms)",
      service: p50.service,
      vs: "baseline",
      baseline: p50.baseline,
      ratio: p50.ratio,
    },
    {
      figure: "search p99 latency (ms)",
      service: p99.service,
      vs: "baseline",
      baseline: p99.baseline,
      ratio: p99.ratio,
    },
    {
      figure: "resident memory under the search load (peak, MB)",
      service: memory.service,
      vs: "budget",
      baseline: budget,
      ratio: memory.service.median / budget,
      note: `the idle budget; the bare search server under the same load: ${formatValue(memory.baseline)} MB`,
    },
  ];
}
