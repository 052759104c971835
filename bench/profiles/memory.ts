// Question: how much does an idle `deno task start` hold resident, and how soon is it healthy (here, or against another checkout)? Run: deno run -A bench/profiles/memory.ts [--runs 3] [--db postgres://…] [--ab <other checkout>]
/**
 * Not part of `deno task bench`, whose memory and restart groups give the paired figures. One line per start,
 * for the cases of docs/performance.md "Memory and start-up": an embedded first start with demo data, warm
 * restarts on the same folder, and a server database (`--db`; without it that case is skipped). `--ab` (e.g.
 * a `git worktree` of the previous commit) interleaves warm restarts of both checkouts and prints the medians.
 */
import { parseArgs } from "node:util";
import { startChild } from "@/bench/process.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "1" },
    db: { type: "string" },
    idle: { type: "string", default: "3" },
    // Another checkout (e.g. a `git worktree` of the previous commit): warm restarts of both, interleaved.
    ab: { type: "string" },
  },
});

/** Starts tasks/start.ts, waits for /healthz 200 (polled every 10 ms), idles, reads VmRSS; stops it. */
async function measure(label: string, env: Record<string, string>, cwd = "."): Promise<number> {
  const child = await startChild(
    "tasks/start.ts",
    { APP_ENV: "development", RATE_LIMITS: "off", ...env },
    "/healthz",
    { cwd },
  );
  const healthy = child.readyMs / 1000;
  await new Promise((r) => setTimeout(r, Number(values.idle) * 1000));
  const rss = await child.rss();
  await child.stop();
  console.log(
    `${label.padEnd(28)} healthy in ${healthy.toFixed(2)} s, idle RSS ${(rss / 1e6).toFixed(0)} MB`,
  );
  return healthy;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (values.ab) {
  // Warm restarts of this checkout and another, interleaved, each on its own prepared folder.
  const roots = { this: ".", other: values.ab };
  const times: Record<string, number[]> = { this: [], other: [] };
  const dirs = { this: await Deno.makeTempDir(), other: await Deno.makeTempDir() };
  for (const side of ["this", "other"] as const) {
    await measure(`${side}: first start`, { DATA_DIR: dirs[side] }, roots[side]);
  }
  for (let run = 0; run < Number(values.runs); run++) {
    for (const side of ["this", "other"] as const) {
      times[side].push(await measure(`${side}: warm restart`, { DATA_DIR: dirs[side] }, roots[side]));
    }
  }
  console.log(
    `median warm restart: this ${median(times.this).toFixed(2)} s, other ${median(times.other).toFixed(2)} s`,
  );
  Deno.exit(0);
}

for (let run = 0; run < Number(values.runs); run++) {
  const dir = await Deno.makeTempDir({ prefix: "pm-mem-" });
  await measure("embedded first start (demo)", { DATA_DIR: dir });
  await measure("embedded warm restart", { DATA_DIR: dir });
  await measure("embedded warm restart", { DATA_DIR: dir });
  await Deno.remove(dir, { recursive: true });
  if (values.db) {
    const dir2 = await Deno.makeTempDir({ prefix: "pm-mem-" });
    await measure("server database", { DATA_DIR: dir2, DATABASE_URL: values.db });
    await Deno.remove(dir2, { recursive: true });
  }
}
