/**
 * A background job run again and again inside the server (the photo purge, the session sweep): first
 * `firstDelayMs` after start, then `intervalMs` after each run ends, so runs never overlap. A failed run is
 * handed to `onError` and the next one is still scheduled. The timer does not keep the process alive.
 */
export interface Repeating {
  /** Cancels the next run and waits for one in progress. */
  stop(): Promise<void>;
}

export function repeatEvery(
  work: () => Promise<void>,
  opts: { firstDelayMs: number; intervalMs: number; onError: (error: unknown) => void },
): Repeating {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const schedule = (ms: number) => {
    if (stopped) return;
    const t = setTimeout(run, ms);
    Deno.unrefTimer(t);
    timer = t;
  };
  const run = () => {
    running = work().catch(opts.onError).finally(() => {
      running = undefined;
      schedule(opts.intervalMs);
    });
  };
  schedule(opts.firstDelayMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
