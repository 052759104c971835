/**
 * What a network costs a drop-off (docs/performance.md "Round trips"): 1-part drop-offs one at a time against the service talking
 * to the PostgreSQL server directly, and against a second instance reaching it through a loopback proxy
 * that adds 2 ms each way (bench/delay_proxy.ts). The difference of the p50s is what the round trips cost
 * on a network 2 ms away, compared with the budget: 4 round trips × 4 ms = 16 ms. On a loaded
 * machine the proxy's timers overshoot: the bench measures one bare round trip through it and gives the
 * quotient too. Server database only (PGlite runs in-process). Both instances stay up and are warmed up;
 * the rounds are interleaved (bench/pairs.ts), proxied and direct alternating which goes first.
 */
import pg from "pg";
import { payload, seed } from "@/bench/drop_off.ts";
import { startDelayProxy } from "@/bench/delay_proxy.ts";
import { assertNoFailures, runLoad } from "@/bench/load.ts";
import { compare, interleave, ROUNDS, sized, spreadOf } from "@/bench/pairs.ts";
import { startChild } from "@/bench/process.ts";
import { BENCH_PUBLIC_KEY, serviceEnv } from "@/bench/target.ts";
import { formatValue } from "@/bench/report.ts";
import type { BenchRow } from "@/bench/report.ts";
import type { BenchTarget } from "@/bench/target.ts";

const DELAY_MS = 2;
/** The budget: 4 round trips of 2 × 2 ms. */
const BUDGET_MS = 4 * 2 * DELAY_MS;
/** Drop-offs per round and side, one at a time (concurrency 1: latency, not throughput). */
const PER_ROUND = sized(40, 10);
const WARMUP = sized(10, 4);

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
  return times.sort((a, b) => a - b)[times.length >> 1];
}

export async function benchDropOffNetwork(target: BenchTarget): Promise<BenchRow[]> {
  const url = target.env.DATABASE_URL;
  if (!url) return [];
  const db = target.open();
  const sides = ["direct", "proxied"] as const;
  type Side = (typeof sides)[number];
  // Batch 0 warms a side up; batch r + 1 is its round r.
  const batches = {} as Record<Side, Awaited<ReturnType<typeof seed>>[]>;
  for (const side of sides) {
    batches[side] = [];
    for (let r = 0; r <= ROUNDS; r++) {
      batches[side].push(await seed(db, 1, r === 0 ? WARMUP : PER_ROUND, `BNW${side}${r}`));
    }
  }
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
  const submit = async (side: Side, batch: number): Promise<number> => {
    const { jobs, shop } = batches[side][batch];
    const result = await runLoad(jobs.length, 1, async (i) => {
      const res = await fetch(`${services[side].url}/api/handler?publickey=${BENCH_PUBLIC_KEY}`, {
        method: "POST",
        body: JSON.stringify(payload(jobs[i], shop)),
      });
      return (await res.json()).result?.status === "success";
    });
    assertNoFailures(`drop-off (${side})`, result);
    return result.p50Ms;
  };
  let oneTrip: number;
  let samples: Awaited<ReturnType<typeof interleave<number, number>>>;
  try {
    // The proxy's timers overshoot on a loaded machine: one round trip through it is measured, not assumed.
    oneTrip = await roundTripP50(proxied.toString()) - await roundTripP50(url);
    for (const side of sides) await submit(side, 0);
    samples = await interleave((r) => submit("proxied", r + 1), (r) => submit("direct", r + 1));
  } finally {
    await services.direct.stop();
    await services.proxied.stop();
    proxy.close();
  }
  const p50 = compare(samples, (s) => s, (b) => b);
  const added = spreadOf(samples.service.map((p, i) => p - samples.baseline[i]));
  const note = `p50 of ${PER_ROUND} drop-offs a round, c=1; one bare round trip through the proxy adds ` +
    `${oneTrip.toFixed(1)} ms, so ≈ ${(added.median / oneTrip).toFixed(1)} round trips`;
  return [
    {
      figure: `drop-off p50 added by ${DELAY_MS}+${DELAY_MS} ms network (ms)`,
      service: added,
      vs: "budget",
      baseline: BUDGET_MS,
      ratio: added.median / BUDGET_MS,
      note: `${DELAY_MS} ms each way to PostgreSQL (bench/delay_proxy.ts); budget: 4 round trips × ${
        2 * DELAY_MS
      } ms; ${note}`,
      target: `≤ ${BUDGET_MS} ms`,
    },
    {
      figure: `drop-off p50 with ${DELAY_MS}+${DELAY_MS} ms network (ms)`,
      service: p50.service,
      vs: "same service, no proxy",
      baseline: p50.baseline,
      ratio: p50.ratio,
      note: `direct p50 ${formatValue(p50.baseline)} ms`,
    },
  ];
}
