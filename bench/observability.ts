/**
 * What request logs and metrics cost: search requests/s of the service with them on (one JSON line per
 * request at LOG_LEVEL=info, METRICS_TOKEN set so every request is counted) and off (LOG_LEVEL=warning, no
 * METRICS_TOKEN), the two started alternately, ROUNDS times each in the same run; median and range of
 * each. The children's stdout is /dev/null: the cost is formatting and writing the line, not a log
 * pipeline reading it.
 */
import { sampleRegos } from "@/bench/generate.ts";
import { assertNoFailures } from "@/bench/load.ts";
import { startChild } from "@/bench/process.ts";
import { BENCH_PUBLIC_KEY, measureSearch, serviceEnv } from "@/bench/search.ts";
import type { BenchRow, BenchTarget } from "@/tasks/bench.ts";

const ROUNDS = 3;

const OBSERVED = { LOG_FORMAT: "json", LOG_LEVEL: "info", METRICS_TOKEN: "bench-metrics-token-0123456789" };
const QUIET = { LOG_FORMAT: "json", LOG_LEVEL: "warning" };

async function searchRps(target: BenchTarget, regos: string[], extra: Record<string, string>) {
  // One child at a time: the embedded database takes one process.
  const service = await startChild("tasks/start.ts", { ...serviceEnv(target), ...extra });
  try {
    const result = await measureSearch(`${service.url}/api/handler?publickey=${BENCH_PUBLIC_KEY}`, regos);
    assertNoFailures("search (logs and metrics)", result);
    return result.rps;
  } finally {
    await service.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs: number[]) =>
  `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;

export async function benchObservability(target: BenchTarget): Promise<BenchRow[]> {
  const db = target.open();
  const regos = await sampleRegos(db, 500);
  await db.destroy();
  const on: number[] = [];
  const off: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    off.push(await searchRps(target, regos, QUIET));
    on.push(await searchRps(target, regos, OBSERVED));
  }
  return [{
    figure: `search requests/s with logs + metrics (median (min–max) of ${ROUNDS})`,
    service: spread(on),
    baseline: spread(off),
    ratio: (median(on) / median(off)).toFixed(2),
    note: "baseline: LOG_LEVEL=warning, no METRICS_TOKEN; runs interleaved",
  }];
}
