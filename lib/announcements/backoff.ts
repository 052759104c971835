/**
 * When to try an announcement again (D22): exponential backoff with jitter, never sooner than the
 * chat asked (Retry-After), and given up 24 hours after the announcement was written.
 */

export const BASE_DELAY_MS = 5_000;
export const MAX_DELAY_MS = 15 * 60_000;
/** ±20 %: several announcements that failed together (a chat outage) do not retry in lockstep. */
export const JITTER = 0.2;
export const GIVE_UP_AFTER_MS = 24 * 60 * 60_000;

/**
 * Delay before the next attempt, after `attempts` failed attempts (1 = the first one failed):
 * 5 s, 10 s, 20 s, … capped at 15 min, each ±20 %. `random` returns [0, 1) and is injectable so
 * tests can pin the jitter.
 */
function backoffDelayMs(attempts: number, random: () => number = Math.random): number {
  // The exponent is clamped: 2 ** 1000 is Infinity, and the cap is reached long before 2 ** 20.
  const exponent = Math.min(Math.max(Math.floor(attempts), 1) - 1, 20);
  const base = Math.min(BASE_DELAY_MS * 2 ** exponent, MAX_DELAY_MS);
  const factor = 1 + (random() * 2 - 1) * JITTER;
  // Jitter can push past the cap; the cap is a promise to the operator ("at most 15 min"), so it wins.
  return Math.round(Math.min(base * factor, MAX_DELAY_MS));
}

/**
 * The time of the next attempt after `attempts` failed attempts. A Retry-After (already turned into
 * milliseconds from `now`) is a floor: retrying sooner would only be throttled again.
 */
export function nextAttemptAt(
  attempts: number,
  now: Date,
  retryAfterMs?: number,
  random: () => number = Math.random,
): Date {
  const delay = Math.max(backoffDelayMs(attempts, random), retryAfterMs ?? 0);
  return new Date(now.getTime() + delay);
}

/** True once an announcement written at `createdAt` has been retried for 24 hours. */
export function shouldGiveUp(createdAt: Date, now: Date): boolean {
  return now.getTime() - createdAt.getTime() >= GIVE_UP_AFTER_MS;
}
