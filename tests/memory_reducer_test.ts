/**
 * io/memory_reducer.ts: after a quiet spell the process gives its young generation back; a request restarts
 * the wait; one collection per quiet spell. Real timers with wide margins (hundreds of milliseconds), so a
 * loaded CI machine's late timers cannot turn one outcome into the other.
 */
import assert from "node:assert/strict";
import v8 from "node:v8";
import { startMemoryReducer } from "@/io/memory_reducer.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
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

Deno.test("memory reducer: after a quiet spell the young generation is back to its smallest", async () => {
  growYoungGeneration(8e6);
  const grown = youngGenerationBytes();
  assert.ok(grown > 8e6, `the load grew the young generation (${grown} bytes)`);
  const took: number[] = [];
  const reducer = startMemoryReducer(200, (ms) => took.push(ms));
  try {
    await sleep(700);
    assert.equal(took.length, 1, "one collection in the quiet spell");
    const after = youngGenerationBytes();
    assert.ok(after < 2e6, `young generation ${grown} → ${after} bytes`);
  } finally {
    reducer.stop();
  }
});

Deno.test("memory reducer: a request restarts the wait; one collection per quiet spell", async () => {
  const took: number[] = [];
  const reducer = startMemoryReducer(500, (ms) => took.push(ms));
  try {
    await sleep(250);
    reducer.activity(); // the quiet spell now ends 500 ms from here, not from the start
    await sleep(350); // 600 ms after the start, 350 after the request
    assert.equal(took.length, 0, "no collection while the wait restarted by the request runs");
    await sleep(900);
    assert.equal(took.length, 1, "one collection once the service has been quiet for the whole wait");
    await sleep(700);
    assert.equal(took.length, 1, "no second collection without a request in between");
    reducer.activity();
    await sleep(900);
    assert.equal(took.length, 2, "the next quiet spell after a request gets its own");
  } finally {
    reducer.stop();
  }
});

Deno.test("memory reducer: stopped, it collects nothing", async () => {
  const took: number[] = [];
  startMemoryReducer(100, (ms) => took.push(ms)).stop();
  await sleep(400);
  assert.equal(took.length, 0);
});
