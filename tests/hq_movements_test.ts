import assert from "node:assert/strict";
import { appTest } from "@/testkit/app.ts";
import { claimPage } from "@/lib/dashboard/claim.ts";
import { makeRepairer } from "@/testkit/factories.ts";
import { pageText, signedIn } from "@/tests/helpers/hq.ts";
import {
  confirmed,
  dropOffPayload,
  dropOffReversePayload,
  flowSetup,
  pickUpPayload,
  stageFor,
} from "@/testkit/movements.ts";

appTest("hq movements: list with filters, and a movement's page with each part's photos", async (a) => {
  const s = await flowSetup(a, {
    count: 2,
    status: "Arrived",
    stage: "direct_dropoff",
    registration: "DIR 111",
  });
  const res = await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
  assert.equal(res.result.status, "success", JSON.stringify(res));
  const movementId = res.result.data!.parts_movement_id as number;
  const r = await flowSetup(a, {
    count: 1,
    status: "Pending Repair Shop Pick-Up",
    stage: "reverse_pickup",
    registration: "REV 222",
  });
  const leg1 = await a.call(pickUpPayload(r.user.email, r.claim.registration, confirmed(r.pairs)));
  const tripId = leg1.result.data!.parts_movement_id as number;

  const d = await signedIn(a, "dispatcher");
  const list = await pageText(await d.get("/hq/movements"));
  assert.match(list, new RegExp(`#${movementId} Direct Parts Dropped off DIR 111`));
  assert.match(list, new RegExp(`#${tripId} Return Parts Picked Up REV 222`));
  const direct = await pageText(await d.get("/hq/movements?type=direct"));
  assert.doesNotMatch(direct, /REV 222/);
  const open = await pageText(await d.get("/hq/movements?status=Parts+Picked+Up&rego=rev222"));
  assert.match(open, /REV 222/);
  assert.doesNotMatch(open, /DIR 111/);
  const byDriver = await pageText(await d.get(`/hq/movements?driver=${r.user.id}`));
  assert.match(byDriver, /REV 222/);
  assert.doesNotMatch(byDriver, /DIR 111/);

  const page = await d.get(`/hq/movements/${movementId}`);
  const html = await page.text();
  assert.equal(page.status, 200);
  const photoIds = await a.db.selectFrom("deliver_parts").select([
    "part_id",
    "pickup_photo_id",
    "delivery_photo_id",
  ])
    .where("movement_id", "=", movementId).orderBy("id").execute();
  for (const [i, p] of photoIds.entries()) {
    assert.match(
      html,
      new RegExp(`href="/photos/${p.pickup_photo_id}"[^>]*><img src="/photos/${p.pickup_photo_id}/thumb"`),
    );
    assert.match(html, new RegExp(`alt="Pickup photo of ${s.parts[i].part_no}"`));
    assert.match(html, new RegExp(`alt="Delivery photo of ${s.parts[i].part_no}"`));
  }
  const text = await pageText(new Response(html, { headers: { "content-type": "text/html" } }));
  assert.match(text, new RegExp(`Movement #${movementId} Direct`));
  assert.match(text, new RegExp(`Repair shop \\(delivered to\\) ${s.shop.name}`));
  assert.match(text, new RegExp(`Picked up by ${s.user.name}`));
  assert.match(text, /Picked up at 2026-11-21 09:00 UTC/);
  assert.match(text, /Parts Delivered · Parts Movement · feed_only/);

  const trip = await pageText(await d.get(`/hq/movements/${tripId}`));
  assert.match(trip, new RegExp(`Repair shop \\(picked up from\\) ${r.shop.name}`));
  assert.match(trip, /not yet delivered/);
  assert.equal((await d.get("/hq/movements/424242")).status, 404);
});

appTest(
  "hq trips: open return trips oldest first with their age; a completed trip leaves the list",
  async (a) => {
    const trips: { id: number; rego: string }[] = [];
    const setups = [];
    for (const rego of ["OLD 1", "NEW 2"]) {
      const s = await flowSetup(a, {
        count: 2,
        status: "Pending Repair Shop Pick-Up",
        stage: "reverse_pickup",
        registration: rego,
      });
      const leg1 = await a.call(pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs)));
      trips.push({ id: leg1.result.data!.parts_movement_id as number, rego });
      setups.push(s);
      a.clock.advance(26 * 3_600_000 + 5 * 60_000);
    }
    const d = await signedIn(a, "dispatcher");
    const text = await pageText(await d.get("/hq/trips"));
    // Now is 52 h 10 min after the first pickup and 26 h 5 min after the second.
    assert.match(text, new RegExp(`2 d 4 h #${trips[0].id} OLD 1 .* 2 of 2 .*1 d 2 h #${trips[1].id} NEW 2`));

    // Leg 2 for the first trip's parts: it is no longer open.
    const s = setups[0];
    const images = await stageFor(a, s.parts, "reverse_dropoff", s.user.id);
    const leg2 = await a.call(
      dropOffReversePayload(
        s.user.email,
        s.claim.registration,
        trips[0].id,
        confirmed(s.parts.map((p, i) => ({ part: p.id, image: images[i] }))),
      ),
    );
    assert.equal(leg2.result.status, "success", JSON.stringify(leg2));
    const after = await pageText(await d.get("/hq/trips"));
    assert.doesNotMatch(after, /OLD 1/);
    assert.match(after, /NEW 2/);
  },
);

