import assert from "node:assert/strict";
import { sql } from "kysely";
import { appTest } from "@/testkit/app.ts";
import { makeClaim, makeRepairer, makeUser, stagePhoto } from "@/testkit/factories.ts";
import {
  assertConsistent,
  assertRefused,
  confirmed,
  dropOffPayload,
  flowSetup,
  statusOf,
  writtenCounts,
} from "@/testkit/movements.ts";

/** Asserts the failure text and that nothing at all was written. */

appTest(
  "parts_drop_off: records the movement, its Deliver_Parts, the status flips, history and announcements",
  async (a) => {
    const s = await flowSetup(a, {
      count: 3,
      status: "Arrived",
      stage: "direct_dropoff",
      registration: "ABC 123",
    });
    const [p1, p2, p3] = s.parts;
    const res = await a.handler(dropOffPayload(s.user.email, "abc-123", s.shop, [
      { parts_order_id: String(p2.id), confirm: true, image_id: String(s.images[1]) },
      { parts_order_id: String(p3.id), confirm: false, image_id: "" },
      { parts_order_id: String(p1.id), confirm: true, image_id: String(s.images[0]) },
    ]));
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^application\/json/);
    const body = await res.json();
    assert.equal(body.code, 3000);
    assert.equal(body.result.status, "success");
    const data = body.result.data;
    assert.deepEqual(Object.keys(data).sort(), ["delivery_parts", "parts_movement_id"]);
    assert.equal(typeof data.parts_movement_id, "number");
    // Request order, IDs as numbers.
    assert.deepEqual(data.delivery_parts.map((d: { parts_order_id: number }) => d.parts_order_id), [
      p2.id,
      p1.id,
    ]);
    for (const d of data.delivery_parts) {
      assert.deepEqual(Object.keys(d).sort(), ["delivery_id", "parts_order_id"]);
      assert.equal(typeof d.delivery_id, "number");
    }

    const movement = await a.db.selectFrom("parts_movements").selectAll().executeTakeFirstOrThrow();
    assert.equal(movement.id, data.parts_movement_id);
    assert.equal(movement.claim_id, s.claim.id);
    assert.equal(movement.movement_type, "direct");
    assert.equal(movement.movement_status, "Parts Dropped off");
    assert.equal(movement.picked_up_by, s.user.id);
    assert.equal(movement.dropped_off_by, s.user.id);
    assert.equal(movement.pick_up_at.getTime(), a.clock.now().getTime());
    assert.equal(movement.dropped_off_at!.getTime(), a.clock.now().getTime());
    assert.equal(movement.repairer_id, s.shop.id);

    const staged = await a.db.selectFrom("uploaded_images").select(["id", "photo_id"]).execute();
    const photoOf = new Map(staged.map((r) => [r.id, r.photo_id]));
    const rows = await a.db.selectFrom("deliver_parts").selectAll().orderBy("id").execute();
    assert.equal(rows.length, 2);
    assert.equal(movement.part_count, 2, "the movement stores its number of parts (the confirmed ones)");
    for (const [i, part] of [[1, p2], [0, p1]] as const) {
      const row = rows.find((r) => r.part_id === part.id)!;
      assert.equal(
        row.id,
        data.delivery_parts.find((d: { parts_order_id: number }) => d.parts_order_id === part.id).delivery_id,
      );
      assert.equal(row.movement_id, movement.id);
      assert.equal(row.pickup, true);
      assert.equal(row.delivery, true);
      assert.equal(row.qty_ordered, part.qty_ordered);
      assert.equal(row.pickup_image_id, s.images[i]);
      assert.equal(row.delivery_image_id, s.images[i]);
      assert.equal(row.pickup_photo_id, photoOf.get(s.images[i]));
      assert.equal(row.delivery_photo_id, photoOf.get(s.images[i]));
    }

    assert.equal(await statusOf(a.db, p1.id), "Delivered to Repair Shop directly");
    assert.equal(await statusOf(a.db, p2.id), "Delivered to Repair Shop directly");
    assert.equal(await statusOf(a.db, p3.id), "Arrived", "confirm: false items are dropped");

    const history = await a.db.selectFrom("part_status_history").selectAll().orderBy("part_id").execute();
    assert.deepEqual(
      history.map((h) => [h.part_id, h.from_status, h.to_status, h.via, h.movement_id, h.changed_by]),
      [p1, p2].map((
        p,
      ) => [p.id, "Arrived", "Delivered to Repair Shop directly", "movement", movement.id, s.user.id]),
    );
    assert.equal(history[0].changed_at.getTime(), a.clock.now().getTime());

    const announcements = await a.db.selectFrom("announcements").selectAll().orderBy("channel").execute();
    assert.deepEqual(announcements.map((r) => [r.title, r.channel, r.movement_id]), [
      ["Parts Delivered", "new_repair_jobs", movement.id],
      ["Parts Delivered", "parts_movement", movement.id],
    ]);
    assert.notEqual(announcements[0].message_id, announcements[1].message_id);
    assert.deepEqual(announcements[0].body, {
      title: "Parts Delivered",
      rego: "ABC 123",
      place: s.shop.name,
      parts: [p2, p1].map((p) => ({ part_no: p.part_no, description: p.description })),
      driver: s.user.name,
      at: a.clock.now().toISOString(),
      link: `${a.config.publicUrl}/hq/movements/${movement.id}`,
      movement_id: movement.id,
    });
    await assertConsistent(a.db);
  },
);

