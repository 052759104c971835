import assert from "node:assert/strict";
import { ConcurrencyCap } from "@/io/concurrency_cap.ts";

/** A piece of work that runs until `finish()` is called; `started` says whether the cap let it begin. */
function held() {
  let finish!: () => void;
  const done = new Promise<void>((ok) => finish = ok);
  const work = { started: false, finish, run: () => (work.started = true, done) };
  return work;
}

/** Lets queued promise callbacks run (a turn is handed on through them). */
const settle = () => new Promise((ok) => setTimeout(ok, 0));

Deno.test("concurrency cap: at most `limit` run at once; the rest start in arrival order", async () => {
  const cap = new ConcurrencyCap(2);
  const works = Array.from({ length: 5 }, held);
  const runs = works.map((w) => cap.run(w.run));
  await settle();
  assert.deepEqual(works.map((w) => w.started), [true, true, false, false, false]);
  assert.deepEqual([cap.running, cap.waiting], [2, 3]);
  works[1].finish();
  await settle();
  assert.deepEqual(works.map((w) => w.started), [true, true, true, false, false]);
  works[0].finish();
  works[2].finish();
  await settle();
  assert.deepEqual(works.map((w) => w.started), [true, true, true, true, true]);
  works[3].finish();
  works[4].finish();
  await Promise.all(runs);
  assert.deepEqual([cap.running, cap.waiting], [0, 0]);
});

Deno.test("concurrency cap: a waiter whose signal aborts never runs and gives its place to the next", async () => {
  const cap = new ConcurrencyCap(1);
  const [first, leaving, next] = [held(), held(), held()];
  const firstRun = cap.run(first.run);
  const gone = new AbortController();
  const leavingRun = cap.run(leaving.run, gone.signal);
  const nextRun = cap.run(next.run);
  gone.abort(new Error("client gone"));
  await assert.rejects(leavingRun, /client gone/);
  assert.equal(cap.waiting, 1);
  first.finish();
  await settle();
  assert.deepEqual([leaving.started, next.started], [false, true]);
  next.finish();
  await Promise.all([firstRun, nextRun]);
  await assert.rejects(cap.run(held().run, AbortSignal.abort(new Error("already gone"))), /already gone/);
  assert.deepEqual([cap.running, cap.waiting], [0, 0]);
});

Deno.test("concurrency cap: work that throws frees its turn", async () => {
  const cap = new ConcurrencyCap(1);
  await assert.rejects(cap.run(() => Promise.reject(new Error("broken photo"))), /broken photo/);
  assert.equal(await cap.run(() => Promise.resolve("next")), "next");
  assert.deepEqual([cap.running, cap.waiting], [0, 0]);
});
