/**
 * The run sheet's derivation (docs/runs.md "What a stop is") through `GET /tablet/api/run-sheet`, on both
 * databases: the stops come from the parts' statuses, claims without a repairer are listed under Needs HQ,
 * work moved by anyone while the sheet is open reads as done on the next read, a stop whose every claim is
 * done stays on the day's sheet, and a driver sees their own stops first in HQ's order, then the unassigned
 * ones, never another driver's.
 */
import assert from "node:assert/strict";
import type { RunSheetAnswer, RunSheetStop } from "@/components/run_sheet.ts";
import type { PartStatus } from "@/db/schema.ts";
import { changeStatusByDispatcher } from "@/lib/part_status.ts";
import { assignStop } from "@/lib/run_plan.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeHq, makeRepairer, makeUser } from "@/testkit/factories.ts";
import { confirmed, dropOffPayload, pickUpPayload, stageFor } from "@/testkit/movements.ts";
import { within } from "@/tests/helpers/races.ts";
import { IDLE_TIMEOUT_MS } from "@/lib/sessions.ts";
import { makeDriver, Tablet } from "@/tests/helpers/tablet.ts";

const ARRIVED: PartStatus = "Arrived";
const FLAGGED: PartStatus = "Pending Repair Shop Pick-Up";

async function signedInTablet(a: TestApp, role: "driver" | "admin" = "driver") {
  const user = await makeDriver(a, { role });
  const tablet = new Tablet(a);
  await tablet.signIn(user);
  return { user, tablet };
}

async function sheetOf(tablet: Tablet): Promise<RunSheetAnswer> {
  const res = await tablet.request("/tablet/api/run-sheet");
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  assert.equal(res.headers.get("cache-control"), "no-store");
  return await res.json();
}

const stopNamed = (sheet: RunSheetAnswer, name: string): RunSheetStop | undefined =>
  sheet.stops.find((s) => s.name === name);

/** Delivers every part of the claim through the handler, as `user` (a movement: history `Arrived` → …). */
async function deliver(
  a: TestApp,
  user: { id: number; email: string },
  shop: { id: number; name: string },
  claim: { registration: string },
  parts: { id: number; claim_id: number }[],
) {
  const images = await stageFor(a, parts, "direct_dropoff", user.id);
  const answer = await a.call(
    dropOffPayload(
      user.email,
      claim.registration,
      shop,
      confirmed(parts.map((p, i) => ({ part: p.id, image: images[i] }))),
    ),
  );
  assert.equal(answer.result.status, "success", String(answer.result.text));
}