appTest("parts_drop_off: IDs may be sent as numbers", async (a) => {
  const s = await flowSetup(a, { status: "Arrived", stage: "direct_dropoff" });
  const payload = dropOffPayload(s.user.email, s.claim.registration, s.shop, [
    { parts_order_id: s.parts[0].id, confirm: true, image_id: s.images[0] },
  ]);
  (payload.details.delivery_location as { id: unknown }).id = s.shop.id;
  const body = await a.call(payload);
  assert.equal(body.result.status, "success", JSON.stringify(body));
  assert.equal(body.result.data!.delivery_parts instanceof Array, true);
});

appTest("parts_drop_off: without webhooks the announcements are feed only; with them, pending", async (a) => {
  const s = await flowSetup(a, { status: "Arrived", stage: "direct_dropoff" });
  assert.equal(
    (await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)))).result
      .status,
    "success",
  );
  const states = await a.db.selectFrom("announcements").select("state").execute();
  assert.deepEqual(states.map((r) => r.state), ["feed_only", "feed_only"]);
});

appTest("parts_drop_off: payload validation comes first, with D9 texts", async (a) => {
  const s = await flowSetup(a, { status: "Arrived", stage: "direct_dropoff" });
  const good = () => dropOffPayload("nobody@depot.example", "NO SUCH", s.shop, confirmed(s.pairs));
  const cases: [(p: ReturnType<typeof good>) => void, string][] = [
    [(p) => delete (p.details as Record<string, unknown>).rego, "Invalid request: details.rego is required."],
    [
      (p) => p.details.movement_type = "reverse",
      "Invalid request: details.movement_type must be one of direct.",
    ],
    [
      (p) => delete (p.details as Record<string, unknown>).delivery_location,
      "Invalid request: details.delivery_location is required.",
    ],
    [
      (p) => (p.details as Record<string, unknown>).parts = "x",
      "Invalid request: details.parts must be an array.",
    ],
    [
      (p) => (p.details.parts[0] as unknown as Record<string, unknown>).confirm = "yes",
      "Invalid request: details.parts[0].confirm must be a boolean.",
    ],
    [
      (p) => p.details.parts[0].parts_order_id = "abc",
      "Invalid request: details.parts[0].parts_order_id must be an ID.",
    ],
    [(p) => p.details.parts[0].image_id = "x1", "Invalid request: details.parts[0].image_id must be an ID."],
    [(p) => delete (p as Record<string, unknown>).details, "Invalid request: details is required."],
  ];
  for (const [change, text] of cases) {
    const payload = good();
    change(payload);
    await assertRefused(a, payload, text);
  }
});

appTest("parts_drop_off: the user comes before the claim, the claim before the parts", async (a) => {
  const s = await flowSetup(a, { status: "Arrived", stage: "direct_dropoff" });
  const none = [{ parts_order_id: String(s.parts[0].id), confirm: false }];
  await assertRefused(a, dropOffPayload("nobody@depot.example", "NO SUCH", s.shop, none), "User not found.");
  const inactive = await makeUser(a.db, { active: false });
  await assertRefused(
    a,
    dropOffPayload(inactive.email, s.claim.registration, s.shop, confirmed(s.pairs)),
    "User not found.",
  );
  await assertRefused(a, dropOffPayload(s.user.email, "NOSUCH9", s.shop, none), "Claim not found.");
  await assertRefused(
    a,
    dropOffPayload(s.user.email, "x", s.shop, none),
    "Enter at least 2 characters of the rego.",
  );
});

