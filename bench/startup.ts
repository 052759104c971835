/**
 * Start-up figures (docs/performance.md "Memory and start-up"): seconds from starting the service on an existing
 * database to its first healthy answer (a warm restart), and its memory once idle, each beside its budget and
 * beside a bare baseline measured in the same rounds: bench/baseline_idle_server.ts, a bare Deno process
 * opening the same database and answering /healthz after `select 1`, with the service's idle clean-up. On the
 * embedded database, also the memory after a first start with demo data (APP_ENV=development on an empty data
 * folder).
 *
 * The service is started with `deno run -A tasks/start.ts`, which is what `deno task start` runs (without the
 * task runner's own start-up). Both sides are measured the same way: each gives memory back after
 * IDLE_MEMORY_SECONDS without a request (io/memory_reducer.ts: the service's own, the baseline's the same
 * module), and both are read IDLE_MS after healthy: the peak since the process started (VmHWM, before any
 * clean-up) and the settled resident memory (VmRSS, after it).
 */
import { compare, interleave, type PairSamples, QUICK, sized, spreadOf } from "@/bench/pairs.ts";
import { type Memory, readCpuMs, startChild } from "@/bench/process.ts";
import { serviceEnv } from "@/bench/target.ts";
import { formatValue } from "@/bench/report.ts";
import { MEMORY_BUDGET_MB, MEMORY_TARGET } from "@/bench/budgets.ts";
import type { BenchRow } from "@/bench/report.ts";
import type { BenchTarget } from "@/bench/target.ts";

const MB = 1e6;
/** Quiet seconds before each side's idle clean-up; passed to both as IDLE_MEMORY_SECONDS. */
const CLEAN_UP_S = sized(3, 1);
/** When memory is read: the clean-up's time after healthy and 2 s for it to settle. */
const IDLE_MS = CLEAN_UP_S * 1000 + 2000;
const RESTART_BUDGET_S = 0.8;

interface StartSample {
  readyS: number;
  /** CPU time (all threads) the process had used when it first answered 200, read just after. */
  cpuS: number;
  idle: Memory;
}

async function startIdle(script: string, env: Record<string, string>): Promise<StartSample> {
  const child = await startChild(script, { ...env, IDLE_MEMORY_SECONDS: String(CLEAN_UP_S) });
  try {
    const cpuS = await readCpuMs(child.pid) / 1000;
    await new Promise((r) => setTimeout(r, IDLE_MS));
    return { readyS: child.readyMs / 1000, cpuS, idle: await child.memory() };
  } finally {
    await child.stop();
  }
}

const SERVICE = "tasks/start.ts";
const BARE = "bench/baseline_idle_server.ts";

/** Service and bare starts on the target, interleaved after one untimed start of each; shared by both groups. */
const starts = new WeakMap<BenchTarget, Promise<PairSamples<StartSample, StartSample>>>();
function measureStarts(target: BenchTarget): Promise<PairSamples<StartSample, StartSample>> {
  const run = async () => {
    // Untimed: the first start after the data were written pays for cold file caches and Deno's module cache.
    await startIdle(SERVICE, serviceEnv(target));
    await startIdle(BARE, target.env);
    return await interleave(() => startIdle(SERVICE, serviceEnv(target)), () => startIdle(BARE, target.env));
  };
  if (!starts.has(target)) starts.set(target, run());
  return starts.get(target)!;
}

/**
 * CPU time to healthy of both sides: other sessions on a shared machine stretch the wall time of a start far
 * more than its CPU time, so this says whether a change of the figure is the service's doing.
 */
const cpuNote = (samples: PairSamples<StartSample, StartSample>) =>
  `CPU used to healthy: service ${formatValue(spreadOf(samples.service.map((s) => s.cpuS)))} s, ` +
  `baseline ${formatValue(spreadOf(samples.baseline.map((s) => s.cpuS)))} s`;

const hwmNote = (samples: StartSample[]) =>
  `peak since start (VmHWM) ${formatValue(spreadOf(samples.map((s) => s.idle.hwm / MB)))} MB`;

/** How the settled figures were read (the same on both sides). */
const settledNote = `resident (VmRSS) ${IDLE_MS / 1000} s after healthy, after the idle clean-up ` +
  `(io/memory_reducer.ts, ${CLEAN_UP_S} s without a request)`;

export async function benchRestart(target: BenchTarget): Promise<BenchRow[]> {
  const samples = await measureStarts(target);
  const ready = compare(samples, (s) => s.readyS, (b) => b.readyS);
  const figure = "warm restart to healthy (s)";
  return [
    {
      figure,
      service: ready.service,
      vs: "budget",
      baseline: RESTART_BUDGET_S,
      ratio: ready.service.median / RESTART_BUDGET_S,
      note: "tasks/start.ts on an existing database, spawn to the first 200 from /healthz (polled every " +
        `10 ms); ${cpuNote(samples)}`,
      target: `≤ ${RESTART_BUDGET_S} s`,
    },
    {
      figure,
      service: ready.service,
      vs: "baseline",
      baseline: ready.baseline,
      ratio: ready.ratio,
      note: "baseline: a bare Deno process opening the same database, /healthz after select 1 (its idle " +
        "clean-up armed, as the service's is)",
    },
  ];
}

export async function benchIdleMemory(target: BenchTarget): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  if (target.kind === "embedded") {
    const first: StartSample[] = [];
    for (let round = 0; round < (QUICK ? 1 : 3); round++) {
      const dataDir = await Deno.makeTempDir({ prefix: "pm-bench-first-start-" });
      try {
        first.push(await startIdle(SERVICE, { ...serviceEnv(target), DATA_DIR: dataDir }));
      } finally {
        await Deno.remove(dataDir, { recursive: true }).catch(() => {});
      }
    }
    const rss = spreadOf(first.map((s) => s.idle.rss / MB));
    rows.push({
      figure: "idle memory, first start with demo data (MB)",
      service: rss,
      vs: "budget",
      baseline: MEMORY_BUDGET_MB.firstStart,
      ratio: rss.median / MEMORY_BUDGET_MB.firstStart,
      note: `empty data folder, APP_ENV=development; ${settledNote}; ${hwmNote(first)}; ready in ` +
        `${formatValue(spreadOf(first.map((s) => s.readyS)))} s`,
      target: `≤ ${MEMORY_BUDGET_MB.firstStart} MB`,
    });
  }
  const samples = await measureStarts(target);
  const rss = compare(samples, (s) => s.idle.rss / MB, (b) => b.idle.rss / MB);
  const hwm = compare(samples, (s) => s.idle.hwm / MB, (b) => b.idle.hwm / MB);
  const budget = MEMORY_BUDGET_MB[target.kind];
  const figure = "idle memory after a restart (MB)";
  rows.push(
    {
      figure,
      service: rss.service,
      vs: "budget",
      baseline: budget,
      ratio: rss.service.median / budget,
      note: `${settledNote}; ${hwmNote(samples.service)}`,
      target: MEMORY_TARGET,
    },
    {
      figure,
      service: rss.service,
      vs: "baseline",
      baseline: rss.baseline,
      ratio: rss.ratio,
      note: "baseline: a bare Deno process with the same database driver, the same database open and the " +
        `same idle clean-up; both ${settledNote}`,
    },
    {
      figure: "peak memory from a restart to idle (VmHWM, MB)",
      service: hwm.service,
      vs: "baseline",
      baseline: hwm.baseline,
      ratio: hwm.ratio,
      note: `the highest resident memory since the process started, read ${IDLE_MS / 1000} s after healthy`,
    },
  );
  return rows;
}
