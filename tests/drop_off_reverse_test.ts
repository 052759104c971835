import assert from "node:assert/strict";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeUser, stagePhoto } from "@/testkit/factories.ts";
import {
  assertConsistent,
  assertRefused,
  confirmed,
  dropOffPayload,
  dropOffReversePayload,
  flowSetup,
  pickUpPayload,
  stageFor,
  statusOf,
  writtenCounts,
} from "@/testkit/movements.ts";

/** A claim whose `count` parts were picked up (leg 1 done), with drop-off photos staged for all. */
async function openTrip(a: TestApp, count = 3) {
  const s = await flowSetup(a, { count, status: "Pending Repair Shop Pick-Up", stage: "reverse_pickup" });
  const leg1 = await a.call(pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs)));
  assert.equal(leg1.result.status, "success", JSON.stringify(leg1));
  const tripId = leg1.result.data!.parts_movement_id as number;
  const images = await stageFor(a, s.parts, "reverse_dropoff", s.user.id);
  const pairs = s.parts.map((p, i) => ({ part: p.id, image: images[i] }));
  const delivery = new Map(
    (leg1.result.data!.delivery_parts as { parts_order_id: number; delivery_id: number }[])
      .map((d) => [d.parts_order_id, d.delivery_id]),
  );
  return { ...s, tripId, images, pairs, delivery };
}

const reverseSearch = (a: TestApp, email: string, rego: string) =>
  a.call({
    event_type: "Parts_search_details",
    user_email: email,
    details: { rego, movement_type: "reverse" },
  });

appTest(
  "parts_drop_off_reverse: returns the whole trip; the same Deliver_Parts get Delivery and the photo",
  async (a) => {
    const t = await openTrip(a, 2);
    a.clock.advance(3_600_000);
    const res = await a.handler(
      dropOffReversePayload(t.user.email, t.claim.registration, t.tripId, confirmed(t.pairs)),
    );
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^application\/json/);
    const body = await res.json();
    assert.equal(body.result.status, "success", JSON.stringify(body));
    assert.deepEqual(body.result.data, {
      delivery_parts: t.parts.map((p) => ({ parts_order_id: p.id, delivery_id: t.delivery.get(p.id) })),
      movement_type: "reverse",
      parts_movement_id: t.tripId,
      movement_status: "Parts Dropped off",
    });
    const rows = await a.db.selectFrom("deliver_parts").selectAll().orderBy("part_id").execute();
    assert.equal(rows.length, 2, "no new Deliver_Parts: the leg-1 rows are updated");
    const photos = new Map(
      (await a.db.selectFrom("uploaded_images").select(["id", "photo_id"]).execute()).map((
        r,
      ) => [r.id, r.photo_id]),
    );
    for (const [i, r] of rows.entries()) {
      assert.equal(r.delivery, true);
      assert.equal(r.delivery_image_id, t.images[i]);
      assert.equal(r.delivery_photo_id, photos.get(t.images[i]));
      assert.equal(await statusOf(a.db, r.part_id), "Returned to HQ");
    }
    const m = await a.db.selectFrom("parts_movements").selectAll().where("id", "=", t.tripId)
      .executeTakeFirstOrThrow();
    assert.equal(m.movement_status, "Parts Dropped off");
    assert.equal(m.dropped_off_by, t.user.id);
    assert.equal(m.dropped_off_at!.getTime(), a.clock.now().getTime());
    const history = await a.db.selectFrom("part_status_history").selectAll().where(
      "to_status",
      "=",
      "Returned to HQ",
    )
      .execute();
    assert.deepEqual(
      history.map((h) => [h.from_status, h.via, h.movement_id, h.changed_by]),
      t.parts.map(() => ["Picked Up from Repair Shop", "movement", t.tripId, t.user.id]),
    );
    const ann = await a.db.selectFrom("announcements").selectAll().where("title", "=", "Parts Returned to HQ")
      .execute();
    assert.deepEqual(ann.map((r) => r.channel), ["parts_movement"]);
    assert.deepEqual(ann[0].body, {
      title: "Parts Returned to HQ",
      rego: t.claim.registration,
      place: t.hq.name,
      parts: t.parts.map((p) => ({ part_no: p.part_no, description: p.description })),
      driver: t.user.name,
      at: a.clock.now().toISOString(),
      link: `${a.config.publicUrl}/hq/movements/${t.tripId}`,
      movement_id: t.tripId,
    });
    await assertConsistent(a.db);
  },
);

