/** Child processes for the bench: start a server script, wait until it answers, sample its memory. */
export interface ChildServer {
  url: string;
  pid: number;
  /** Resident memory now, in bytes (Linux /proc). */
  rss(): Promise<number>;
  stop(): Promise<void>;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

export async function readRss(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb * 1024;
}

/** Runs `deno run -A <script>` with env (PORT is chosen here) and waits for `readyPath` to answer 200. */
export async function startChild(
  script: string,
  env: Record<string, string>,
  readyPath = "/healthz",
): Promise<ChildServer> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script],
    env: { ...env, PORT: String(port) },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (true) {
    try {
      const res = await fetch(url + readyPath);
      await res.body?.cancel();
      if (res.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${script} did not start within 120 s`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  // Keep reading stderr so the child never blocks on a full pipe.
  child.stderr.pipeTo(new WritableStream()).catch(() => {});
  return {
    url,
    pid: child.pid,
    rss: () => readRss(child.pid),
    stop: async () => {
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