appTest(
  "hq movements: a return trip's place is its claim's shop when it was picked up, kept when the claim's shop changes",
  async (a) => {
    const s = await flowSetup(a, {
      count: 1,
      status: "Pending Repair Shop Pick-Up",
      stage: "reverse_pickup",
      registration: "PLC 333",
    });
    const leg1 = await a.call(pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs)));
    const tripId = leg1.result.data!.parts_movement_id as number;
    const later = await makeRepairer(a.db, "Later Panels");
    await a.db.updateTable("claim_management").set({ repairer_id: later.id }).where(
      "claim_id",
      "=",
      s.claim.id,
    )
      .execute();
    const d = await signedIn(a, "dispatcher");
    for (const path of ["/hq/movements", "/hq/movements?sort=place", "/hq/trips"]) {
      const text = await pageText(await d.get(path));
      assert.match(text, new RegExp(`#${tripId} .*${s.shop.name}`), path);
      assert.doesNotMatch(text, /Later Panels/, path);
    }
    // The claim page's timeline and evidence name the same place for the trip's pickup leg.
    const page = await claimPage(a.db, s.claim.claim_number);
    assert.deepEqual(page!.legs.map((l) => [l.leg, l.place]), [["reverse_pickup", s.shop.name]]);
  },
);

appTest("hq announcements: states per channel, the last error of a failed one, and retry", async (a) => {
  const s = await flowSetup(a, {
    count: 1,
    status: "Arrived",
    stage: "direct_dropoff",
    registration: "ANN 1",
  });
  const res = await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
  const movementId = res.result.data!.parts_movement_id as number;
  const rows = await a.db.selectFrom("announcements").select(["id", "channel"]).orderBy("id").execute();
  assert.equal(rows.length, 2, "Parts Delivered goes to two channels");
  await a.db.updateTable("announcements")
    .set({ state: "failed", attempts: 31, last_error: "HTTP 500 from the chat" })
    .where("id", "=", rows[0].id).execute();

  const d = await signedIn(a, "dispatcher");
  const feed = await d.get("/hq/announcements");
  const html = await feed.text();
  assert.equal(feed.status, 200);
  assert.match(html, new RegExp(`data-announcement="${rows[0].id}" data-state="failed"`));
  assert.match(html, new RegExp(`data-announcement="${rows[1].id}" data-state="feed_only"`));
  assert.match(html, new RegExp(`href="/hq/movements/${movementId}"`));
  const text = await pageText(new Response(html, { headers: { "content-type": "text/html" } }));
  assert.match(text, /Failed \(1\)/);
  assert.match(text, /Gave up after 31 attempts\. Last error: HTTP 500 from the chat Retry/);
  assert.match(text, /No chat webhook configured for this channel/);
  const failedOnly = await pageText(await d.get("/hq/announcements?state=failed"));
  assert.match(failedOnly, /HTTP 500 from the chat/);
  // The filter keeps whole announcements (every channel's chip): one in no channel delivered is left out.
  assert.doesNotMatch(await pageText(await d.get("/hq/announcements?state=delivered")), /ANN 1/);

  const retry = await d.post(`/hq/announcements/${rows[0].id}/retry`);
  assert.equal(retry.status, 303);
  assert.equal(retry.headers.get("location"), "/hq/announcements?state=failed&done=retried");
  const row = await a.db.selectFrom("announcements").selectAll().where("id", "=", rows[0].id)
    .executeTakeFirstOrThrow();
  assert.equal(row.state, "pending");
  assert.match(await pageText(await d.get(retry.headers.get("location")!)), /Queued for another attempt/);
  const again = await d.post(`/hq/announcements/${rows[0].id}/retry`);
  assert.equal(again.headers.get("location"), "/hq/announcements?state=failed&done=stale");
});