appTest(
  "parts_drop_off_reverse: partial returns keep the trip open and the search lists what is left",
  async (a) => {
    const t = await openTrip(a, 3);
    const [p1, p2, p3] = t.parts;
    const first = await a.call(
      dropOffReversePayload(t.user.email, t.claim.registration, t.tripId, confirmed([t.pairs[1]])),
    );
    assert.equal(first.result.data!.movement_status, "Parts Picked Up");
    let m = await a.db.selectFrom("parts_movements").selectAll().where("id", "=", t.tripId)
      .executeTakeFirstOrThrow();
    assert.equal(m.movement_status, "Parts Picked Up");
    assert.equal(m.dropped_off_by, t.user.id);
    assert.equal(m.dropped_off_at!.getTime(), a.clock.now().getTime());

    // The search still answers stage dropoff for this trip, with the two parts not yet returned.
    const search = await reverseSearch(a, t.user.email, t.claim.registration);
    assert.equal(search.result.status, "success");
    assert.equal(search.result.data!.stage, "dropoff");
    assert.equal(search.result.data!.form_name, "dropoff");
    assert.equal(search.result.data!.parts_movement_id, t.tripId);
    assert.deepEqual(
      (search.result.data!.parts_list as { parts_order_id: number; delivery_id: number }[])
        .map((p) => [p.parts_order_id, p.delivery_id]),
      [p1, p3].map((p) => [p.id, t.delivery.get(p.id)]),
    );

    // The rest, by another driver, later: the trip completes.
    const other = await makeUser(a.db);
    const otherImages = await stageFor(a, [p1, p3], "reverse_dropoff", other.id);
    a.clock.advance(600_000);
    const last = await a.call(dropOffReversePayload(
      other.email,
      t.claim.registration,
      t.tripId,
      confirmed([
        { part: p3.id, image: otherImages[1] },
        { part: p1.id, image: otherImages[0] },
      ]),
    ));
    assert.equal(last.result.status, "success", JSON.stringify(last));
    assert.equal(last.result.data!.movement_status, "Parts Dropped off");
    assert.deepEqual(
      (last.result.data!.delivery_parts as { parts_order_id: number }[]).map((d) => d.parts_order_id),
      [p3.id, p1.id],
    );
    m = await a.db.selectFrom("parts_movements").selectAll().where("id", "=", t.tripId)
      .executeTakeFirstOrThrow();
    assert.equal(m.movement_status, "Parts Dropped off");
    assert.equal(m.dropped_off_by, other.id);
    assert.equal(m.dropped_off_at!.getTime(), a.clock.now().getTime());
    assert.equal(await statusOf(a.db, p2.id), "Returned to HQ");
    assert.equal(
      (await a.db.selectFrom("announcements").select("id").where("title", "=", "Parts Returned to HQ")
        .execute()).length,
      2,
    );
    await assertConsistent(a.db);

    // Nothing left to return and nothing flagged: the search says so.
    const done = await reverseSearch(a, t.user.email, t.claim.registration);
    assert.equal(done.result.text, "No parts flagged for return at a repair shop");
  },
);

appTest(
  "parts_drop_off_reverse: Return trip not found. for unknown, direct, or another vehicle's trips",
  async (a) => {
    const t = await openTrip(a, 1);
    const email = t.user.email;
    const text = "Return trip not found.";
    await assertRefused(
      a,
      dropOffReversePayload(email, t.claim.registration, 2147483647, confirmed(t.pairs)),
      text,
    );
    const d = await flowSetup(a, { status: "Arrived", stage: "direct_dropoff" });
    const direct = await a.call(
      dropOffPayload(d.user.email, d.claim.registration, d.shop, confirmed(d.pairs)),
    );
    await assertRefused(
      a,
      dropOffReversePayload(
        email,
        d.claim.registration,
        direct.result.data!.parts_movement_id as number,
        confirmed(t.pairs),
      ),
      text,
    );
    const other = await makeClaim(a.db, { parts: [{ status: "Arrived" }] });
    await assertRefused(
      a,
      dropOffReversePayload(email, other.claim.registration, t.tripId, confirmed(t.pairs)),
      text,
    );
    // The claim comes first.
    await assertRefused(
      a,
      dropOffReversePayload(email, "NOPE99", t.tripId, confirmed(t.pairs)),
      "Claim not found.",
    );
    // Validation before everything.
    const bad = dropOffReversePayload(email, "NOPE99", "x", confirmed(t.pairs));
    await assertRefused(a, bad, "Invalid request: details.parts_movement_id must be an ID.");
  },
);

appTest("parts_drop_off_reverse: a complete trip says so before anything about the parts", async (a) => {
  const t = await openTrip(a, 1);
  const ok = await a.call(
    dropOffReversePayload(t.user.email, t.claim.registration, t.tripId, confirmed(t.pairs)),
  );
  assert.equal(ok.result.data!.movement_status, "Parts Dropped off");
  const text = "This return trip is already complete.";
  await assertRefused(a, dropOffReversePayload(t.user.email, t.claim.registration, t.tripId, []), text);
  const other = await makeUser(a.db);
  await assertRefused(
    a,
    dropOffReversePayload(other.email, t.claim.registration, t.tripId, confirmed(t.pairs)),
    text,
  );
});

