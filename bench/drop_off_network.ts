/**
 * What a network costs a drop-off (issue 14): 1-part drop-offs one at a time against the service talking
 * to the PostgreSQL server directly, and against a second instance reaching it through a loopback proxy
 * that adds 2 ms each way (bench/delay_proxy.ts). The difference of the medians is what the round trips
 * cost on a network 2 ms away: about 4 ms per round trip (more on a loaded machine, where the proxy's
 * timers overshoot; the bench measures one bare round trip through it and divides by that). Server database only (PGlite runs in-process).
 * The two are run alternately, three rounds each after a warm-up, and the median of the rounds is reported
 * with its min–max.
 */
import pg from "pg";
import { payload, seed } from "@/bench/drop_off.ts";
import { startDelayProxy } from "@/bench/delay_proxy.ts";
import { assertNoFailures, type LoadResult, runLoad } from "@/bench/load.ts";
import { startChild } from "@/bench/process.ts";
import { BENCH_PUBLIC_KEY, serviceEnv } from "@/bench/search.ts";
import type { BenchRow, BenchTarget } from "@/tasks/bench.ts";

const DELAY_MS = 2;
const ROUNDS = 3;
/** Drop-offs per round and side, one at a time (concurrency 1: latency, not throughput). */
const PER_ROUND = 30;
const WARMUP = 10;

/** p50 of one-statement round trips (`select $1`) from a bare pg client: what the proxy adds to one. */
async function roundTripP50(connectionString: string): Promise<number> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  const times: number[] = [];
  try {
    for (let i = 0; i < 60; i++) {
      const t0 = performance.now();
      await client.query("select $1::int", [i]);
      if (i >= 10) times.push(performance.now() - t0);
    }
  } finally {
    await client.end();
  }
  return median(times);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const span = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;

export async function benchDropOffNetwork(target: BenchTarget): Promise<BenchRow[]> {
  const url = target.env.DATABASE_URL;
  if (!url) return [];
  const db = target.open();
  const sides = ["direct", "proxied"] as const;
  const batches = Object.fromEntries(
    await Promise.all(sides.map(async (side) => [
      side,
      await Promise.all(
        Array.from(
          { length: ROUNDS + 1 },
          (_, r) => seed(db, 1, r === 0 ? WARMUP : PER_ROUND, `BNW${side}${r}`),
        ),
      ),
    ])),
  ) as Record<(typeof sides)[number], Awaited<ReturnType<typeof seed>>[]>;
  await db.destroy();

  const server = new URL(url);
  const proxy = startDelayProxy({ hostname: server.hostname, port: Number(server.port || 5432) }, DELAY_MS);
  const proxied = new URL(url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(proxy.port);
  const services = {
    direct: await startChild("tasks/start.ts", serviceEnv(target)),
    proxied: await startChild("tasks/start.ts", { ...serviceEnv(target), DATABASE_URL: proxied.toString() }),
  };
  const p50s: Record<(typeof sides)[number], number[]> = { direct: [], proxied: [] };
  // The proxy's timers overshoot on a loaded machine: one round trip through it is measured, not assumed.
  const oneTrip = await roundTripP50(proxied.toString()) - await roundTripP50(url);
  const submit = (side: (typeof sides)[number], round: number): Promise<LoadResult> => {
    const { jobs, shop } = batches[side][round];
    return runLoad(jobs.length, 1, async (i) => {
      const res = await fetch(`${services[side].url}/api/handler?publickey=${BENCH_PUBLIC_KEY}`, {
        method: "POST",
        body: JSON.stringify(payload(jobs[i], shop)),
      });
      return (await res.json()).result?.status === "success";
    });
  };
  try {
    for (const side of sides) assertNoFailures(`drop-off warm-up (${side})`, await submit(side, 0));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of sides) {
        const result = await submit(side, round);
        assertNoFailures(`drop-off (${side})`, result);
        p50s[side].push(result.p50Ms);
      }
    }
  } finally {
    await services.direct.stop();
    await services.proxied.stop();
    proxy.close();
  }
  const added = p50s.proxied.map((p, i) => p - p50s.direct[i]);
  return [{
    figure: `drop-off of 1 part: p50 added by ${DELAY_MS} ms each way to the database (ms)`,
    service: `${median(p50s.proxied).toFixed(1)} (${span(p50s.proxied)})`,
    baseline: `${median(p50s.direct).toFixed(1)} (${span(p50s.direct)})`,
    ratio: `+${median(added).toFixed(1)} (${span(added)})`,
    note: `baseline: the same drop-off, no proxy; one bare round trip through the proxy adds ` +
      `${oneTrip.toFixed(1)} ms, so ≈ ${(median(added) / oneTrip).toFixed(1)} round trips`,
  }];
}
