/**
 * What request logs and metrics cost: search requests/s of the service with them on (one JSON line per
 * request at LOG_LEVEL=info, METRICS_TOKEN set so every request is counted) and off (LOG_LEVEL=warning, no
 * METRICS_TOKEN), interleaved rounds (bench/pairs.ts), each a fresh child warmed up before it is timed.
 * The children's stdout is /dev/null: the cost is formatting and writing the line, not a log pipeline
 * reading it.
 */
import { sampleRegos } from "@/bench/generate.ts";
import { compare, interleave, ROUNDS } from "@/bench/pairs.ts";
import { startChild } from "@/bench/process.ts";
import { measureSearch } from "@/bench/search.ts";
import { BENCH_PUBLIC_KEY, serviceEnv } from "@/bench/target.ts";
import type { BenchRow } from "@/bench/report.ts";
import type { BenchTarget } from "@/bench/target.ts";

const OBSERVED = { LOG_FORMAT: "json", LOG_LEVEL: "info", METRICS_TOKEN: "bench-metrics-token-0123456789" };
const QUIET = { LOG_FORMAT: "json", LOG_LEVEL: "warning" };

async function searchRps(target: BenchTarget, regos: string[], extra: Record<string, string>) {
  // One child at a time: the embedded database takes one process.
  const service = await startChild("tasks/start.ts", { ...serviceEnv(target), ...extra });
  try {
    return (await measureSearch(`${service.url}/api/handler?publickey=${BENCH_PUBLIC_KEY}`, regos)).rps;
  } finally {
    await service.stop();
  }
}

export async function benchObservability(target: BenchTarget): Promise<BenchRow[]> {
  const db = target.open();
  const regos = await sampleRegos(db, 500);
  await db.destroy();
  const rps = compare(
    await interleave(() => searchRps(target, regos, OBSERVED), () => searchRps(target, regos, QUIET)),
    (on) => on,
    (off) => off,
  );
  return [{
    figure: "search requests/s with logs + metrics",
    service: rps.service,
    vs: "same service, logs and metrics off",
    baseline: rps.baseline,
    ratio: rps.ratio,
    note: `off: LOG_LEVEL=warning, no METRICS_TOKEN; ${ROUNDS} interleaved rounds`,
  }];
}
