/**
 * DEPOT_TIME_ZONE reaches every face that shows a time: the dashboard's pages, its CSV exports, the
 * announcements (feed and chat, see announcement_outbox_test.ts) and the tablet's receipt. The fake clock
 * starts at 2026-11-21 09:00 UTC, which is 20:00 summer time (AEDT) in Sydney.
 */
import assert from "node:assert/strict";
import { parseCsv } from "@/io/csv.ts";
import { appTest } from "@/testkit/app.ts";
import { pageText, signedIn } from "@/tests/helpers/hq.ts";
import { confirmed, dropOffPayload, flowSetup } from "@/testkit/movements.ts";
import { makeDriver, Tablet } from "@/tests/helpers/tablet.ts";

appTest(
  "depot time zone: dashboard pages, CSV exports, the announcement feed and the tablet receipt use it",
  async (a) => {
    const s = await flowSetup(a, {
      count: 1,
      status: "Arrived",
      stage: "direct_dropoff",
      registration: "TZ 1",
    });
    const res = await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
    const movementId = res.result.data!.parts_movement_id as number;
    const d = await signedIn(a, "dispatcher");

    const page = await pageText(await d.get(`/hq/movements/${movementId}`));
    assert.match(page, /Picked up at 2026-11-21 20:00 AEDT/);
    assert.doesNotMatch(page, /UTC/);

    const feed = await pageText(await d.get("/hq/announcements"));
    assert.match(feed, /Parts Delivered 2026-11-21 20:00 AEDT/);

    const csv = await d.get("/hq/exports/movements.csv");
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get("content-disposition")!, /filename="movements-2026-11-21\.csv"/);
    const [header, row] = parseCsv(await csv.text());
    assert.equal(row[header.indexOf("Picked up at")], "2026-11-21T20:00:00.000+11:00");

    const admin = new Tablet(a);
    await admin.signIn(await makeDriver(a, { role: "admin" }));
    const receipt = await pageText(await admin.request(`/tablet/movements/${movementId}`));
    assert.match(receipt, new RegExp(`Picked up ${s.user.name}, 2026-11-21 20:00 AEDT`));
  },
  { config: { depotTimeZone: "Australia/Sydney" } },
);

appTest(
  "depot time zone: the CSV file is named after the depot's day, not the UTC one",
  async (a) => {
    a.clock.advance(5 * 3_600_000); // 14:00 UTC is 01:00 on the 22nd in Sydney
    const d = await signedIn(a, "dispatcher");
    const csv = await d.get("/hq/exports/parts.csv");
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get("content-disposition")!, /filename="parts-2026-11-22\.csv"/);
    await csv.body?.cancel();
  },
  { config: { depotTimeZone: "Australia/Sydney" } },
);