appTest("parts_drop_off: nothing confirmed answers Select at least one part to deliver.", async (a) => {
  const s = await flowSetup(a, { count: 2, status: "Arrived", stage: "direct_dropoff" });
  const text = "Select at least one part to deliver.";
  await assertRefused(a, dropOffPayload(s.user.email, s.claim.registration, s.shop, []), text);
  await assertRefused(
    a,
    dropOffPayload(
      s.user.email,
      s.claim.registration,
      s.shop,
      s.pairs.map((p) => ({
        parts_order_id: String(p.part),
        confirm: false,
        image_id: String(p.image),
      })),
    ),
    text,
  );
  // Before any part is looked at: an unknown part that is not confirmed does not matter.
  await assertRefused(
    a,
    dropOffPayload(s.user.email, s.claim.registration, { id: 999999 }, [{
      parts_order_id: "999999",
      confirm: false,
    }]),
    text,
  );
});

appTest("parts_drop_off: a part listed twice is refused before unknown parts", async (a) => {
  const s = await flowSetup(a, { count: 2, status: "Arrived", stage: "direct_dropoff" });
  const [x, y] = s.pairs;
  const text = "Invalid request: details.parts lists a part twice.";
  await assertRefused(
    a,
    dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed([x, y, x])),
    text,
  );
  await assertRefused(
    a,
    dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed([{ part: 999999, image: 1 }, x, x])),
    text,
  );
  // A repeat that is not confirmed is dropped first, so it is no duplicate.
  const ok = await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, [
    ...confirmed([x]),
    { parts_order_id: String(x.part), confirm: false },
  ]));
  assert.equal(ok.result.status, "success", JSON.stringify(ok));
});

appTest("parts_drop_off: an unknown part is Part not found., before parts of other claims", async (a) => {
  const s = await flowSetup(a, { status: "Arrived", stage: "direct_dropoff" });
  const other = await makeClaim(a.db, { parts: [{ status: "Arrived" }] });
  const otherImage = await stagePhoto(a, {
    partId: other.parts[0].id,
    claimId: other.claim.id,
    stage: "direct_dropoff",
    userId: s.user.id,
  });
  await assertRefused(
    a,
    dropOffPayload(
      s.user.email,
      s.claim.registration,
      s.shop,
      confirmed([
        { part: other.parts[0].id, image: otherImage.id },
        { part: 2147483647, image: 1 },
        s.pairs[0],
      ]),
    ),
    "Part not found.",
  );
});

appTest(
  "parts_drop_off: a part of another claim does not belong, before status and photo checks",
  async (a) => {
    const s = await flowSetup(a, { count: 2, status: "Arrived", stage: "direct_dropoff" });
    const other = await makeClaim(a.db, { parts: [{ status: "Arrived", part_no: "OTHER-1" }] });
    await a.db.updateTable("parts_orders").set({ status: "Ordered" }).where("id", "=", s.parts[0].id)
      .execute();
    await assertRefused(
      a,
      dropOffPayload(s.user.email, s.claim.registration, s.shop, [
        ...confirmed([s.pairs[0]]),
        { parts_order_id: String(other.parts[0].id), confirm: true, image_id: "" },
      ]),
      "OTHER-1 does not belong to this claim.",
    );
  },
);

appTest(
  "parts_drop_off: a part no longer Arrived answers its no-longer text and writes nothing",
  async (a) => {
    const s = await flowSetup(a, { count: 3, status: "Arrived", stage: "direct_dropoff" });
    for (
      const status of ["Ordered", "Delivered to Repair Shop directly", "Pending Repair Shop Pick-Up"] as const
    ) {
      await a.db.updateTable("parts_orders").set({ status }).where("id", "=", s.parts[1].id).execute();
      await assertRefused(
        a,
        dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)),
        `${s.parts[1].part_no} is no longer available for delivery.`,
      );
    }
    assert.equal(await statusOf(a.db, s.parts[0].id), "Arrived");
  },
);