appTest("run sheet: the JSON of a stop, its claims to deliver and collect, trips on the truck", async (a) => {
  await makeHq(a.db);
  const shop = await makeRepairer(a.db, "Southside Collision");
  await a.db.updateTable("repairers").set({
    phone: "(02) 9123 4567",
    latitude: -33.9,
    longitude: 151.2,
    opening_hours: JSON.stringify({ sat: [{ open: "07:30", close: "17:00" }] }),
  }).where("id", "=", shop.id).execute();
  const { claim: d } = await makeClaim(a.db, {
    registration: "DLV111",
    claimNumber: "CLM-D",
    management: shop.id,
    parts: [{ status: ARRIVED }, { status: ARRIVED }, { status: "Ordered" }],
  });
  const { claim: c, parts: cParts } = await makeClaim(a.db, {
    registration: "COL222",
    claimNumber: "CLM-C",
    management: shop.id,
    parts: [{ status: FLAGGED }],
  });
  // Nothing to do at this shop: not a stop.
  const idle = await makeRepairer(a.db, "Idle Panels");
  await makeClaim(a.db, { management: idle.id, parts: [{ status: "Delivered to Repair Shop directly" }] });

  const { user, tablet } = await signedInTablet(a);
  // A return trip on the road: the driver picked up the flagged part.
  const images = await stageFor(a, cParts, "reverse_pickup", user.id);
  const picked = await a.call(
    pickUpPayload(user.email, c.registration, confirmed([{ part: cParts[0].id, image: images[0] }])),
  );
  assert.equal(picked.result.status, "success", String(picked.result.text));
  const movementId = Number(picked.result.data!.parts_movement_id);

  // 2026-11-21T09:00Z is a Saturday: the shop is open at 09:00 UTC.
  const sheet = await sheetOf(tablet);
  assert.equal(sheet.date, "2026-11-21");
  assert.equal(sheet.asOf, a.clock.now().toISOString());
  assert.deepEqual(sheet.stops, [{
    repairerId: shop.id,
    name: "Southside Collision",
    address: "1 Test St",
    phone: "(02) 9123 4567",
    phoneHref: "tel:0291234567",
    hours: "Sat 07:30–17:00",
    openNow: true,
    latitude: -33.9,
    longitude: 151.2,
    assignedTo: null,
    mine: false,
    deliver: [{ claimNumber: "CLM-D", rego: d.registration, parts: 2, done: false }],
    // Picked up this morning by this driver: done, one part.
    collect: [{ claimNumber: "CLM-C", rego: c.registration, parts: 1, done: true }],
    done: 1,
    total: 2,
  }]);
  assert.deepEqual(sheet.onTruck, [{
    claimNumber: "CLM-C",
    rego: "COL222",
    parts: 1,
    movementId,
    from: "Southside Collision",
    mine: true,
  }]);
  assert.deepEqual(sheet.needsHq, []);
});

appTest("run sheet: claims with ready parts and no repairer are listed under Needs HQ", async (a) => {
  const shop = await makeRepairer(a.db);
  await makeClaim(a.db, {
    registration: "NOREC1",
    claimNumber: "CLM-N1",
    management: false,
    parts: [{ status: ARRIVED }],
  });
  await makeClaim(a.db, {
    registration: "NOSHOP",
    claimNumber: "CLM-N2",
    management: null,
    parts: [{ status: FLAGGED }, { status: FLAGGED }],
  });
  await makeClaim(a.db, { claimNumber: "CLM-S", management: shop.id, parts: [{ status: ARRIVED }] });
  const { tablet } = await signedInTablet(a);
  const sheet = await sheetOf(tablet);
  assert.deepEqual(
    sheet.needsHq.toSorted((x, y) => x.claimNumber.localeCompare(y.claimNumber)),
    [
      { claimNumber: "CLM-N1", rego: "NOREC1", parts: 1, job: "deliver" },
      { claimNumber: "CLM-N2", rego: "NOSHOP", parts: 2, job: "collect" },
    ],
  );
  assert.deepEqual(sheet.stops.map((s) => s.repairerId), [shop.id]);
  assert.deepEqual(sheet.stops[0].deliver.map((l) => l.claimNumber), ["CLM-S"]);
});

appTest("run sheet: work moved while the sheet is open reads as done on the next read", async (a) => {
  await makeHq(a.db);
  const shop = await makeRepairer(a.db, "Raced Motors");
  const one = await makeClaim(a.db, {
    claimNumber: "CLM-1",
    management: shop.id,
    parts: [{ status: ARRIVED }],
  });
  const two = await makeClaim(a.db, {
    claimNumber: "CLM-2",
    management: shop.id,
    parts: [{ status: ARRIVED }, { status: ARRIVED }],
  });
  const { tablet } = await signedInTablet(a);
  const before = stopNamed(await sheetOf(tablet), "Raced Motors")!;
  assert.deepEqual(before.deliver.map((l) => [l.claimNumber, l.parts, l.done]), [
    ["CLM-1", 1, false],
    ["CLM-2", 2, false],
  ]);
  assert.deepEqual([before.done, before.total], [0, 2]);

  // Between two reads: another driver delivers CLM-1, a dispatcher sends one of CLM-2's parts back.
  const other = await makeUser(a.db, { role: "driver" });
  a.clock.advance(60_000);
  await deliver(a, other, shop, one.claim, one.parts);
  const dispatcher = await makeUser(a.db, { role: "dispatcher" });
  await changeStatusByDispatcher(a.db, a.clock, {
    partId: two.parts[0].id,
    from: ARRIVED,
    to: "Ordered",
    reason: "Wrong part",
    userId: dispatcher.id,
  });

  const after = stopNamed(await sheetOf(tablet), "Raced Motors")!;
  assert.deepEqual(after.deliver.map((l) => [l.claimNumber, l.parts, l.done]), [
    ["CLM-1", 1, true],
    // One part left to deliver.
    ["CLM-2", 1, false],
  ]);
  assert.deepEqual([after.done, after.total], [1, 2]);
});

