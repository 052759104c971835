/**
 * Child processes for the bench: start a server script, time it to its first healthy answer, read its
 * memory (VmRSS now, VmHWM the peak since it started) and CPU time from /proc.
 */
export interface ChildServer {
  url: string;
  pid: number;
  /** Milliseconds from spawning the process to its first 200 on the ready path (polled every 10 ms). */
  readyMs: number;
  /** Resident memory now, in bytes (Linux /proc). */
  rss(): Promise<number>;
  /** Resident memory now and the peak since the process started, in bytes. */
  memory(): Promise<Memory>;
  stop(): Promise<void>;
}

export interface Memory {
  rss: number;
  hwm: number;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** VmRSS and VmHWM of a process, in bytes. */
export async function readMemory(pid: number): Promise<Memory> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

export async function readRss(pid: number): Promise<number> {
  return (await readMemory(pid)).rss;
}

/**
 * User plus system CPU time of a process so far, all its threads, in milliseconds (Linux /proc; 100 ticks a
 * second). Steadier than wall time on a shared machine: other processes delay a start more than they
 * add to the work it does.
 */
export async function readCpuMs(pid: number): Promise<number> {
  const fields = (await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Runs `deno run -A <script>` with env (PORT is chosen here) and waits for `readyPath` to answer 200.
 * The readiness poll is fine-grained (10 ms) so `readyMs` can be compared with a sub-second budget.
 */
export async function startChild(
  script: string,
  env: Record<string, string>,
  readyPath = "/healthz",
  /** `cwd`: another checkout (the profiles' A/B runs); `flags`: Deno's own, e.g. `--cpu-prof`. */
  options: { cwd?: string; flags?: string[] } = {},
): Promise<ChildServer> {
  const port = freePort();
  const spawned = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...options.flags ?? [], script],
    cwd: options.cwd,
    env: { ...env, PORT: String(port) },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  // Keep reading stderr (the last of it is kept for the error) so the child never blocks on a full pipe.
  let stderrTail = "";
  child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (s) => void (stderrTail = (stderrTail + s).slice(-2000)) }),
  ).catch(() => {});
  let exited: Deno.CommandStatus | undefined;
  child.status.then((status) => exited = status);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (true) {
    try {
      const res = await fetch(url + readyPath);
      await res.body?.cancel();
      if (res.ok) break;
    } catch { /* not listening yet */ }
    if (exited || Date.now() > deadline) {
      if (!exited) child.kill("SIGKILL");
      throw new Error(
        `${script} did not start: ${exited ? "it exited" : "not healthy in 120 s"}\n${stderrTail}`,
      );
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const readyMs = performance.now() - spawned;
  return {
    url,
    pid: child.pid,
    readyMs,
    rss: () => readRss(child.pid),
    memory: () => readMemory(child.pid),
    /** Stops the child; if it had already exited (crashed under the load), says so with its last stderr. */
    stop: async () => {
      if (exited) throw new Error(`${script} exited during the bench (code ${exited.code})\n${stderrTail}`);
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
    },
  };
}

/** Samples `rss()` every 20 ms while `work` runs; returns the peak seen and the work's result. */
export async function withPeakRss<T>(rss: () => Promise<number>, work: () => Promise<T>) {
  let peak = await rss();
  let running = true;
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, await rss().catch(() => 0));
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    return { result: await work(), peak };
  } finally {
    running = false;
    await sampler;
  }
}
