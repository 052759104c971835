/**
 * The HTTP layer's profile on the search (docs/search-path.md "The layer, item by item"): the CPU a search
 * costs the whole service, and what leaving out each item of its HTTP layer saves, each item in a pair of its
 * own interleaved with the whole service. Both sides are bench/search_layer_server.ts (the service as
 * tasks/serve.ts serves it, `SEARCH_LAYER_OFF` naming what it leaves out). Hono's own dispatch cannot be left
 * out under the middleware, so its row is the handler in Hono with every other item out, against the same
 * code under a bare Deno.serve (bench/search_core_server.ts). The layer's whole cost, the whole service
 * against that bare core, has a budget: LAYER_BUDGET_US.
 *
 * CPU, not requests/s: user + system time of the server process over the timed load (/proc), divided by its
 * requests. Other processes on the machine change how fast a server answers more than the CPU it spends.
 */
import { sampleRegos } from "@/bench/generate.ts";
import { compare, type Compared, interleave, sized, spreadOf } from "@/bench/pairs.ts";
import type { BenchRow } from "@/bench/report.ts";
import { type BenchTarget, serviceEnv } from "@/bench/target.ts";
import { startChild } from "@/bench/process.ts";
import { cpuPerRequest, HANDLER_PATH, measureSearch } from "@/bench/search.ts";
import type { HttpLayer } from "@/routes/web/http_layer.ts";

/** The layer's whole cost a search, at most (docs/search-path.md). */
export const LAYER_BUDGET_US = 60;
const REQUESTS = sized(3000, 400);
const WARMUP = sized(400, 100);

/** Each item of the layer, as its row names it. */
const ITEMS: [keyof HttpLayer, string][] = [
  ["requestLog", "request id and log line"],
  ["securityHeaders", "security headers"],
  ["publicKey", "public-key check"],
  ["bodyLimit", "body cap and pace rule"],
  ["perAddress", "client address and per-address limit"],
];
const ALL_OFF = ITEMS.map(([item]) => item).join(",");

/** One sample: a fresh child of `script`, warmed up; its CPU a request over the timed load. */
async function cpuSample(script: string, env: Record<string, string>, path: string, regos: string[]) {
  const child = await startChild(script, env);
  try {
    let cpuUs = NaN;
    await measureSearch(child.url + path, regos, {
      requests: REQUESTS,
      warmup: WARMUP,
      timed: async (load) => {
        const result = await cpuPerRequest(child.pid, load);
        cpuUs = result.cpuUs;
        return result;
      },
    });
    return cpuUs;
  } finally {
    await child.stop();
  }
}

/** Service minus baseline, round by round: what the service's side costs more (µs). */
function differences(pair: { service: number[]; baseline: number[] }) {
  return spreadOf(pair.service.map((s, i) => s - pair.baseline[i]));
}

const us = (v: { median: number; min: number; max: number }) =>
  `${v.median.toFixed(0)} µs (${v.min.toFixed(0)}–${v.max.toFixed(0)})`;

export async function benchSearchLayer(target: BenchTarget): Promise<BenchRow[]> {
  const db = target.open();
  const regos = await sampleRegos(db, 500);
  await db.destroy();
  const env = serviceEnv(target);
  const layered = (off: string) =>
    cpuSample("bench/search_layer_server.ts", { ...env, SEARCH_LAYER_OFF: off }, HANDLER_PATH, regos);
  const core = () => cpuSample("bench/search_core_server.ts", env, "/", regos);

  const whole = await interleave(() => layered(""), core);
  const wholeCost = differences(whole);
  const rows: BenchRow[] = [{
    figure: "search CPU a request: the HTTP layer (µs)",
    service: wholeCost,
    vs: "budget",
    baseline: LAYER_BUDGET_US,
    ratio: wholeCost.median / LAYER_BUDGET_US,
    note: `the whole service ${us(spreadOf(whole.service))} minus its code under a bare Deno.serve ` +
      `(bench/search_core_server.ts) ${us(spreadOf(whole.baseline))}, round by round; ${REQUESTS} timed ` +
      `requests at c=16`,
    target: `≤ ${LAYER_BUDGET_US} µs`,
  }];
  const row = (figure: string, pair: Compared, saving: ReturnType<typeof spreadOf>, vs: BenchRow["vs"]) => ({
    figure,
    service: pair.service,
    vs,
    baseline: pair.baseline,
    ratio: pair.ratio,
    note: `saves ${us(saving)} a search`,
  });
  for (const [item, name] of ITEMS) {
    const pair = await interleave(() => layered(item), () => layered(""));
    rows.push(row(
      `search CPU a request without the ${name} (µs)`,
      compare(pair, (s) => s, (b) => b),
      differences({ service: pair.baseline, baseline: pair.service }),
      "same service, the whole layer",
    ));
  }
  const hono = await interleave(core, () => layered(ALL_OFF));
  rows.push(row(
    "search CPU a request without Hono's dispatch (µs)",
    compare(hono, (s) => s, (b) => b),
    differences({ service: hono.baseline, baseline: hono.service }),
    "same service, Hono with no other item of the layer",
  ));
  return rows;
}
