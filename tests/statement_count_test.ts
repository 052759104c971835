/**
 * A submission's cost does not grow with its parts: the same number of database round trips for 1, 10 or
 * 50 parts (set-based writes, no per-part query loop), and a bounded number of them.
 *
 * Round trips (each statement, BEGIN and COMMIT/ROLLBACK: Kysely sends them as statements of their own and
 * neither pg nor PGlite pipelines them) are counted by testkit/round_trips.ts, the counter the bench
 * uses too; the handler runs over it end to end (the session check included).
 *
 * A reverse pickup or leg 2 is BEGIN, one lock-and-read statement, one write statement, COMMIT. A drop-off
 * tries its optimistic path first: the read without locks, then the write statement on its own (all or
 * nothing); a retry (D16) or a refusal is answered from that read alone (lib/movements/submission.ts).
 * When the write finds a part moved meanwhile, it runs the locked path (tests/movement_races_test.ts).
 */
import assert from "node:assert/strict";
import { buildTestApp, type TestApp } from "@/testkit/app.ts";
import { dbTest } from "@/testkit/db.ts";
import { confirmed, dropOffPayload, flowSetup } from "@/testkit/movements.ts";
import { COUNTED_SUBMISSIONS, countingDb } from "@/testkit/round_trips.ts";

const SIZES = [1, 10, 50];

/**
 * Runs the submission for each size on a fresh app whose database counts round trips; asserts exactly
 * `expected` for every size.
 */
function countTest(
  name: string,
  expected: number,
  submit: (a: TestApp, size: number) => Promise<() => Promise<void>>,
) {
  dbTest(name, async (t) => {
    const counts: number[] = [];
    for (const size of SIZES) {
      const { db, counter } = countingDb(t.db);
      const a = await buildTestApp({ ...t, db });
      try {
        const run = await submit(a, size);
        counter.count = 0;
        await run();
        counts.push(counter.count);
      } finally {
        await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
      }
    }
    console.log(`${name}: round trips for ${SIZES.join("/")} parts = ${counts.join("/")}`);
    assert.deepEqual(counts, SIZES.map(() => expected));
  });
}

async function expectSuccess(a: TestApp, payload: unknown) {
  const body = await a.call(payload);
  assert.equal(body.result.status, "success", JSON.stringify(body));
  return body;
}

/** Round trips of each counted submission's success. */
const EXPECTED: Record<string, number> = { "drop-off": 2, "reverse pickup": 4, "leg 2": 4 };

for (const { name, prepare } of COUNTED_SUBMISSIONS) {
  countTest(`${name}: the same round trips for 1, 10 and 50 parts`, EXPECTED[name], async (a, size) => {
    const submit = await prepare(a, size);
    return async () => {
      const body = await submit();
      assert.equal(body.result.status, "success", JSON.stringify(body));
    };
  });
}

countTest("parts_drop_off: a retry (D16) costs the same for 1, 10 and 50 parts", 1, async (a, size) => {
  const s = await flowSetup(a, { count: size, status: "Arrived", stage: "direct_dropoff" });
  const payload = dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs));
  await expectSuccess(a, payload);
  return async () => {
    await expectSuccess(a, payload);
  };
});

countTest(
  "parts_drop_off: a refusal at the last part costs the same for 1, 10 and 50 parts",
  1,
  async (a, size) => {
    const s = await flowSetup(a, { count: size, status: "Arrived", stage: "direct_dropoff" });
    await a.db.updateTable("parts_orders").set({ status: "Ordered" }).where("id", "=", s.parts[size - 1].id)
      .execute();
    return async () => {
      const body = await a.call(
        dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)),
      );
      assert.equal(body.result.text, `${s.parts[size - 1].part_no} is no longer available for delivery.`);
    };
  },
);
