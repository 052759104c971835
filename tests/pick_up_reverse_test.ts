import assert from "node:assert/strict";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeHq, makeUser, stagePhoto } from "@/testkit/factories.ts";
import {
  assertConsistent,
  assertRefused,
  confirmed,
  flowSetup,
  pickUpPayload,
  statusOf,
  writtenCounts,
} from "@/testkit/movements.ts";

const setup = (a: TestApp, count = 1) =>
  flowSetup(a, { count, status: "Pending Repair Shop Pick-Up", stage: "reverse_pickup" });

appTest(
  "parts_pick_up_reverse: records leg 1, links the movement on the claim, answers movement_type reverse",
  async (a) => {
    const s = await setup(a, 3);
    const [p1, p2, p3] = s.parts;
    const res = await a.handler(pickUpPayload(s.user.email, s.claim.registration, [
      ...confirmed([s.pairs[2], s.pairs[0]]),
      { parts_order_id: String(p2.id), confirm: false, image_id: "" },
    ]));
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^application\/json/);
    const body = await res.json();
    assert.equal(body.code, 3000);
    assert.equal(body.result.status, "success");
    const data = body.result.data;
    assert.deepEqual(Object.keys(data), ["delivery_parts", "movement_type", "parts_movement_id"]);
    assert.equal(data.movement_type, "reverse");
    assert.equal(typeof data.parts_movement_id, "number");
    assert.deepEqual(data.delivery_parts.map((d: { parts_order_id: number }) => d.parts_order_id), [
      p3.id,
      p1.id,
    ]);

    const m = await a.db.selectFrom("parts_movements").selectAll().executeTakeFirstOrThrow();
    assert.equal(m.id, data.parts_movement_id);
    assert.equal(m.movement_type, "reverse");
    assert.equal(m.movement_status, "Parts Picked Up");
    assert.equal(m.picked_up_by, s.user.id);
    assert.equal(m.pick_up_at.getTime(), a.clock.now().getTime());
    assert.equal(m.dropped_off_by, null);
    assert.equal(m.dropped_off_at, null);
    assert.equal(m.repairer_id, null);
    assert.equal(m.location_type, "HQ");
    assert.equal(m.hq_location_id, s.hq.id, "the first HQ location when the user has no home HQ");

    const rows = await a.db.selectFrom("deliver_parts").selectAll().orderBy("part_id").execute();
    assert.deepEqual(
      rows.map((r) => [r.part_id, r.pickup, r.delivery, r.delivery_image_id, r.delivery_photo_id]),
      [
        [p1.id, true, false, null, null],
        [p3.id, true, false, null, null],
      ],
    );
    assert.deepEqual(rows.map((r) => r.pickup_image_id), [s.images[0], s.images[2]]);
    for (const r of rows) {
      assert.equal(
        r.id,
        data.delivery_parts.find((d: { parts_order_id: number }) => d.parts_order_id === r.part_id)
          .delivery_id,
      );
      assert.equal(typeof r.pickup_photo_id, "number");
    }

    assert.equal(await statusOf(a.db, p1.id), "Picked Up from Repair Shop");
    assert.equal(await statusOf(a.db, p2.id), "Pending Repair Shop Pick-Up");
    assert.equal(await statusOf(a.db, p3.id), "Picked Up from Repair Shop");
    const cm = await a.db.selectFrom("claim_management").select("parts_movement_id")
      .where("claim_id", "=", s.claim.id).executeTakeFirstOrThrow();
    assert.equal(cm.parts_movement_id, m.id);

    const ann = await a.db.selectFrom("announcements").selectAll().execute();
    assert.deepEqual(ann.map((r) => [r.title, r.channel, r.state]), [
      ["Parts Picked Up From Repair Shop", "parts_movement", "feed_only"],
    ]);
    assert.deepEqual(ann[0].body, {
      title: "Parts Picked Up From Repair Shop",
      rego: s.claim.registration,
      place: s.shop.name,
      parts: [p3, p1].map((p) => ({ part_no: p.part_no, description: p.description })),
      driver: s.user.name,
      at: a.clock.now().toISOString(),
      link: `${a.config.publicUrl}/hq/movements/${m.id}`,
      movement_id: m.id,
    });
    await assertConsistent(a.db);

    // The reverse search now answers leg 2 for this trip.
    const search = await a.call({
      event_type: "Parts_search_details",
      user_email: s.user.email,
      details: { rego: s.claim.registration, movement_type: "reverse" },
    });
    assert.equal(search.result.data!.stage, "dropoff");
    assert.equal(search.result.data!.parts_movement_id, m.id);
    assert.deepEqual(search.result.data!.hq_location, { id: s.hq.id, name: s.hq.name });
  },
);

