import assert from "node:assert/strict";
import { appTest } from "@/testkit/app.ts";
import { makeClaim, makeRepairer } from "@/testkit/factories.ts";
import { pageText, signedIn } from "@/tests/helpers/hq.ts";
import { confirmed, flowSetup, pickUpPayload, statusOf } from "@/testkit/movements.ts";

appTest("hq parts: search by rego, claim number, status and repair shop, paginated", async (a) => {
  const d = await signedIn(a, "dispatcher");
  const north = await makeRepairer(a.db, "North Panels");
  await makeClaim(a.db, {
    registration: "ABC 123",
    claimNumber: "CLM-1001",
    management: north.id,
    parts: [{ status: "Arrived", part_no: "PN-A1" }, { status: "Ordered", part_no: "PN-A2" }],
  });
  await makeClaim(a.db, {
    registration: "XYZ-789",
    claimNumber: "CLM-2002",
    parts: [{ status: "Arrived", part_no: "PN-X1" }],
  });

  const all = await pageText(await d.get("/hq/parts"));
  for (const p of ["PN-A1", "PN-A2", "PN-X1"]) assert.match(all, new RegExp(p));
  const byRego = await pageText(await d.get("/hq/parts?rego=abc-1"));
  assert.match(byRego, /PN-A1/);
  assert.doesNotMatch(byRego, /PN-X1/);
  const byClaim = await pageText(await d.get("/hq/parts?claim=2002"));
  assert.match(byClaim, /PN-X1/);
  assert.doesNotMatch(byClaim, /PN-A1/);
  const byStatus = await pageText(await d.get("/hq/parts?status=Ordered"));
  assert.match(byStatus, /PN-A2/);
  assert.doesNotMatch(byStatus, /PN-A1|PN-X1/);
  const byShop = await pageText(await d.get(`/hq/parts?repairer=${north.id}`));
  assert.match(byShop, /PN-A1/);
  assert.doesNotMatch(byShop, /PN-X1/);
  const none = await pageText(await d.get("/hq/parts?rego=%25"));
  assert.match(none, /No parts match these filters\./, "% matches itself, not everything");
  const bad = await d.get("/hq/parts?status=Bogus&repairer=abc&page=-3");
  assert.equal(bad.status, 200, "unknown filter values are ignored");

  await makeClaim(a.db, {
    claimNumber: "CLM-MANY",
    parts: Array.from(
      { length: 30 },
      (_, i) => ({ status: "Arrived" as const, part_no: `PN-M${String(i).padStart(2, "0")}` }),
    ),
  });
  const html1 = await (await d.get("/hq/parts?claim=CLM-MANY")).text();
  assert.equal((html1.match(/>PN-M\d\d</g) ?? []).length, 25);
  const next = html1.match(/href="(\/hq\/parts\?claim=CLM-MANY&amp;after=[\w-]+)" rel="next"/)?.[1];
  assert.ok(next, "the Next link keeps the filter");
  const page2 = await pageText(await d.get(next.replaceAll("&amp;", "&")));
  assert.equal((page2.match(/PN-M\d\d/g) ?? []).length, 5);
  assert.match(page2, /Previous/);
  assert.doesNotMatch(page2, /Next/);
});

appTest(
  "hq parts: a part's page shows its history with who, via and reason, and the allowed changes",
  async (a) => {
    const d = await signedIn(a, "dispatcher");
    const { parts } = await makeClaim(a.db, {
      claimNumber: "CLM-H1",
      parts: [{ status: "Ordered", part_no: "PN-H1" }],
    });
    const part = parts[0];
    const page = await pageText(await d.get(`/hq/parts/${part.id}`));
    assert.match(page, /PN-H1/);
    assert.match(page, /Mark arrived at HQ/);
    assert.doesNotMatch(page, /Flag for pick-up/);

    const res = await d.post(`/hq/parts/${part.id}/status`, {
      from: "Ordered",
      to: "Arrived",
      reason: "Courier at 9",
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), `/hq/parts/${part.id}?done=Arrived`);
    const after = await pageText(await d.get(res.headers.get("location")!));
    assert.match(after, /Status changed to Arrived\./);
    assert.match(after, new RegExp(`Ordered Arrived ${d.user.name} Dashboard Courier at 9`));
    assert.match(after, /Flag for pick-up/);
    assert.match(after, /Correct: not arrived yet/);

    const noReason = await d.post(`/hq/parts/${part.id}/status`, {
      from: "Arrived",
      to: "Ordered",
      reason: "",
    });
    assert.match(await pageText(noReason, 422), /Give a reason for this correction\./);
    assert.equal(await statusOf(a.db, part.id), "Arrived");

    const notAllowed = await d.post(`/hq/parts/${part.id}/status`, { from: "Arrived", to: "Returned to HQ" });
    assert.match(await pageText(notAllowed, 422), /A part cannot be changed from Arrived to Returned to HQ/);
    assert.equal((await d.get("/hq/parts/999999")).status, 404);
    assert.equal((await d.get("/hq/parts/abc")).status, 404);
  },
);

appTest("hq parts: a change raced by a driver shows who won and overwrites nothing", async (a) => {
  const d = await signedIn(a, "dispatcher");
  const { parts } = await makeClaim(a.db, { parts: [{ status: "Arrived", part_no: "PN-R1" }] });
  // The dispatcher's page showed Arrived; the driver's drop-off lands first.
  await a.db.updateTable("parts_orders").set({ status: "Delivered to Repair Shop directly" })
    .where("id", "=", parts[0].id).execute();
  const res = await d.post(`/hq/parts/${parts[0].id}/status`, {
    from: "Arrived",
    to: "Pending Repair Shop Pick-Up",
  });
  const text = await pageText(res, 409);
  assert.match(
    text,
    /PN-R1 changed to Delivered to Repair Shop directly while you were looking; nothing was changed\./,
  );
  assert.match(text, /Flag for return from the repair shop/, "the page offers what is possible now");
  assert.equal(await statusOf(a.db, parts[0].id), "Delivered to Repair Shop directly");
});

appTest("hq parts: a part on an open return trip offers no change and links the trip", async (a) => {
  const s = await flowSetup(a, { count: 1, status: "Pending Repair Shop Pick-Up", stage: "reverse_pickup" });
  const leg1 = await a.call(pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs)));
  const tripId = leg1.result.data!.parts_movement_id as number;
  const d = await signedIn(a, "dispatcher");
  const html = await (await d.get(`/hq/parts/${s.parts[0].id}`)).text();
  assert.match(html, new RegExp(`open return trip <a[^>]*href="/hq/movements/${tripId}"`));
  assert.doesNotMatch(html, /action="\/hq\/parts\/\d+\/status"/);
  const res = await d.post(`/hq/parts/${s.parts[0].id}/status`, {
    from: "Picked Up from Repair Shop",
    to: "Pending Repair Shop Pick-Up",
    reason: "try anyway",
  });
  assert.match(await pageText(res, 422), /is on open return trip/);
  assert.equal(await statusOf(a.db, s.parts[0].id), "Picked Up from Repair Shop");
  // Its history names the movement that moved it.
  assert.match(html, new RegExp(`href="/hq/movements/${tripId}">Movement #${tripId}`));
});
