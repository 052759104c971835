/**
 * Fixed-window rate limits kept in memory, per key (a client address, a user). One process holds its own
 * counts: with several server processes each allows the limit, which is still a bound on abuse. A window
 * is one minute; an over-limit answer says when to come back (Retry-After).
 */
import type { Clock } from "@/io/clock.ts";

export interface LimitDecision {
  allowed: boolean;
  /** Seconds until the window resets (for Retry-After). */
  retryAfterSeconds: number;
}

export class RateLimiter {
  #windows = new Map<string, { start: number; count: number }>();
  #lastSweep = 0;

  constructor(private readonly perMinute: number, private readonly clock: Clock) {}

  /** Counts one hit for `key` and says whether it is within the limit. */
  hit(key: string): LimitDecision {
    const now = this.clock.now().getTime();
    this.#sweep(now);
    let w = this.#windows.get(key);
    if (!w || now - w.start >= 60_000) {
      w = { start: now, count: 0 };
      this.#windows.set(key, w);
    }
    w.count++;
    return {
      allowed: w.count <= this.perMinute,
      retryAfterSeconds: Math.max(1, Math.ceil((w.start + 60_000 - now) / 1000)),
    };
  }

  /** Drops finished windows now and then, so memory stays bounded by the clients of one minute. */
  #sweep(now: number): void {
    if (now - this.#lastSweep < 60_000) return;
    this.#lastSweep = now;
    for (const [key, w] of this.#windows) if (now - w.start >= 60_000) this.#windows.delete(key);
  }
}
