import assert from "node:assert/strict";
import { appTest } from "@/testkit/app.ts";
import { makeClaim } from "@/testkit/factories.ts";
import { pageText, signedIn, textOf } from "@/tests/helpers/hq.ts";
import { claimStory } from "@/tests/helpers/claim_story.ts";

const claimPath = (n: string) => `/hq/claims/${encodeURIComponent(n)}`;

appTest(
  "hq claim: the page shows the claim, vehicle, shop, every part and one timeline in order, times in the depot's zone",
  async (a) => {
    // 2026-11-21 09:00 UTC is 20:00 AEDT: the fake clock's start.
    const s = await claimStory(a);
    const d = await signedIn(a, "dispatcher");
    const res = await d.get(claimPath(s.claim.claim_number));
    const html = await res.text();
    assert.equal(res.status, 200);
    const text = textOf(html);
    assert.match(text, /Claim CLM-EV\/1/);
    assert.match(text, /Vehicle \(rego\) EVI 001/);
    assert.match(text, /Repair shop Evidence Panels/);
    assert.match(text, /Times shown in Australia\/Sydney/);
    assert.match(text, /PN-A .* Delivered to Repair Shop directly/);
    assert.match(text, /PN\/B .* Returned to HQ/);

    // Timeline rows in time order, each leg with driver, place and the depot's time.
    const timeline = html.slice(html.indexOf('aria-label="Timeline of this claim"'));
    const events = [...timeline.matchAll(/<tr data-event="(\w+)">([\s\S]*?)<\/tr>/g)]
      .map((m) => `${m[1]}: ${textOf(m[2])}`);
    const expected = [
      /^created: 2026-11-21 20:00 AEDT Claim imported/,
      /^leg: 2026-11-21 21:00 AEDT Part PN-A: Delivered to repair shop Dana Driver at Evidence Panels/,
      /^status: 2026-11-21 21:00 AEDT Part PN-A: Arrived → Delivered to Repair Shop directly via movement/,
      /^announcement: 2026-11-21 21:00 AEDT Announcement "Parts Delivered" Parts Movement chat: Not configured ?; New Repair Jobs chat: Not configured$/,
      /^status: 2026-11-21 22:00 AEDT Part PN\/B: Delivered to Repair Shop directly → Pending Repair Shop Pick-Up via dashboard, by Pat Dispatch Reason: Wrong colour, goes back/,
      /^leg: 2026-11-21 23:00 AEDT Part PN\/B: Picked up from repair shop Dana Driver at Evidence Panels/,
      /^status: 2026-11-21 23:00 AEDT Part PN\/B: Pending Repair Shop Pick-Up → Picked Up from Repair Shop/,
      /^announcement: 2026-11-21 23:00 AEDT Announcement "Parts Picked Up From Repair Shop" Parts Movement chat: Not configured$/,
      /^leg: 2026-11-22 00:00 AEDT Part PN\/B: Returned to HQ Dana Driver at Depot North/,
      /^status: 2026-11-22 00:00 AEDT Part PN\/B: Picked Up from Repair Shop → Returned to HQ/,
      /^announcement: 2026-11-22 00:00 AEDT Announcement "Parts Returned to HQ"/,
    ];
    // A movement's announcement is one row, its chat channels' deliveries in words.
    assert.equal(events.length, expected.length, events.join("\n"));
    for (const [i, re] of expected.entries()) assert.match(events[i], re);

    // The pickup and delivery photo of each part: three legs, three photos, thumbnails linking the original.
    const legPhotos = await a.db.selectFrom("deliver_parts").select(["pickup_photo_id", "delivery_photo_id"])
      .orderBy("id").execute();
    for (
      const id of [legPhotos[0].pickup_photo_id, legPhotos[1].pickup_photo_id, legPhotos[1].delivery_photo_id]
    ) {
      assert.match(html, new RegExp(`href="/photos/${id}"[^>]*><img src="/photos/${id}/thumb"`));
    }
    assert.equal((html.match(/class="claim-photo/g) ?? []).length, 3);
    assert.match(html, /href="\/hq\/claims\/CLM-EV%2F1\/evidence\.zip"/);
    assert.match(html, new RegExp(`href="/hq/parts/${s.partB.id}">PN/B</a>`));
    assert.match(html, new RegExp(`href="/hq/movements/${s.trip}">#${s.trip}</a>`));
    // Each leg has its receiver's cell; nothing on the page is a stored name (stage, channel, state, type).
    assert.equal((html.match(/<td [^>]*data-receiver/g) ?? []).length, 3);
    assert.doesNotMatch(textOf(html.slice(html.indexOf("<body"))), /_|\bdirect\b|\breverse\b/);
    // Printed, every page's margins carry the claim, its rego and the time the page was made (the fake clock's
    // last step), from the root element's style (static/styles.css @page).
    assert.match(
      html,
      /<html lang="en" style="--print-title: &quot;Claim CLM-EV\/1 \\b7 {2}Vehicle EVI 001&quot;; --print-stamp: &quot;Printed 22 Nov 2026 00:00 AEDT&quot;">/,
    );
  },
  { config: { depotTimeZone: "Australia/Sydney" } },
);

appTest("hq claim: an unknown or malformed claim number is a 404 page", async (a) => {
  const d = await signedIn(a, "dispatcher");
  await makeClaim(a.db, { claimNumber: "CLM-REAL" });
  const text = await pageText(await d.get(claimPath("CLM-NOPE")), 404);
  assert.match(text, /This claim does not exist/);
  await pageText(await d.get(claimPath("CLM-NOPE") + "/evidence.zip"), 404);
  await pageText(await d.get("/hq/claims/CLM%00REAL"), 404);
  await pageText(await d.get(claimPath("x".repeat(101))), 404);
  assert.equal((await d.get(claimPath("CLM-REAL"))).status, 200);
});

appTest(
  "hq claim: drivers are refused the page and the evidence pack (403)",
  async (a) => {
    await makeClaim(a.db, { claimNumber: "CLM-SECRET" });
    const driver = await signedIn(a, "driver");
    assert.equal((await driver.get(claimPath("CLM-SECRET"))).status, 403);
    assert.equal((await driver.get(claimPath("CLM-SECRET") + "/evidence.zip")).status, 403);
    const admin = await signedIn(a, "admin");
    assert.equal((await admin.get(claimPath("CLM-SECRET"))).status, 200);
  },
);

appTest("hq claim: the part page and the movement page link to the claim page", async (a) => {
  const s = await claimStory(a);
  const d = await signedIn(a, "dispatcher");
  const href = 'href="/hq/claims/CLM-EV%2F1"';
  assert.match(await (await d.get(`/hq/parts/${s.partA.id}`)).text(), new RegExp(href));
  assert.match(await (await d.get(`/hq/movements/${s.trip}`)).text(), new RegExp(href));
});
