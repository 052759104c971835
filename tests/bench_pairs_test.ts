/**
 * Fair pairs (bench/pairs.ts, docs/performance.md "How `deno task bench` measures"): each side goes first in
 * exactly half the rounds, a group may ask for another even count, and an odd count is refused.
 */
import assert from "node:assert/strict";
import { interleave, ROUNDS } from "@/bench/pairs.ts";

/** The order the sides ran in, and which side went first in each round. */
async function order(rounds?: number) {
  const ran: string[] = [];
  const samples = await interleave(
    (round) => Promise.resolve(ran.push(`s${round}`)),
    (round) => Promise.resolve(ran.push(`b${round}`)),
    rounds,
  );
  const first = Array.from({ length: ran.length / 2 }, (_, i) => ran[2 * i][0]);
  return { ran, first, samples };
}

Deno.test("interleave: the default rounds are even, each side first in half of them", async () => {
  assert.equal(ROUNDS % 2, 0);
  const { ran, first, samples } = await order();
  assert.equal(samples.service.length, ROUNDS);
  assert.equal(samples.baseline.length, ROUNDS);
  assert.equal(first.filter((s) => s === "s").length, ROUNDS / 2);
  assert.equal(first.filter((s) => s === "b").length, ROUNDS / 2);
  assert.deepEqual(ran.slice(0, 4), ["s0", "b0", "b1", "s1"]);
});

Deno.test("interleave: a group's own even count, alternating", async () => {
  const { first, samples } = await order(6);
  assert.deepEqual(first, ["s", "b", "s", "b", "s", "b"]);
  assert.equal(samples.service.length, 6);
});

Deno.test("interleave: an odd or too small count is refused before any round runs", async () => {
  for (const rounds of [3, 5, 0, 1, 2.5]) {
    let ran = 0;
    await assert.rejects(
      interleave(() => Promise.resolve(ran++), () => Promise.resolve(ran++), rounds),
      RangeError,
    );
    assert.equal(ran, 0, `${rounds} rounds ran a side`);
  }
});
