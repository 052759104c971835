/**
 * At most `limit` pieces of work at once; the rest wait their turn in arrival order (FIFO), on promises,
 * never polling. A waiter whose signal aborts leaves the queue and never runs. Used for thumbnail decodes
 * (lib/photos/thumbnail_jobs.ts), each of which holds tens of MB while it runs (docs/performance.md
 * "Memory and start-up").
 */
export class ConcurrencyCap {
  #running = 0;
  /** Waiters in arrival order; `#head` is the next to start (shifting an array is O(n)). */
  #queue: ({ start: () => void } | undefined)[] = [];
  #head = 0;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`limit must be a whole number ≥ 1: ${limit}`);
    }
  }

  /** Work running now. */
  get running(): number {
    return this.#running;
  }

  /** Work waiting for a turn. */
  get waiting(): number {
    let n = 0;
    for (let i = this.#head; i < this.#queue.length; i++) if (this.#queue[i]) n++;
    return n;
  }

  /**
   * Runs `work` when a turn is free and returns its result. If `signal` aborts while it waits, rejects with
   * the signal's reason and `work` never runs; once started, the work runs to its end whatever the signal.
   */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.#running < this.limit) this.#running++;
    else await this.#turn(signal);
    try {
      return await work();
    } finally {
      this.#release();
    }
  }

  /** Waits in the queue; resolves holding a turn (the releaser counted it for us). */
  #turn(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const index = this.#queue.length;
      const onAbort = () => {
        this.#queue[index] = undefined; // a hole: #release skips it
        reject(signal!.reason);
      };
      this.#queue.push({
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Hands the turn to the first live waiter, or frees it. */
  #release(): void {
    while (this.#head < this.#queue.length) {
      const next = this.#queue[this.#head];
      this.#queue[this.#head++] = undefined;
      if (next) {
        next.start(); // the turn passes on: #running stays the same
        this.#compact();
        return;
      }
    }
    this.#running--;
    this.#compact();
  }

  /** Drops the consumed front of the queue once it is all consumed, so the array does not grow for ever. */
  #compact(): void {
    if (this.#head === this.#queue.length) {
      this.#queue.length = 0;
      this.#head = 0;
    }
  }
}
