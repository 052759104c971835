/**
 * `/hq/runs` (docs/runs.md "Planning"), on both databases: a dispatcher assigns stops and orders a run with
 * plain forms, each write audited and announced on the change feed (`runs`); the driver's sheet follows the
 * plan; "Suggest an order" orders a run by distance from the depot; refusals answer by kind (422 with the
 * page, 409 when the plan changed meanwhile, 400 for a bad date in the address).
 */
import assert from "node:assert/strict";
import type { RunSheetAnswer } from "@/components/run_sheet.ts";
import type { ChangeTopic } from "@/db/queries/changes.ts";
import { subscribeChanges } from "@/lib/live/feed.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeHq, makeRepairer, makeUser } from "@/testkit/factories.ts";
import { type HqClient, pageText, signedIn } from "@/tests/helpers/hq.ts";
import { within } from "@/tests/helpers/races.ts";
import { makeDriver, Tablet } from "@/tests/helpers/tablet.ts";

const TODAY = "2026-11-21"; // the fake clock's date (UTC depot)

/** A shop with one claim to deliver, at `at` when given. */
async function shopWithWork(a: TestApp, name: string, at?: [number, number]) {
  const shop = await makeRepairer(a.db, name);
  if (at) {
    await a.db.updateTable("repairers").set({ latitude: at[0], longitude: at[1] }).where("id", "=", shop.id)
      .execute();
  }
  await makeClaim(a.db, { management: shop.id, parts: [{ status: "Arrived" }] });
  return shop;
}

async function plan(a: TestApp, driverId: number) {
  return (await a.db.selectFrom("run_stops").select(["repairer_id", "position"])
    .where("run_date", "=", TODAY).where("driver_id", "=", driverId).orderBy("position").execute())
    .map((r) => [r.repairer_id, r.position]);
}

const assign = (hq: HqClient, shopId: number, driverId: number | "", seen: number | "" = "") =>
  hq.post("/hq/runs/assign", {
    date: TODAY,
    repairer_id: String(shopId),
    driver_id: String(driverId),
    seen_driver_id: String(seen),
  });

const move = (hq: HqClient, shopId: number, direction: string, driverId: number, position: number) =>
  hq.post("/hq/runs/move", {
    date: TODAY,
    repairer_id: String(shopId),
    direction,
    seen_driver_id: String(driverId),
    seen_position: String(position),
  });

function assertRedirect(res: Response, to: RegExp) {
  assert.equal(res.status, 303);
  assert.match(res.headers.get("location") ?? "", to);
}