appTest("parts_pick_up_reverse: the trip goes to the user's home HQ when set (D15)", async (a) => {
  const s = await setup(a);
  const home = await makeHq(a.db);
  await a.db.updateTable("users").set({ home_hq_id: home.id }).where("id", "=", s.user.id).execute();
  const ok = await a.call(pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs)));
  const m = await a.db.selectFrom("parts_movements").select("hq_location_id")
    .where("id", "=", ok.result.data!.parts_movement_id as number).executeTakeFirstOrThrow();
  assert.equal(m.hq_location_id, home.id);
});

appTest(
  "parts_pick_up_reverse: delivery_location may be empty, absent or anything; nothing is captured",
  async (a) => {
    for (const location of ["", undefined, { id: "5", name: "X" }]) {
      // A claim each: one claim has at most one open return trip.
      const s = await setup(a);
      const payload = pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs));
      if (location === undefined) delete (payload.details as Record<string, unknown>).delivery_location;
      else (payload.details as Record<string, unknown>).delivery_location = location;
      assert.equal((await a.call(payload)).result.status, "success");
    }
    const shops = await a.db.selectFrom("parts_movements").select("repairer_id").execute();
    assert.deepEqual(shops.map((m) => m.repairer_id), [null, null, null]);
  },
);

appTest("parts_pick_up_reverse: validation, user and claim come first", async (a) => {
  const s = await setup(a);
  const payload = pickUpPayload("nobody@depot.example", "NO SUCH", confirmed(s.pairs));
  payload.details.movement_type = "direct";
  await assertRefused(a, payload, "Invalid request: details.movement_type must be one of reverse.");
  await assertRefused(a, pickUpPayload("nobody@depot.example", "NO SUCH", []), "User not found.");
  await assertRefused(a, pickUpPayload(s.user.email, "NO SUCH", []), "Claim not found.");
});

