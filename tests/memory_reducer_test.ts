/**
 * io/memory_reducer.ts: after a quiet spell the process gives its young generation back; a request restarts
 * the wait; one collection per quiet spell. Real timers, but no outcome depends on how late one fires: the
 * test waits for a collection (bounded, so a regression fails instead of hanging) and asserts its order
 * against the requests on the monotonic clock (no collection before the last request + the wait). Where
 * the test shows that nothing happens (no second collection, none once stopped), it watches for a window
 * of a few waits; a late timer only makes that window longer, never the outcome different.
 */
import assert from "node:assert/strict";
import v8 from "node:v8";
import { startMemoryReducer } from "@/io/memory_reducer.ts";
import { waitFor } from "@/tests/helpers/races.ts";

/** The bound on a wait for a collection that must come: a failure, not a speed claim. */
const BOUND_MS = 10_000;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const youngGenerationBytes = () =>
  v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space")!.space_size;

/** Allocates short-lived objects until V8 has grown its young generation past `bytes`. */
function growYoungGeneration(bytes: number): void {
  let keep: object[] = [];
  for (let i = 0; i < 2e7 && youngGenerationBytes() <= bytes; i++) {
    keep.push({ i, s: `part ${i}` });
    if (keep.length > 200_000) keep = [];
  }
}

/** A reducer over `idleMs` whose collections are stamped on the monotonic clock as they end. */
function watched(idleMs: number) {
  const collectedAt: number[] = [];
  const reducer = startMemoryReducer(idleMs, () => collectedAt.push(performance.now()));
  const collections = (n: number) =>
    waitFor(() => collectedAt.length >= n, BOUND_MS, `collection ${n} of the reducer`);
  return { reducer, collectedAt, collections };
}

Deno.test("memory reducer: after a quiet spell the young generation is back to its smallest", async () => {
  growYoungGeneration(8e6);
  const grown = youngGenerationBytes();
  assert.ok(grown > 8e6, `the load grew the young generation (${grown} bytes)`);
  const startedAt = performance.now();
  const { reducer, collectedAt, collections } = watched(200);
  try {
    await collections(1);
    assert.equal(collectedAt.length, 1, "one collection in the quiet spell");
    assert.ok(collectedAt[0] - startedAt >= 200, "not before the quiet spell was over");
    const after = youngGenerationBytes();
    assert.ok(after < 2e6, `young generation ${grown} → ${after} bytes`);
  } finally {
    reducer.stop();
  }
});

Deno.test("memory reducer: requests restart the wait; one collection per quiet spell", async () => {
  const IDLE = 300;
  const { reducer, collectedAt, collections } = watched(IDLE);
  try {
    // A busy spell three waits long, a request every 50 ms: a reducer that ignored requests would collect
    // during it (at the start's wait); this one only once it ended.
    const busyUntil = performance.now() + 3 * IDLE;
    let lastRequest = 0;
    while (performance.now() < busyUntil) {
      lastRequest = performance.now();
      reducer.activity();
      await pause(50);
    }
    await collections(1);
    assert.ok(
      collectedAt[0] >= lastRequest + IDLE,
      `collected ${
        Math.round(lastRequest + IDLE - collectedAt[0])
      } ms before the last request's quiet spell ended`,
    );

    // No request: a window of three waits after the collection brings no second one.
    const windowEnds = collectedAt[0] + 3 * IDLE;
    await waitFor(() => performance.now() >= windowEnds, BOUND_MS, "the quiet window");
    assert.equal(collectedAt.length, 1, "no second collection without a request in between");

    // The next request starts the next quiet spell, which gets its own collection.
    const nextRequest = performance.now();
    reducer.activity();
    await collections(2);
    assert.ok(collectedAt[1] >= nextRequest + IDLE, "the second collection ends the next quiet spell");
  } finally {
    reducer.stop();
  }
});

Deno.test("memory reducer: stopped, it collects nothing", async () => {
  const collectedAt: number[] = [];
  const startedAt = performance.now();
  startMemoryReducer(100, () => collectedAt.push(performance.now())).stop();
  // A window of four waits: a late timer only widens it.
  await waitFor(() => performance.now() >= startedAt + 400, BOUND_MS, "the window");
  assert.deepEqual(collectedAt, []);
});