appTest("run sheet: a stop whose every claim is done stays on the day's sheet, done = total", async (a) => {
  await makeHq(a.db);
  const shop = await makeRepairer(a.db, "Finished Smash");
  const driverless = await makeUser(a.db, { role: "driver" });
  const { claim, parts } = await makeClaim(a.db, {
    claimNumber: "CLM-F",
    management: shop.id,
    parts: [{ status: ARRIVED }, { status: ARRIVED }],
  });
  const { tablet } = await signedInTablet(a);
  await deliver(a, driverless, shop, claim, parts);
  const stop = stopNamed(await sheetOf(tablet), "Finished Smash")!;
  assert.deepEqual(stop.deliver, [{ claimNumber: "CLM-F", rego: claim.registration, parts: 2, done: true }]);
  assert.deepEqual([stop.done, stop.total], [1, 1]);
  // The next day (depot clock) it is history: not a stop any more.
  a.clock.advance(24 * 3600_000);
  const { tablet: tomorrow } = await signedInTablet(a);
  assert.equal(stopNamed(await sheetOf(tomorrow), "Finished Smash"), undefined);
});

appTest(
  "run sheet: a driver sees their own stops first in HQ's order, then the unassigned, not others'",
  async (a) => {
    const shops = {
      a: await makeRepairer(a.db, "A Panels"),
      b: await makeRepairer(a.db, "B Smash"),
      c: await makeRepairer(a.db, "C Collision"),
      d: await makeRepairer(a.db, "D Duco"),
      e: await makeRepairer(a.db, "E Autos"),
    };
    for (const shop of Object.values(shops)) {
      await makeClaim(a.db, { management: shop.id, parts: [{ status: ARRIVED }] });
    }
    const { user: me, tablet } = await signedInTablet(a);
    const other = await makeUser(a.db, { role: "driver", name: "Other Driver" });
    const dispatcher = await makeUser(a.db, { role: "dispatcher" });
    const plan = [
      { shop: shops.c, driver: me.id, position: 1 },
      { shop: shops.a, driver: me.id, position: 2 },
      { shop: shops.b, driver: other.id, position: 1 },
    ];
    await a.db.insertInto("run_stops").values(plan.map((p) => ({
      run_date: "2026-11-21",
      repairer_id: p.shop.id,
      driver_id: p.driver,
      position: p.position,
      updated_by: dispatcher.id,
      updated_at: a.clock.now(),
    }))).execute();
    // A plan of another day changes nothing today.
    await a.db.insertInto("run_stops").values({
      run_date: "2026-11-22",
      repairer_id: shops.e.id,
      driver_id: other.id,
      position: 1,
      updated_by: dispatcher.id,
      updated_at: a.clock.now(),
    }).execute();

    const sheet = await sheetOf(tablet);
    assert.deepEqual(
      sheet.stops.map((s) => [s.name, s.mine, s.assignedTo?.name ?? null]),
      [
        ["C Collision", true, me.name],
        ["A Panels", true, me.name],
        ["D Duco", false, null],
        ["E Autos", false, null],
      ],
    );
    // The other driver's own first, then the same unassigned ones.
    const otherTablet = new Tablet(a);
    await a.db.updateTable("users").set({ pin_hash: me.pin_hash }).where("id", "=", other.id).execute();
    await otherTablet.signIn(other);
    assert.deepEqual((await sheetOf(otherTablet)).stops.map((s) => s.name), ["B Smash", "D Duco", "E Autos"]);
    // An admin on a tablet sees like a driver: nothing of theirs, the unassigned ones.
    const { tablet: adminTablet } = await signedInTablet(a, "admin");
    assert.deepEqual((await sheetOf(adminTablet)).stops.map((s) => s.name), ["D Duco", "E Autos"]);
  },
);

