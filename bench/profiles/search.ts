// Question: where does a search's cost go, in requests/s and CPU a request, for this checkout, another checkout, the service without its HTTP layer and the bare baseline? Run: deno run -A bench/profiles/search.ts --dir /tmp/search-data --fill, then the same without --fill [--ab <checkout>] [--core] [--rounds 3]
/**
 * Not part of `deno task bench` (docs/performance.md "Search path"): fills an embedded folder with bench data
 * once (`--fill`), then measures bench/search.ts's request shape against the service of this checkout,
 * optionally another checkout's (`--ab <dir>`, e.g. a `git worktree` of the previous commit) and the bare
 * baseline, interleaved `--rounds` times, one server at a time on the same folder.
 * For CPU profiles, add `--cpu-prof`: the service of this checkout writes one into /tmp/search-prof, the
 * baseline into /tmp/search-prof/baseline, the core (`--core`) into /tmp/search-prof/core.
 * `--url postgres://…/<scratch db>` runs on that server database instead (the folder keeps the regos).
 * `--ab-flags "<deno flags>"` starts the other side with those Deno flags (`--ab .` with
 * `--ab-flags=--v8-flags=--max-semi-space-size=1`: the same checkout with and without a V8 flag).
 * `--core` adds a side: the service's search without its HTTP layer (bench/search_core_server.ts).
 * The first server of a round tends to run slower whichever it is: compare checkouts in both orders.
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { openDb } from "@/db/client.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { fillClaims, sampleRegos } from "@/bench/generate.ts";
import { measureChildSearch } from "@/bench/search.ts";
import { BENCH_PUBLIC_KEY } from "@/bench/target.ts";
import { startChild } from "@/bench/process.ts";

const { values } = parseArgs({
  options: {
    dir: { type: "string", default: "/tmp/search-data" },
    fill: { type: "boolean", default: false },
    ab: { type: "string" },
    rounds: { type: "string", default: "3" },
    "cpu-prof": { type: "boolean", default: false },
    url: { type: "string" },
    "ab-flags": { type: "string", default: "" },
    core: { type: "boolean", default: false },
  },
});
const regoFile = join(values.dir, "regos.json");
if (values.fill) {
  await Deno.mkdir(values.dir, { recursive: true });
  const db = openDb(values.url ? { url: values.url } : { dir: join(values.dir, "db") });
  await migrateToLatest(db);
  await fillClaims(db, 10_000);
  await Deno.writeTextFile(regoFile, JSON.stringify(await sampleRegos(db, 500)));
  await db.destroy();
  Deno.exit(0);
}
const regos: string[] = JSON.parse(await Deno.readTextFile(regoFile));

/** Runs `script` in `cwd` on the folder, measures, stops it; returns requests/s. */
async function run(label: string, cwd: string, script: string, path: string, flags: string[] = []) {
  const child = await startChild(
    script,
    {
      DATA_DIR: values.dir,
      DATABASE_URL: values.url ?? "",
      APP_ENV: "development",
      PUBLIC_KEY: BENCH_PUBLIC_KEY,
      LOG_FORMAT: "json",
      RATE_LIMITS: "off",
    },
    "/healthz",
    { cwd, flags },
  );
  // CPU time of the server process per request of the timed load: unlike requests/s, it hardly depends on
  // the share of the 2 cores other processes leave it.
  const r = await measureChildSearch(child, path, regos);
  const cpuUs = r.cpuUs;
  const peakMb = r.peakRss / 1e6;
  await child.stop();
  console.log(
    `${label.padEnd(10)} ${r.rps.toFixed(0).padStart(5)} requests/s, p50 ${r.p50Ms.toFixed(1)} ms, ` +
      `${cpuUs.toFixed(0)} µs CPU a request, peak RSS ${peakMb.toFixed(0)} MB`,
  );
  samples[label] = [...samples[label] ?? [], { rps: r.rps, cpuUs, peakMb }];
  return r.rps;
}

/** Every round's figures of each side, for the medians printed at the end. */
const samples: Record<string, { rps: number; cpuUs: number; peakMb: number }[]> = {};
const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];

const handler = `/api/handler?publickey=${BENCH_PUBLIC_KEY}`;
const prof = (dir: string) => values["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [];
for (let round = 0; round < Number(values.rounds); round++) {
  const ours = await run("this", ".", "tasks/start.ts", handler, prof("/tmp/search-prof"));
  const other = values.ab
    ? await run("other", values.ab, "tasks/start.ts", handler, values["ab-flags"].split(" ").filter(Boolean))
    : undefined;
  const core = values.core
    ? await run("core", ".", "bench/search_core_server.ts", handler, prof("/tmp/search-prof/core"))
    : undefined;
  const bare = await run(
    "baseline",
    ".",
    "bench/baseline_search_server.ts",
    "/",
    prof("/tmp/search-prof/baseline"),
  );
  console.log(
    `round ${round + 1}: this/baseline ${(ours / bare).toFixed(2)}` +
      (other ? `, other/baseline ${(other / bare).toFixed(2)}` : "") +
      (core ? `, core/baseline ${(core / bare).toFixed(2)}` : ""),
  );
}
for (const [label, runs] of Object.entries(samples)) {
  console.log(
    `median ${label.padEnd(10)} ${median(runs.map((r) => r.rps)).toFixed(0).padStart(5)} requests/s, ` +
      `${median(runs.map((r) => r.cpuUs)).toFixed(0)} µs CPU a request, peak RSS ` +
      `${median(runs.map((r) => r.peakMb)).toFixed(0)} MB (${runs.length} rounds)`,
  );
}