appTest("hq runs: a dispatcher assigns two stops and orders them; the driver's sheet follows", async (a) => {
  const north = await shopWithWork(a, "North Panels");
  const south = await shopWithWork(a, "South Smash");
  const hq = await signedIn(a, "dispatcher");
  const driver = await makeDriver(a, { name: "Dana" });

  const before = await pageText(await hq.get("/hq/runs"));
  assert.match(before, /Runs/);
  assert.match(before, /Unassigned \(2\)/);
  assert.match(before, /North Panels 1 Test St .*0 of 1 done/);

  assertRedirect(await assign(hq, north.id, driver.id), /^\/hq\/runs\?date=2026-11-21&done=assign#stop-/);
  assertRedirect(await assign(hq, south.id, driver.id), /done=assign/);
  assert.deepEqual(await plan(a, driver.id), [[north.id, 1], [south.id, 2]]);
  assertRedirect(await move(hq, south.id, "up", driver.id, 2), /done=move/);
  assert.deepEqual(await plan(a, driver.id), [[south.id, 1], [north.id, 2]]);

  const page = await pageText(await hq.get("/hq/runs?date=2026-11-21&done=move"));
  assert.match(page, /Run reordered\./);
  assert.match(page, /Dana's run \(2\) Suggest an order.* 1\. South Smash .* 2\. North Panels/);

  const tablet = new Tablet(a);
  await tablet.signIn(driver);
  const sheet: RunSheetAnswer = await (await tablet.request("/tablet/api/run-sheet")).json();
  assert.deepEqual(sheet.stops.map((s) => [s.name, s.mine]), [["South Smash", true], ["North Panels", true]]);

  // Back to unassigned: the driver's other stop closes the gap.
  assertRedirect(await assign(hq, south.id, "", driver.id), /done=assign/);
  assert.deepEqual(await plan(a, driver.id), [[north.id, 1]]);

  const audit = await a.db.selectFrom("audit_log").select(["action", "subject", "actor_id", "after"])
    .where("action", "in", ["run.assign", "run.move", "run.suggest"]).orderBy("id").execute();
  assert.deepEqual(audit.map((e) => [e.action, e.subject, e.actor_id]), [
    ["run.assign", `repairer:${north.id}`, hq.user.id],
    ["run.assign", `repairer:${south.id}`, hq.user.id],
    ["run.move", `repairer:${south.id}`, hq.user.id],
    ["run.assign", `repairer:${south.id}`, hq.user.id],
  ]);
  assert.deepEqual(audit[0].after, { date: TODAY, driver_id: driver.id, driver: "Dana", position: 1 });
});

appTest(
  "hq runs: Suggest an order orders a run from the depot, stops without coordinates last",
  async (a) => {
    const hqLocation = await makeHq(a.db, "Depot");
    await a.db.updateTable("hq_locations").set({ latitude: -33.80, longitude: 151.00 })
      .where("id", "=", hqLocation.id).execute();
    // East of the depot along one line: the shortest round trip visits them in distance order.
    const far = await shopWithWork(a, "Far", [-33.80, 151.30]);
    const near = await shopWithWork(a, "Near", [-33.80, 151.10]);
    const unknown = await shopWithWork(a, "Nowhere");
    const middle = await shopWithWork(a, "Middle", [-33.80, 151.20]);
    const hq = await signedIn(a, "dispatcher");
    const driver = await makeUser(a.db, { role: "driver" });
    for (const shop of [far, unknown, near, middle]) await assign(hq, shop.id, driver.id);

    const res = await hq.post("/hq/runs/suggest", { date: TODAY, driver_id: String(driver.id) });
    assertRedirect(res, /done=suggest#run-/);
    assert.deepEqual(await plan(a, driver.id), [[near.id, 1], [middle.id, 2], [far.id, 3], [unknown.id, 4]]);
    const [entry] = await a.db.selectFrom("audit_log").select(["after"]).where("action", "=", "run.suggest")
      .execute();
    assert.deepEqual(entry.after, {
      date: TODAY,
      depot: "Depot",
      repairer_ids: [near.id, middle.id, far.id, unknown.id],
    });
  },
);

appTest("hq runs: refusals by kind: the page again with the message, 409 when the plan moved", async (a) => {
  const shop = await shopWithWork(a, "Busy Body");
  const hq = await signedIn(a, "dispatcher");
  const driver = await makeUser(a.db, { role: "driver", name: "Dana" });
  const other = await makeUser(a.db, { role: "driver", name: "Ezra" });
  const gone = await makeUser(a.db, { role: "driver", active: false });

  // The form as zod reads it: the field named.
  let text = await pageText(await hq.post("/hq/runs/assign", { date: "2026-02-30", repairer_id: "1" }), 422);
  assert.match(text, /Invalid request: date must be a real date\./);
  text = await pageText(await hq.post("/hq/runs/move", { ...Object.fromEntries([]), date: TODAY }), 422);
  assert.match(text, /Invalid request: repairer_id/);
  // The use case's rules.
  assert.match(await pageText(await assign(hq, shop.id, gone.id), 422), /Choose an active driver\./);
  assert.match(await pageText(await assign(hq, 999_999, driver.id), 422), /Repair shop not found\./);
  text = await pageText(
    await hq.post("/hq/runs/assign", {
      date: "2026-11-20",
      repairer_id: String(shop.id),
      driver_id: String(driver.id),
      seen_driver_id: "",
    }),
    422,
  );
  assert.match(text, /2026-11-20 is over: its plan stays as it was\./);
  assert.match(
    await pageText(await hq.post("/hq/runs/suggest", { date: TODAY, driver_id: String(driver.id) }), 422),
    /No HQ location has coordinates/,
  );
  // What the dispatcher saw is no longer so: nothing written, the plan as it is now.
  assertRedirect(await assign(hq, shop.id, driver.id), /done=assign/);
  text = await pageText(await assign(hq, shop.id, other.id, ""), 409);
  assert.match(text, /Busy Body was reassigned while you were looking; nothing was changed\./);
  assert.match(text, /Dana's run \(1\)/);
  text = await pageText(await move(hq, shop.id, "down", driver.id, 2), 409);
  assert.match(text, /changed while you were looking/);
  assert.deepEqual(await plan(a, driver.id), [[shop.id, 1]]);
  assert.equal(
    (await a.db.selectFrom("audit_log").select("id").where("action", "in", [
      "run.assign",
      "run.move",
      "run.suggest",
    ]).execute()).length,
    1,
    "only the one write that happened is audited",
  );
  // A bad date in the address: 400, nothing read.
  assert.match(await pageText(await hq.get("/hq/runs?date=tomorrow"), 400), /Give the date as YYYY-MM-DD/);
  // A past day is shown, without forms.
  const past = await hq.get("/hq/runs?date=2026-11-20");
  const html = await past.text();
  assert.equal(past.status, 200);
  assert.match(html, /2026-11-20 is over/);
  assert.doesNotMatch(html, /action="\/hq\/runs\/assign"/);
});

appTest("hq runs: every plan write is announced on the change feed as runs", async (a) => {
  const shop = await shopWithWork(a, "Live Panels");
  const hq = await signedIn(a, "dispatcher");
  const driver = await makeUser(a.db, { role: "driver" });
  const heard: ChangeTopic[] = [];
  let wake = () => {};
  const stop = await subscribeChanges(a.db, (t) => {
    if (t !== "all" && t !== "closed") heard.push(t);
    wake();
  });
  try {
    assertRedirect(await assign(hq, shop.id, driver.id), /done=assign/);
    await within(
      (async () => {
        while (!heard.includes("runs")) await new Promise<void>((resolve) => wake = resolve);
      })(),
      5000,
      "the runs change",
    );
    // A page that lists the runs listens to the plan and to what changes a stop's progress.
    const html = await (await hq.get("/hq/runs")).text();
    assert.match(html, /data-live="runs movements parts"/);
  } finally {
    await stop();
  }
});