appTest(
  "parts_drop_off: every way a photo fails to match answers missing its delivery photo (D14)",
  async (a) => {
    const s = await flowSetup(a, { count: 2, status: "Arrived", stage: "direct_dropoff" });
    const [part, sibling] = s.parts;
    const text = `${part.part_no} is missing its delivery photo.`;
    const stage = (opts: Partial<Parameters<typeof stagePhoto>[1]> = {}) =>
      stagePhoto(a, {
        partId: part.id,
        claimId: s.claim.id,
        stage: "direct_dropoff",
        userId: s.user.id,
        ...opts,
      });
    const send = (image: unknown) =>
      dropOffPayload(s.user.email, s.claim.registration, s.shop, [
        { parts_order_id: String(part.id), confirm: true, image_id: image as string },
        ...confirmed([s.pairs[1]]),
      ]);
    const noFile = await stage({ withFile: false });
    const wrongStage = await stage({ stage: "reverse_pickup" });
    const cases: unknown[] = [
      undefined,
      "",
      null,
      "2147483647",
      String(s.images[1]),
      String(noFile.id),
      String(wrongStage.id),
    ];
    for (const image of cases) {
      const payload = send(image);
      if (image === undefined) delete payload.details.parts[0].image_id;
      await assertRefused(a, payload, text);
    }
    assert.equal(await statusOf(a.db, sibling.id), "Arrived");

    // A photo already used by a Deliver_Parts is not used again, even if the part is Arrived once more.
    const used = await a.call(
      dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed([s.pairs[0]])),
    );
    assert.equal(used.result.status, "success");
    await a.db.updateTable("parts_orders").set({ status: "Arrived" }).where("id", "=", part.id).execute();
    a.clock.advance(25 * 60 * 60_000); // past the retry window, so it is not answered as a retry either
    await assertRefused(
      a,
      dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed([s.pairs[0]])),
      text,
    );
  },
);

appTest("parts_drop_off: per part in request order, status before photo", async (a) => {
  const s = await flowSetup(a, { count: 2, status: "Arrived", stage: "direct_dropoff" });
  const [p1, p2] = s.parts;
  await a.db.updateTable("parts_orders").set({ status: "Ordered" }).where("id", "=", p2.id).execute();
  const noPhoto1 = { parts_order_id: String(p1.id), confirm: true, image_id: "" };
  const noPhoto2 = { parts_order_id: String(p2.id), confirm: true, image_id: "" };
  // Part 1 (missing photo) before part 2 (no longer available): the first part's problem wins.
  await assertRefused(
    a,
    dropOffPayload(s.user.email, s.claim.registration, s.shop, [noPhoto1, ...confirmed([s.pairs[1]])]),
    `${p1.part_no} is missing its delivery photo.`,
  );
  // The other way round (part ids decide the lock order, not the answer).
  await assertRefused(
    a,
    dropOffPayload(s.user.email, s.claim.registration, s.shop, [...confirmed([s.pairs[1]]), noPhoto1]),
    `${p2.part_no} is no longer available for delivery.`,
  );
  // One part with both problems: its status first.
  await assertRefused(
    a,
    dropOffPayload(s.user.email, s.claim.registration, s.shop, [noPhoto2]),
    `${p2.part_no} is no longer available for delivery.`,
  );
});

appTest(
  "parts_drop_off: the repair shop must be a known active repairer, checked after the parts (D15)",
  async (a) => {
    const s = await flowSetup(a, { count: 2, status: "Arrived", stage: "direct_dropoff" });
    const closed = await makeRepairer(a.db);
    await a.db.updateTable("repairers").set({ active: false }).where("id", "=", closed.id).execute();
    for (const id of ["2147483647", "", "abc", String(closed.id)]) {
      await assertRefused(
        a,
        dropOffPayload(s.user.email, s.claim.registration, { id }, confirmed(s.pairs)),
        "Choose a repair shop.",
      );
    }
    const payload = dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs));
    delete (payload.details.delivery_location as Record<string, unknown>).id;
    await assertRefused(a, payload, "Choose a repair shop.");
    // A part problem is reported before the shop.
    await a.db.updateTable("parts_orders").set({ status: "Ordered" }).where("id", "=", s.parts[0].id)
      .execute();
    await assertRefused(
      a,
      dropOffPayload(s.user.email, s.claim.registration, { id: "" }, confirmed(s.pairs)),
      `${s.parts[0].part_no} is no longer available for delivery.`,
    );
    // Repair_Shop stores the chosen repairer, not the claim's.
    await a.db.updateTable("parts_orders").set({ status: "Arrived" }).where("id", "=", s.parts[0].id)
      .execute();
    const chosen = await makeRepairer(a.db);
    const ok = await a.call(dropOffPayload(s.user.email, s.claim.registration, chosen, confirmed(s.pairs)));
    const movement = await a.db.selectFrom("parts_movements").select("repairer_id")
      .where("id", "=", ok.result.data!.parts_movement_id as number).executeTakeFirstOrThrow();
    assert.equal(movement.repairer_id, chosen.id);
  },
);

