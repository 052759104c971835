/**
 * Two dispatchers planning the same day at once, on the PostgreSQL server through `/hq/runs`'s own HTTP
 * routes (docs/runs.md "Two dispatchers at once"), each side started after a random delay until both
 * outcomes were seen (tests/helpers/races.ts). Whatever the interleaving, a driver's places stay 1..n, each
 * once, and every write that answered 303 is in the plan and audited once; a refused one wrote nothing.
 */
import assert from "node:assert/strict";
import { serverAppTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeRepairer, makeUser } from "@/testkit/factories.ts";
import { type HqClient, signedIn } from "@/tests/helpers/hq.ts";
import { jittered, raceUntilBothWin } from "@/tests/helpers/races.ts";

const TODAY = "2026-11-21";

async function shopWithWork(a: TestApp) {
  const shop = await makeRepairer(a.db);
  await makeClaim(a.db, { management: shop.id, parts: [{ status: "Arrived" }] });
  return shop;
}

/** A driver's stops as [repairer, place], by place. */
async function runOf(a: TestApp, driverId: number) {
  return (await a.db.selectFrom("run_stops").select(["repairer_id", "position"])
    .where("run_date", "=", TODAY).where("driver_id", "=", driverId).orderBy("position").execute())
    .map((r) => [r.repairer_id, r.position] as const);
}

/** Places 1..n, each once. */
function assertPlaces(run: readonly (readonly [number, number | null])[]) {
  assert.deepEqual(run.map(([, p]) => p), run.map((_, i) => i + 1), `places: ${JSON.stringify(run)}`);
}

const form = (f: Record<string, string | number>) =>
  Object.fromEntries(Object.entries(f).map(([k, v]) => [k, String(v)]));

const assign = (hq: HqClient, shopId: number, driverId: number, seen: number | "" = "") =>
  hq.post(
    "/hq/runs/assign",
    form({ date: TODAY, repairer_id: shopId, driver_id: driverId, seen_driver_id: seen }),
  );

serverAppTest(
  "run plan races: two dispatchers give two stops to the same driver at once: both land, places 1 and 2",
  async (a) => {
    const [one, two] = [await signedIn(a, "dispatcher"), await signedIn(a, "dispatcher")];
    await raceUntilBothWin(["one", "two"], async () => {
      // A fresh driver each round: their first two stops, the case no row lock can order.
      const driver = await makeUser(a.db, { role: "driver" });
      const [s1, s2] = [await shopWithWork(a), await shopWithWork(a)];
      const [r1, r2] = await Promise.all([
        jittered(() => assign(one, s1.id, driver.id)),
        jittered(() => assign(two, s2.id, driver.id)),
      ]);
      assert.deepEqual([r1.status, r2.status], [303, 303]);
      const run = await runOf(a, driver.id);
      assertPlaces(run);
      assert.deepEqual(run.map(([id]) => id).toSorted(), [s1.id, s2.id].toSorted());
      return run[0][0] === s1.id ? "one" : "two";
    });
  },
  { poolSize: 6 },
);

serverAppTest(
  "run plan races: two dispatchers give the same stop to two drivers: one wins, the other is told (409)",
  async (a) => {
    const [one, two] = [await signedIn(a, "dispatcher"), await signedIn(a, "dispatcher")];
    const [dana, ezra] = [await makeUser(a.db, { role: "driver" }), await makeUser(a.db, { role: "driver" })];
    await raceUntilBothWin(["one", "two"], async () => {
      const shop = await shopWithWork(a);
      const [r1, r2] = await Promise.all([
        jittered(() => assign(one, shop.id, dana.id)),
        jittered(() => assign(two, shop.id, ezra.id)),
      ]);
      const row = await a.db.selectFrom("run_stops").select("driver_id")
        .where("run_date", "=", TODAY).where("repairer_id", "=", shop.id).executeTakeFirstOrThrow();
      const audits = await a.db.selectFrom("audit_log").select("actor_id")
        .where("action", "=", "run.assign").where("subject", "=", `repairer:${shop.id}`).execute();
      assert.equal(audits.length, 1, "one assignment audited");
      assertPlaces(await runOf(a, dana.id));
      assertPlaces(await runOf(a, ezra.id));
      if (row.driver_id === dana.id) {
        assert.deepEqual([r1.status, r2.status], [303, 409]);
        assert.equal(audits[0].actor_id, one.user.id);
        return "one";
      }
      assert.equal(row.driver_id, ezra.id);
      assert.deepEqual([r1.status, r2.status], [409, 303]);
      return "two";
    });
  },
  { poolSize: 6 },
);

serverAppTest(
  "run plan races: moves and an unassignment in one run at once: places stay 1..n, a stale move writes nothing",
  async (a) => {
    const [one, two] = [await signedIn(a, "dispatcher"), await signedIn(a, "dispatcher")];
    await raceUntilBothWin(["move", "unassign"], async () => {
      const driver = await makeUser(a.db, { role: "driver" });
      const shops = [await shopWithWork(a), await shopWithWork(a), await shopWithWork(a)];
      for (const s of shops) assert.equal((await assign(one, s.id, driver.id)).status, 303);
      // One moves the last stop up (from place 3) while the other takes the first stop away (the last
      // stop then sits at place 2: a move made after it is stale).
      const [moved, unassigned] = await Promise.all([
        jittered(() =>
          one.post(
            "/hq/runs/move",
            form({
              date: TODAY,
              repairer_id: shops[2].id,
              direction: "up",
              seen_driver_id: driver.id,
              seen_position: 3,
            }),
          )
        ),
        jittered(() =>
          two.post(
            "/hq/runs/assign",
            form({ date: TODAY, repairer_id: shops[0].id, driver_id: "", seen_driver_id: driver.id }),
          )
        ),
      ]);
      assert.equal(unassigned.status, 303);
      const run = await runOf(a, driver.id);
      assertPlaces(run);
      if (moved.status === 303) {
        // The move came first: [0, 2, 1], then 0 left.
        assert.deepEqual(run.map(([id]) => id), [shops[2].id, shops[1].id]);
        return "move";
      }
      assert.equal(moved.status, 409);
      assert.deepEqual(run.map(([id]) => id), [shops[1].id, shops[2].id]);
      return "unassign";
    });
  },
  { poolSize: 6 },
);