appTest("parts_drop_off_reverse: the D13/D20 part checks in order, with the leg-2 texts", async (a) => {
  const t = await openTrip(a, 2);
  const [p1, p2] = t.parts;
  const email = t.user.email;
  const rego = t.claim.registration;
  const send = (parts: Parameters<typeof dropOffReversePayload>[3]) =>
    dropOffReversePayload(email, rego, t.tripId, parts);
  await assertRefused(a, send([]), "Select at least one part to return.");
  await assertRefused(
    a,
    send([{ parts_order_id: String(p1.id), confirm: false }]),
    "Select at least one part to return.",
  );
  await assertRefused(
    a,
    send(confirmed([t.pairs[0], t.pairs[0]])),
    "Invalid request: details.parts lists a part twice.",
  );
  await assertRefused(a, send(confirmed([{ part: 2147483647, image: 1 }])), "Part not found.");
  const foreign = await makeClaim(a.db, {
    parts: [{ status: "Picked Up from Repair Shop", part_no: "FOREIGN-1" }],
  });
  await assertRefused(
    a,
    send(confirmed([t.pairs[0], { part: foreign.parts[0].id, image: 1 }])),
    "FOREIGN-1 does not belong to this claim.",
  );
  // A part of the claim that is not on this trip.
  const extra = await a.db.insertInto("parts_orders").values({
    claim_id: t.claim.id,
    part_no: "EXTRA-1",
    description: "Not collected",
    qty_ordered: 1,
    status: "Picked Up from Repair Shop",
  }).returningAll().executeTakeFirstOrThrow();
  await assertRefused(
    a,
    send(confirmed([t.pairs[0], { part: extra.id, image: 1 }])),
    "EXTRA-1 is not part of this return trip.",
  );
  // Raced by the dashboard: no longer awaiting return.
  await a.db.updateTable("parts_orders").set({ status: "Pending Repair Shop Pick-Up" }).where(
    "id",
    "=",
    p2.id,
  )
    .execute();
  await assertRefused(a, send(confirmed(t.pairs)), `${p2.part_no} is no longer awaiting return.`);
  await a.db.updateTable("parts_orders").set({ status: "Picked Up from Repair Shop" }).where("id", "=", p2.id)
    .execute();
  // Photos: none, the leg-1 photo (wrong stage, and used), a photo of another part.
  const text = `${p1.part_no} is missing its drop-off photo.`;
  await assertRefused(a, send([{ parts_order_id: String(p1.id), confirm: true, image_id: null }]), text);
  const leg1Image =
    (await a.db.selectFrom("deliver_parts").select("pickup_image_id").where("part_id", "=", p1.id)
      .executeTakeFirstOrThrow()).pickup_image_id!;
  await assertRefused(a, send(confirmed([{ part: p1.id, image: leg1Image }])), text);
  await assertRefused(a, send(confirmed([{ part: p1.id, image: t.images[1] }])), text);
  const pickupStage = await stagePhoto(a, {
    partId: p1.id,
    claimId: t.claim.id,
    stage: "reverse_pickup",
    userId: t.user.id,
  });
  await assertRefused(a, send(confirmed([{ part: p1.id, image: pickupStage.id }])), text);

  // A part already returned is no longer awaiting return.
  assert.equal((await a.call(send(confirmed([t.pairs[0]])))).result.status, "success");
  const again = await stagePhoto(a, {
    partId: p1.id,
    claimId: t.claim.id,
    stage: "reverse_dropoff",
    userId: t.user.id,
  });
  await assertRefused(
    a,
    send(confirmed([{ part: p1.id, image: again.id }, t.pairs[1]])),
    `${p1.part_no} is no longer awaiting return.`,
  );
});

appTest(
  "parts_drop_off_reverse: a retry answers the original, also after the trip completed (D16)",
  async (a) => {
    const t = await openTrip(a, 2);
    const partial = dropOffReversePayload(
      t.user.email,
      t.claim.registration,
      t.tripId,
      confirmed([t.pairs[0]]),
    );
    const first = await a.call(partial);
    assert.equal(first.result.data!.movement_status, "Parts Picked Up");
    a.clock.advance(60_000);
    const rest = dropOffReversePayload(t.user.email, t.claim.registration, t.tripId, confirmed([t.pairs[1]]));
    const second = await a.call(rest);
    assert.equal(second.result.data!.movement_status, "Parts Dropped off");
    const after = await writtenCounts(a.db);
    a.clock.advance(60_000);
    // Both retries get their own original answers, though the trip is complete now.
    assert.deepEqual(await a.call(partial), first);
    assert.deepEqual(await a.call(rest), second);
    assert.deepEqual(await writtenCounts(a.db), after);
    // The same photos sent with another trip id are no retry of this trip.
    const t2 = await openTrip(a, 1);
    await assertRefused(
      a,
      dropOffReversePayload(t.user.email, t.claim.registration, t2.tripId, confirmed([t.pairs[0]])),
      "Return trip not found.",
    );
    a.clock.advance(24 * 60 * 60_000);
    await assertRefused(a, rest, "This return trip is already complete.");
  },
);