appTest("parts_pick_up_reverse: the D13 checks in order, with the flow's texts", async (a) => {
  const s = await setup(a, 2);
  const [p1, p2] = s.parts;
  const rego = s.claim.registration;
  const email = s.user.email;
  await assertRefused(a, pickUpPayload(email, rego, []), "Select at least one part to collect.");
  await assertRefused(
    a,
    pickUpPayload(email, rego, [{ parts_order_id: String(p1.id), confirm: false }]),
    "Select at least one part to collect.",
  );
  await assertRefused(
    a,
    pickUpPayload(email, rego, confirmed([s.pairs[0], { part: 999999, image: 1 }, s.pairs[0]])),
    "Invalid request: details.parts lists a part twice.",
  );
  const other = await makeClaim(a.db, {
    parts: [{ status: "Pending Repair Shop Pick-Up", part_no: "OTHER-9" }],
  });
  await assertRefused(
    a,
    pickUpPayload(
      email,
      rego,
      confirmed([{ part: other.parts[0].id, image: 1 }, { part: 999999, image: 1 }]),
    ),
    "Part not found.",
  );
  await a.db.updateTable("parts_orders").set({ status: "Arrived" }).where("id", "=", p2.id).execute();
  await assertRefused(
    a,
    pickUpPayload(email, rego, confirmed([s.pairs[1], { part: other.parts[0].id, image: 1 }])),
    "OTHER-9 does not belong to this claim.",
  );
  await assertRefused(
    a,
    pickUpPayload(email, rego, confirmed([s.pairs[0], s.pairs[1]])),
    `${p2.part_no} is no longer flagged for return.`,
  );
  await a.db.updateTable("parts_orders").set({ status: "Pending Repair Shop Pick-Up" }).where(
    "id",
    "=",
    p2.id,
  )
    .execute();
  // A photo staged for the direct flow does not match the reverse pickup stage (D14).
  const direct = await stagePhoto(a, {
    partId: p2.id,
    claimId: s.claim.id,
    stage: "direct_dropoff",
    userId: s.user.id,
  });
  await assertRefused(
    a,
    pickUpPayload(email, rego, confirmed([s.pairs[0], { part: p2.id, image: direct.id }])),
    `${p2.part_no} is missing its pickup photo.`,
  );
  await assertRefused(
    a,
    pickUpPayload(email, rego, [{ parts_order_id: String(p1.id), confirm: true, image_id: "" }]),
    `${p1.part_no} is missing its pickup photo.`,
  );
  const noFile = await stagePhoto(a, {
    partId: p1.id,
    claimId: s.claim.id,
    stage: "reverse_pickup",
    userId: s.user.id,
    withFile: false,
  });
  await assertRefused(
    a,
    pickUpPayload(email, rego, confirmed([{ part: p1.id, image: noFile.id }])),
    `${p1.part_no} is missing its pickup photo.`,
  );
  await assertRefused(
    a,
    pickUpPayload(email, rego, confirmed([{ part: p1.id, image: s.images[1] }])),
    `${p1.part_no} is missing its pickup photo.`,
  );
});

appTest(
  "parts_pick_up_reverse: an identical retry answers the original success, nothing new (D16)",
  async (a) => {
    const s = await setup(a, 2);
    const payload = pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs));
    const first = await a.call(payload);
    assert.equal(first.result.status, "success");
    const after = await writtenCounts(a.db);
    a.clock.advance(60_000);
    assert.deepEqual(await a.call(payload), first);
    assert.deepEqual(await writtenCounts(a.db), after);
    // Another driver with the same photos is no retry.
    const other = await makeUser(a.db);
    await assertRefused(
      a,
      pickUpPayload(other.email, s.claim.registration, confirmed(s.pairs)),
      `${s.parts[0].part_no} is no longer flagged for return.`,
    );
  },
);

appTest("parts_pick_up_reverse: without any HQ location the trip cannot be recorded", async (a) => {
  const user = await makeUser(a.db);
  const { claim, parts } = await makeClaim(a.db, { parts: [{ status: "Pending Repair Shop Pick-Up" }] });
  const image = await stagePhoto(a, {
    partId: parts[0].id,
    claimId: claim.id,
    stage: "reverse_pickup",
    userId: user.id,
  });
  await assertRefused(
    a,
    pickUpPayload(user.email, claim.registration, confirmed([{ part: parts[0].id, image: image.id }])),
    "No HQ location is set up. Ask an administrator to add one.",
  );
});

appTest(
  "parts_pick_up_reverse: refused while the claim already has an open return trip, nothing written",
  async (a) => {
    const s = await setup(a, 2);
    const first = await a.call(pickUpPayload(s.user.email, s.claim.registration, confirmed([s.pairs[0]])));
    assert.equal(first.result.status, "success");
    await assertRefused(
      a,
      pickUpPayload(s.user.email, s.claim.registration, confirmed([s.pairs[1]])),
      "Parts of this claim are already on a return trip to HQ. Drop them off at HQ before collecting more.",
    );
    assert.equal(await statusOf(a.db, s.parts[1].id), "Pending Repair Shop Pick-Up");
  },
);
