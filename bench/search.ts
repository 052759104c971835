/**
 * Search at concurrency 16: the service's handler against a bare baseline (bench/baseline_search_server.ts:
 * bare Deno.serve + the same SQL through bare pg/PGlite, one connection a search as the service), SEARCH_ROUNDS
 * interleaved rounds, each side first in half of them, each round a fresh child warmed up before it is timed.
 * The resident memory of both under the same load: its peak (VmRSS sampled during the timed load) and what
 * is left SETTLE_MS after the load ended, read the same way on both sides (docs/search-path.md "Memory
 * under load"). Then the service's code without its HTTP layer (bench/search_core_server.ts) against the
 * baseline, in a pair of its own: where the gap goes (the layer item by item: bench/search_layer.ts).
 */
import { BENCH_DRIVER, sampleRegos } from "@/bench/generate.ts";
import { assertNoFailures, type LoadResult, runLoad } from "@/bench/load.ts";
import { compare, interleave, sized } from "@/bench/pairs.ts";
import type { BenchRow } from "@/bench/report.ts";
import { BENCH_PUBLIC_KEY, type BenchTarget, serviceEnv } from "@/bench/target.ts";
import { type ChildServer, readCpuMs, startChild, withPeakRss } from "@/bench/process.ts";

const CONCURRENCY = 16;
const REQUESTS = sized(4000, 600);
export const WARMUP = sized(400, 100);
/** The search pair's rounds: a ratio this close to its target needs more than the bench's usual three. */
const SEARCH_ROUNDS = 6;
/** How long after the load the settled memory is read: both sides idle, nothing done to either. */
const SETTLE_MS = 5_000;
const MB = 1e6;

/** The service's handler path, with the bench's public key. */
export const HANDLER_PATH = `/api/handler?publickey=${BENCH_PUBLIC_KEY}`;

/**
 * The search load against `url`: `warmup` requests untimed, then `requests` timed, run inside `timed` (a
 * caller's reading around the timed part alone, e.g. CPU time); every answer must be a success.
 */
export async function measureSearch(
  url: string,
  regos: string[],
  { requests = REQUESTS, warmup = WARMUP, timed = (load: () => Promise<LoadResult>) => load() } = {},
): Promise<LoadResult> {
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
  await runLoad(warmup, CONCURRENCY, send);
  const result = await timed(() => runLoad(requests, CONCURRENCY, send));
  assertNoFailures(`search ${url}`, result);
  return result;
}

/** CPU time of `pid` (user + system, all threads) per request of the timed load, in µs. */
export async function cpuPerRequest(
  pid: number,
  load: () => Promise<LoadResult>,
): Promise<LoadResult & { cpuUs: number }> {
  const before = await readCpuMs(pid);
  const result = await load();
  return { ...result, cpuUs: (await readCpuMs(pid) - before) * 1000 / result.requests };
}

/**
 * measureSearch against a running `child` at `path`, with the child's CPU a request (`cpuPerRequest`) and its
 * peak RSS (bytes) over the timed load.
 */
export async function measureChildSearch(child: ChildServer, path: string, regos: string[]) {
  let cpuUs = NaN;
  let peakRss = NaN;
  const result = await measureSearch(child.url + path, regos, {
    timed: async (load) => {
      const { result, peak } = await withPeakRss(child.rss, () => cpuPerRequest(child.pid, load));
      cpuUs = result.cpuUs;
      peakRss = peak;
      return result;
    },
  });
  return { ...result, cpuUs, peakRss };
}

/**
 * One sample: a fresh child of `script`, warmed up, timed; its peak RSS during the timed load, its CPU a
 * request, and its RSS SETTLE_MS after the load.
 */
async function sample(script: string, env: Record<string, string>, path: string, regos: string[]) {
  const child = await startChild(script, env);
  try {
    const result = await measureChildSearch(child, path, regos);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return { ...result, settledRss: await child.rss() };
  } finally {
    await child.stop();
  }
}

export async function benchSearch(target: BenchTarget): Promise<BenchRow[]> {
  const db = target.open();
  const regos = await sampleRegos(db, 500);
  await db.destroy();

  const samples = await interleave(
    () => sample("tasks/start.ts", serviceEnv(target), HANDLER_PATH, regos),
    () => sample("bench/baseline_search_server.ts", target.env, "/", regos),
    SEARCH_ROUNDS,
  );
  // Where the gap goes (docs/search-path.md): the service's own code under a bare Deno.serve, in a pair of its own.
  const core = await interleave(
    () => sample("bench/search_core_server.ts", serviceEnv(target), "/", regos),
    () => sample("bench/baseline_search_server.ts", target.env, "/", regos),
  );
  const coreRps = compare(core, (s) => s.rps, (b) => b.rps);
  const rps = compare(samples, (s) => s.rps, (b) => b.rps);
  const cpu = compare(samples, (s) => s.cpuUs, (b) => b.cpuUs);
  const p50 = compare(samples, (s) => s.p50Ms, (b) => b.p50Ms);
  const p99 = compare(samples, (s) => s.p99Ms, (b) => b.p99Ms);
  const peak = compare(samples, (s) => s.peakRss / MB, (b) => b.peakRss / MB);
  const settled = compare(samples, (s) => s.settledRss / MB, (b) => b.settledRss / MB);
  const load = `c=${CONCURRENCY}, ${REQUESTS} requests after ${WARMUP} untimed, ${SEARCH_ROUNDS} rounds`;
  return [
    {
      figure: `search requests/s (c=${CONCURRENCY})`,
      service: rps.service,
      vs: "baseline",
      baseline: rps.baseline,
      ratio: rps.ratio,
      note: `baseline: bare Deno.serve + the same SQL on one connection, no framework or validation; ${load}`,
      target: "≥ 0.92",
    },
    {
      figure: `search requests/s without the HTTP layer (c=${CONCURRENCY})`,
      service: coreRps.service,
      vs: "baseline",
      baseline: coreRps.baseline,
      ratio: coreRps.ratio,
      note:
        "reference: the service's own code under a bare Deno.serve (bench/search_core_server.ts: zod schema, " +
        "the event and its query layer, the envelope; no Hono or middleware): the rest of the gap above is " +
        "the HTTP layer (the `layer` group: item by item)",
    },
    {
      figure: "search CPU a request (µs)",
      service: cpu.service,
      vs: "baseline",
      baseline: cpu.baseline,
      ratio: cpu.ratio,
      note: "user + system CPU of the server process over the timed load (/proc), divided by its requests",
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
      service: peak.service,
      vs: "baseline",
      baseline: peak.baseline,
      ratio: peak.ratio,
      note: "VmRSS sampled every 20 ms during the timed load; the bare search server under the same load",
      target: "≤ 1.5",
    },
    {
      figure: "resident memory after the search load (settled, MB)",
      service: settled.service,
      vs: "baseline",
      baseline: settled.baseline,
      ratio: settled.ratio,
      note: `VmRSS ${SETTLE_MS / 1000} s after the load ended, both sides left alone alike`,
    },
  ];
}
