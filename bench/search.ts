/** Search requests/s and latency at concurrency 16: the service's handler against a bare baseline. */
import { BENCH_DRIVER, sampleRegos } from "@/bench/generate.ts";
import { assertNoFailures, type LoadResult, runLoad } from "@/bench/load.ts";
import type { BenchRow, BenchTarget } from "@/tasks/bench.ts";
import { startChild } from "@/bench/process.ts";

export const BENCH_PUBLIC_KEY = "bench-public-key";
const CONCURRENCY = 16;
const REQUESTS = 4000;
const WARMUP = 300;

/** Environment for the service child: development (no demo data: the database is not empty). */
export const serviceEnv = (target: BenchTarget) => ({
  ...target.env,
  APP_ENV: "development",
  PUBLIC_KEY: BENCH_PUBLIC_KEY,
  // The whole load comes from one address and one user: the per-client limits would refuse most of it.
  RATE_LIMITS: "off",
});

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
    return res.ok && body.result?.status === "success";
  };
  await runLoad(WARMUP, CONCURRENCY, send);
  return await runLoad(REQUESTS, CONCURRENCY, send);
}

export async function benchSearch(target: BenchTarget): Promise<BenchRow[]> {
  const db = target.open();
  const regos = await sampleRegos(db, 500);
  await db.destroy();

  const service = await startChild("tasks/start.ts", serviceEnv(target));
  const ours = await measureSearch(`${service.url}/api/handler?publickey=${BENCH_PUBLIC_KEY}`, regos).finally(
    () => service.stop(),
  );
  const bare = await startChild("bench/baseline_search_server.ts", target.env);
  const base = await measureSearch(bare.url, regos).finally(() => bare.stop());
  assertNoFailures("search", ours, base);
  return [
    {
      figure: `search requests/s (c=${CONCURRENCY})`,
      service: ours.rps.toFixed(0),
      baseline: base.rps.toFixed(0),
      ratio: (ours.rps / base.rps).toFixed(2),
      note: "aim ≥ 0.80; baseline: bare Deno.serve + same SQL, no framework/validation",
    },
    {
      figure: "search p50 / p99 latency (ms)",
      service: `${ours.p50Ms.toFixed(1)} / ${ours.p99Ms.toFixed(1)}`,
      baseline: `${base.p50Ms.toFixed(1)} / ${base.p99Ms.toFixed(1)}`,
      ratio: `${(ours.p50Ms / base.p50Ms).toFixed(2)} / ${(ours.p99Ms / base.p99Ms).toFixed(2)}`,
    },
  ];
}