appTest(
  "parts_drop_off: an identical retry answers the original success and writes nothing (D16)",
  async (a) => {
    const s = await flowSetup(a, { count: 2, status: "Arrived", stage: "direct_dropoff" });
    const payload = dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs));
    const first = await a.call(payload);
    assert.equal(first.result.status, "success");
    const after = await writtenCounts(a.db);
    a.clock.advance(23 * 60 * 60_000);
    assert.deepEqual(await a.call(payload), first);
    // Parts in another order are the same submission; the answer follows the request order.
    const reordered = await a.call(
      dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed([...s.pairs].reverse())),
    );
    assert.deepEqual(reordered.result.data, {
      ...first.result.data,
      delivery_parts: [...(first.result.data!.delivery_parts as unknown[])].reverse(),
    });
    assert.deepEqual(await writtenCounts(a.db), after);
  },
);

appTest("parts_drop_off: what is not identical is no retry (user, parts, images, 24 h)", async (a) => {
  const s = await flowSetup(a, { count: 2, status: "Arrived", stage: "direct_dropoff" });
  const text = `${s.parts[0].part_no} is no longer available for delivery.`;
  assert.equal(
    (await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs))))
      .result.status,
    "success",
  );
  const other = await makeUser(a.db);
  await assertRefused(a, dropOffPayload(other.email, s.claim.registration, s.shop, confirmed(s.pairs)), text);
  await assertRefused(
    a,
    dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed([s.pairs[0]])),
    text,
  );
  const fresh = await stagePhoto(a, {
    partId: s.parts[1].id,
    claimId: s.claim.id,
    stage: "direct_dropoff",
    userId: s.user.id,
  });
  await assertRefused(
    a,
    dropOffPayload(
      s.user.email,
      s.claim.registration,
      s.shop,
      confirmed([s.pairs[0], { part: s.parts[1].id, image: fresh.id }]),
    ),
    text,
  );
  a.clock.advance(24 * 60 * 60_000);
  await assertRefused(
    a,
    dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)),
    text,
  );
});

appTest(
  "parts_drop_off: a retry still answers when the rego now resolves to another claim of the vehicle",
  async (a) => {
    const shop = await makeRepairer(a.db);
    const user = await makeUser(a.db);
    const older = await makeClaim(a.db, {
      registration: "XYZ 789",
      createdAt: new Date("2026-01-01T00:00:00Z"),
      parts: [{ status: "Arrived" }],
    });
    const newer = await makeClaim(a.db, { registration: "XYZ-789", parts: [{ status: "Arrived" }] });
    const image = await stagePhoto(a, {
      partId: newer.parts[0].id,
      claimId: newer.claim.id,
      stage: "direct_dropoff",
      userId: user.id,
    });
    const payload = dropOffPayload(
      user.email,
      "xyz789",
      shop,
      confirmed([{ part: newer.parts[0].id, image: image.id }]),
    );
    const first = await a.call(payload);
    assert.equal(first.result.status, "success");
    // Now the older claim is the one with Arrived parts (D11), yet the retry is recognised.
    assert.deepEqual(await a.call(payload), first);
    assert.equal(await statusOf(a.db, older.parts[0].id), "Arrived");
  },
);

appTest("parts_drop_off: the staged row is kept for audit and counted as used", async (a) => {
  const s = await flowSetup(a, { status: "Arrived", stage: "direct_dropoff" });
  await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
  const r = await sql<{ n: number }>`select count(*)::int as n from uploaded_images`.execute(a.db);
  assert.equal(r.rows[0].n, 1);
});
