/**
 * A closed-loop load generator: `concurrency` workers each send the next request as soon as the last
 * answered, for a fixed number of requests. Reports requests/s and latency percentiles. Loopback only.
 */
export interface LoadResult {
  requests: number;
  failures: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** What the first failed request threw (a `send` may throw to say why its answer was wrong). */
  firstError?: string;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Runs `total` calls of `send(i)` with `concurrency` in flight; `send` resolves true when the answer was
 * right, false or throws when it was not.
 */
export async function runLoad(
  total: number,
  concurrency: number,
  send: (i: number) => Promise<boolean>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let nextIndex = 0;
  let failures = 0;
  let firstError: string | undefined;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (nextIndex < total) {
      const i = nextIndex++;
      const t0 = performance.now();
      const ok = await send(i).catch((e) => {
        firstError ??= String(e);
        return false;
      });
      latencies.push(performance.now() - t0);
      if (!ok) failures++;
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: total,
    failures,
    seconds,
    rps: total / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    firstError,
  };
}

/** A figure built on failed requests measures the failure path: stop the bench instead of printing it. */
export function assertNoFailures(what: string, ...results: LoadResult[]): void {
  const failures = results.map((r) => r.failures);
  if (failures.some((n) => n > 0)) {
    const why = results.map((r) => r.firstError).filter(Boolean).join("; ");
    throw new Error(`${what}: failed requests ${failures.join(" / ")}${why ? `; first: ${why}` : ""}`);
  }
}