appTest(
  "run sheet: signed out, the sheet is not answered (to the sign-in page, like every tablet GET)",
  async (a) => {
    await makeClaim(a.db, { registration: "SECRET1", parts: [{ status: ARRIVED }] });
    const tablet = new Tablet(a);
    const res = await tablet.request("/tablet/api/run-sheet");
    assert.equal(res.status, 303);
    assert.match(res.headers.get("location") ?? "", /^\/tablet\/sign-in/);
    assert.doesNotMatch(await res.text(), /SECRET1/);
  },
);

/** The next `change` event's topic on a server-sent events body (others skipped). */
async function nextChange(reader: ReadableStreamDefaultReader<string>, buffer: { text: string }) {
  while (true) {
    const end = buffer.text.indexOf("\n\n");
    if (end >= 0) {
      const block = buffer.text.slice(0, end);
      buffer.text = buffer.text.slice(end + 2);
      const field = (name: string) =>
        block.split("\n").find((l) => l.startsWith(`${name}:`))?.slice(name.length + 1).trim();
      if (field("event") === "change") return field("data");
      continue;
    }
    const { value, done } = await reader.read();
    if (done) throw new Error("the stream ended");
    buffer.text += value;
  }
}

appTest("run sheet: a tablet listening on /tablet/api/live hears HQ's plan change (runs)", async (a) => {
  const shop = await makeRepairer(a.db);
  await makeClaim(a.db, { management: shop.id, parts: [{ status: ARRIVED }] });
  const { user, tablet } = await signedInTablet(a);
  const res = await tablet.request("/tablet/api/live");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const buffer = { text: "" };
  try {
    // Listening once `ready` came: read up to it.
    while (!buffer.text.includes("event: ready")) buffer.text += (await reader.read()).value ?? "";
    buffer.text = "";
    const dispatcher = await makeUser(a.db, { role: "dispatcher" });
    await assignStop(a, dispatcher.id, {
      date: "2026-11-21",
      repairerId: shop.id,
      driverId: user.id,
      seenDriverId: null,
    });
    assert.equal(await within(nextChange(reader, buffer), 5000, "the runs change"), "runs");
  } finally {
    await reader.cancel();
  }
});

appTest(
  "run sheet: the tablet's own refresh (X-HQ-Live) does not keep an idle tablet signed in",
  async (a) => {
    const tablet = new Tablet(a);
    await tablet.signIn(await makeDriver(a));
    // The refreshes the home makes by itself every 30 s (islands/_tablet_net.ts getJson marks them passive).
    for (let minute = 1; minute <= 9; minute++) {
      a.clock.advance(60_000);
      const res = await tablet.request("/tablet/api/run-sheet", { headers: { "x-hq-live": "1" } });
      assert.equal(res.status, 200, `minute ${minute}`);
      await res.body?.cancel();
    }
    a.clock.advance(IDLE_TIMEOUT_MS - 9 * 60_000);
    const after = await tablet.request("/tablet/api/run-sheet", { headers: { "x-hq-live": "1" } });
    assert.equal(after.status, 303, "signed out after 10 idle minutes, refreshes notwithstanding");
    await after.body?.cancel();
  },
);
