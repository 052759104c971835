/**
 * Random-outcome races that prove both outcomes: each round starts its sides after a random delay
 * (jitter), so either can be first, and rounds go on until each side has won a few times. A race whose
 * one side happens to win every time on this machine therefore fails instead of passing unproven.
 */
import assert from "node:assert/strict";
import { sql, type Transaction } from "kysely";
import type { Db } from "@/db/client.ts";
import type { Database } from "@/db/schema.ts";

/** Longest random delay before a side of a race starts: longer than either side takes to reach its lock. */
export const JITTER_MS = 40;

/** Resolves after a random 0 to `maxMs` ms. */
export const jitter = (maxMs = JITTER_MS) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * maxMs));

/**
 * Starts `side` after a random delay of up to `maxMs`. The quicker side of a race (a single UPDATE against a
 * whole submission) gets the longer range, so each side is first in a fair share of rounds.
 */
export const jittered = <T>(side: () => Promise<T>, maxMs = JITTER_MS): Promise<T> =>
  jitter(maxMs).then(side);

export interface RaceRounds {
  /** Rounds always run. */
  min: number;
  /** Rounds at most: both sides must have won `each` times by then. */
  max: number;
  /** Wins each side needs. */
  each: number;
}

export const RACE_ROUNDS: RaceRounds = { min: 12, max: 60, each: 3 };

/**
 * Runs `round(i)` (one race: it asserts the round's invariant and returns who won) for i = 0, 1, … until at
 * least `min` rounds ran and each of `sides` won at least `each` times; fails if that has not happened
 * after `max` rounds. Returns the wins per side.
 */
export async function raceUntilBothWin<S extends string>(
  sides: readonly [S, S],
  round: (i: number) => Promise<S>,
  opts: RaceRounds = RACE_ROUNDS,
): Promise<Record<S, number>> {
  const wins = Object.fromEntries(sides.map((s) => [s, 0])) as Record<S, number>;
  let i = 0;
  while (i < opts.min || sides.some((s) => wins[s] < opts.each)) {
    assert.ok(
      i < opts.max,
      `after ${i} rounds one outcome is missing: ${JSON.stringify(wins)} (each side must win ${opts.each})`,
    );
    wins[await round(i++)]++;
  }
  return wins;
}

/**
 * Holds what `hold` locks in a transaction of its own while `during(release)` runs, and always ends that
 * transaction: `release` lets it commit (call it when the waiters should proceed), and it is released
 * anyway when `during` returns or throws. Fails at once, never hangs, when `hold` throws (a failed
 * assertion in it) before holding, or when `during` throws while the lock is held.
 */
export async function whileHolding<T>(
  db: Db,
  hold: (trx: Transaction<Database>) => Promise<void>,
  during: (release: () => void) => Promise<T>,
): Promise<T> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  let holding!: () => void;
  const held = new Promise<void>((resolve) => holding = resolve);
  const transaction = db.transaction().execute(async (trx) => {
    await hold(trx);
    holding();
    await gate;
  });
  let result: T;
  try {
    await Promise.race([
      held,
      transaction.then(() => Promise.reject(new Error("the holding transaction ended before holding"))),
    ]);
    result = await during(release);
  } finally {
    release();
    await transaction; // its own error (from hold) comes out here
  }
  return result;
}

/** Resolves with `promise`, or rejects when it takes longer than `ms` (a wait that must not hang). */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms / 1000} s`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves once `done()` (checked every `everyMs`) is true; rejects after `ms` with `what` in the message.
 * For waits on a state (a log line, a counter, a row): a regression fails the test instead of hanging it,
 * and a slow machine only makes the wait longer, never the outcome different.
 */
export async function waitFor(
  done: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
  everyMs = 10,
): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`${what}: not so within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Waits until `n` backends of this database wait for a lock (server database; fails after 5 s). */
export async function lockWaiters(db: Db, n: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const r = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
    if (r.rows[0].n >= n) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`expected ${n} lock waiters`);
}
