/**
 * Fair pairs (docs/performance.md "How `deno task bench` measures"): a figure and what it is compared with
 * run ROUNDS times each (or an even count a group asks for), interleaved (service, baseline, then baseline,
 * service, …): each side goes first in exactly half the rounds, so drift of a shared machine and a warmer
 * cache hit both alike. Each sample after its own warm-up, with the same work on both sides. Every paired
 * row of the bench goes through `interleave` and `compare`; the row shows the median of the rounds with
 * min–max beside it.
 */

/** A figure over several rounds: its median and the smallest and largest round. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  /** Rounds behind it. */
  n: number;
}

/** Runs per side of every pair: even, so each side goes first in half of them. */
export const ROUNDS = 4;

/**
 * `BENCH_QUICK=1`: reduced samples, to check that the whole bench runs (the figures are then only rough).
 * The rounds stay at ROUNDS (or what a group asks for).
 */
export const QUICK = Deno.env.get("BENCH_QUICK") === "1";

/** A sample size: `full` normally, `quick` under BENCH_QUICK=1. */
export const sized = (full: number, quick: number): number => QUICK ? quick : full;

export function spreadOf(values: number[]): Spread {
  if (values.length === 0) throw new Error("spreadOf: no values");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted.at(-1)!, n: sorted.length };
}

/** The samples of both sides of a pair, one per round, in round order. */
export interface PairSamples<S, B> {
  service: S[];
  baseline: B[];
}

/**
 * Runs `rounds` rounds of the pair (ROUNDS, or an even count of at least 2 a group asks for: an odd count
 * would let one side go first once more, and is refused): in even rounds the service first, in odd rounds
 * the baseline first. Each callback takes one whole sample (start what it needs, warm up, measure, stop)
 * and returns it.
 */
export async function interleave<S, B>(
  service: (round: number) => Promise<S>,
  baseline: (round: number) => Promise<B>,
  rounds = ROUNDS,
): Promise<PairSamples<S, B>> {
  if (!Number.isInteger(rounds) || rounds < 2 || rounds % 2 !== 0) {
    throw new RangeError(`interleave: rounds must be an even whole number of at least 2, not ${rounds}`);
  }
  const samples: PairSamples<S, B> = { service: [], baseline: [] };
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      samples.service.push(await service(round));
      samples.baseline.push(await baseline(round));
    } else {
      samples.baseline.push(await baseline(round));
      samples.service.push(await service(round));
    }
  }
  return samples;
}

/** One number of a pair's samples: each side's spread, and the spread of the per-round ratio service/baseline. */
export interface Compared {
  service: Spread;
  baseline: Spread;
  ratio: Spread;
}

export function compare<S, B>(
  samples: PairSamples<S, B>,
  pickService: (s: S) => number,
  pickBaseline: (b: B) => number,
): Compared {
  const service = samples.service.map(pickService);
  const baseline = samples.baseline.map(pickBaseline);
  return {
    service: spreadOf(service),
    baseline: spreadOf(baseline),
    ratio: spreadOf(service.map((s, i) => s / baseline[i])),
  };
}
