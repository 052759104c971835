import assert from "node:assert/strict";
import fc from "@/tests/helpers/fast_check.ts";
import { importData } from "@/lib/import.ts";
import type { PartOrder } from "@/db/schema.ts";
import { DEMO_DATA_URL } from "@/lib/demo_data.ts";
import { appTest, type HandlerAnswer, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeHq, makePhoto, makeRepairer, makeUser } from "@/testkit/factories.ts";

async function driver(a: TestApp) {
  return (await makeUser(a.db, { role: "driver" })).email;
}

const search = (email: string, rego: unknown, movement_type: unknown = "direct") => ({
  event_type: "Parts_search_details",
  user_email: email,
  details: { rego, movement_type },
});

/** Searches over the handler and returns the parsed answer, asserting HTTP 200 JSON first. */
async function searchAnswer(a: TestApp, rego: string, movementType: "direct" | "reverse") {
  const res = await a.handler(search(await driver(a), rego, movementType));
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^application\/json/);
  return await res.json() as HandlerAnswer;
}

async function expectSearchData(a: TestApp, rego: string, movementType: "direct" | "reverse") {
  const body = await searchAnswer(a, rego, movementType);
  assert.equal(body.code, 3000);
  assert.equal(body.result.status, "success", `expected success, got: ${body.result.text}`);
  // deno-lint-ignore no-explicit-any
  return body.result.data as any;
}

async function expectSearchFailure(
  a: TestApp,
  rego: string,
  movementType: "direct" | "reverse",
  text: string,
) {
  const body = await searchAnswer(a, rego, movementType);
  assert.deepEqual(body, { result: { status: "failure", text }, code: 3000 });
}

/**
 * A reverse movement of the claim with Deliver_Parts rows for `parts`: `returned` parts already dropped at
 * HQ (leg 2 done for them). `complete` makes the trip `Parts Dropped off`.
 */
async function makeReverseTrip(
  a: TestApp,
  claimId: number,
  parts: { part: PartOrder; returned?: boolean }[],
  opts: { complete?: boolean; hqName?: string } = {},
) {
  const user = await makeUser(a.db);
  const hq = await makeHq(a.db, opts.hqName);
  const at = a.clock.now();
  const movement = await a.db.insertInto("parts_movements").values({
    claim_id: claimId,
    movement_type: "reverse",
    movement_status: opts.complete ? "Parts Dropped off" : "Parts Picked Up",
    picked_up_by: user.id,
    pick_up_at: at,
    dropped_off_by: opts.complete ? user.id : null,
    dropped_off_at: opts.complete ? at : null,
    location_type: "HQ",
    hq_location_id: hq.id,
  }).returningAll().executeTakeFirstOrThrow();
  const deliveries = [];
  for (const { part, returned } of parts) {
    const photo = await makePhoto(a.db, a.storage);
    deliveries.push(
      await a.db.insertInto("deliver_parts").values({
        movement_id: movement.id,
        part_id: part.id,
        pickup: true,
        delivery: returned ?? false,
        qty_ordered: part.qty_ordered,
        pickup_photo_id: photo.id,
        delivery_photo_id: returned ? photo.id : null,
      }).returningAll().executeTakeFirstOrThrow(),
    );
  }
  return { movement, hq, deliveries };
}

// ---------------------------------------------------------------------------------------------------------
// Direct

appTest(
  "Parts_search_details direct: answers the repairer, echoed rego and the Arrived parts, IDs as numbers",
  async (a) => {
    const email = await driver(a);
    const shop = await makeRepairer(a.db);
    const { parts } = await makeClaim(a.db, {
      registration: "ABC 123",
      management: shop.id,
      parts: [{ status: "Arrived", description: "Front bumper" }, { status: "Ordered" }, {
        status: "Arrived",
      }],
    });
    const res = await a.handler(search(email, "abc-123"));
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^application\/json/);
    const body = await res.json();
    assert.equal(body.code, 3000);
    assert.equal(body.result.status, "success");
    const data = body.result.data;
    assert.equal(data.repairer, shop.id);
    assert.equal(data.form_name, "pickup");
    assert.equal(data.movement_type, "direct");
    assert.equal(data.rego, "abc-123");
    assert.deepEqual(
      data.parts_list.map((p: Record<string, unknown>) => [p.parts_order_id, p.description, p.order_status]),
      [[parts[0].id, "Front bumper", "Arrived"], [parts[2].id, parts[2].description, "Arrived"]],
    );
    assert.equal(typeof data.parts_list[0].parts_order_id, "number");
  },
);

appTest("Parts_search_details direct: a rego no claim matches answers Rego not found", async (a) => {
  await makeClaim(a.db, { registration: "ABC 123", parts: [{ status: "Arrived" }] });
  await expectSearchFailure(a, "QQQ999", "direct", "Rego not found");
});

appTest(
  "Parts_search_details direct: a claim without a management record answers Record not found",
  async (a) => {
    await makeClaim(a.db, { registration: "FLT 900", management: false, parts: [{ status: "Arrived" }] });
    await expectSearchFailure(a, "FLT900", "direct", "Record not found");
  },
);

appTest(
  "Parts_search_details direct: a claim with no Arrived part answers No parts ready for delivery to a repair shop",
  async (a) => {
    await makeClaim(a.db, {
      registration: "NOP 111",
      parts: [
        { status: "Ordered" },
        { status: "Delivered to Repair Shop directly" },
        { status: "Pending Repair Shop Pick-Up" },
        { status: "Picked Up from Repair Shop" },
        { status: "Returned to HQ" },
      ],
    });
    await expectSearchFailure(a, "NOP 111", "direct", "No parts ready for delivery to a repair shop");
  },
);

appTest(
  "Parts_search_details direct: a management record without repairer answers repairer null (D12)",
  async (a) => {
    await makeClaim(a.db, { registration: "LOAN22", management: null, parts: [{ status: "Arrived" }] });
    const data = await expectSearchData(a, "LOAN22", "direct");
    assert.ok(Object.hasOwn(data, "repairer"), "repairer must be present");
    assert.equal(data.repairer, null);
    assert.equal(data.parts_list.length, 1);
  },
);

appTest(
  "Parts_search_details direct: only Arrived parts are listed, each with its ID as a number",
  async (a) => {
    const { parts } = await makeClaim(a.db, {
      registration: "ABC123",
      parts: [
        { status: "Ordered" },
        { status: "Arrived" },
        { status: "Delivered to Repair Shop directly" },
        { status: "Pending Repair Shop Pick-Up" },
        { status: "Arrived" },
        { status: "Picked Up from Repair Shop" },
        { status: "Returned to HQ" },
      ],
    });
    const data = await expectSearchData(a, "ABC123", "direct");
    assert.deepEqual(data.parts_list.map((p: { parts_order_id: number }) => p.parts_order_id), [
      parts[1].id,
      parts[4].id,
    ]);
    for (const item of data.parts_list) {
      assert.equal(typeof item.parts_order_id, "number");
      assert.equal(typeof item.description, "string");
      assert.equal(item.order_status, "Arrived");
    }
    assert.equal(typeof data.repairer, "number");
  },
);

// ---------------------------------------------------------------------------------------------------------
// Reverse

appTest(
  "Parts_search_details reverse: Pending parts answer the pickup stage without hq_location or parts_movement_id",
  async (a) => {
    const { parts } = await makeClaim(a.db, {
      registration: "XYZ 789",
      parts: [
        { status: "Pending Repair Shop Pick-Up", description: "Right door mirror" },
        { status: "Arrived" },
        { status: "Pending Repair Shop Pick-Up", description: "Grille emblem" },
      ],
    });
    const data = await expectSearchData(a, "xyz789", "reverse");
    assert.equal(data.form_name, "pickup");
    assert.equal(data.movement_type, "reverse");
    assert.equal(data.rego, "xyz789");
    assert.equal(data.stage, "pickup");
    assert.deepEqual(
      data.parts_list.map((p: Record<string, unknown>) => [p.parts_order_id, p.description]),
      [[parts[0].id, "Right door mirror"], [parts[2].id, "Grille emblem"]],
    );
    assert.equal(typeof data.parts_list[0].parts_order_id, "number");
    assert.ok(!("hq_location" in data));
    assert.ok(!("parts_movement_id" in data));
  },
);

appTest("Parts_search_details reverse: a rego no claim matches answers Rego not found", async (a) => {
  await expectSearchFailure(a, "XYZ789", "reverse", "Rego not found");
});

appTest(
  "Parts_search_details reverse: no open trip and no Pending part answers No parts flagged for return at a repair shop",
  async (a) => {
    await makeClaim(a.db, {
      registration: "XYZ 789",
      parts: [{ status: "Arrived" }, { status: "Delivered to Repair Shop directly" }, {
        status: "Returned to HQ",
      }],
    });
    await expectSearchFailure(a, "XYZ 789", "reverse", "No parts flagged for return at a repair shop");
  },
);

appTest(
  "Parts_search_details reverse: a claim without a management record still answers the pickup stage",
  async (a) => {
    await makeClaim(a.db, {
      registration: "XYZ 789",
      management: false,
      parts: [{ status: "Pending Repair Shop Pick-Up" }],
    });
    const data = await expectSearchData(a, "XYZ 789", "reverse");
    assert.equal(data.stage, "pickup");
  },
);

appTest(
  "Parts_search_details reverse: a latest trip still Parts Picked Up answers the dropoff stage with what is still on the truck (D12)",
  async (a) => {
    const { claim, parts } = await makeClaim(a.db, {
      registration: "KLM-456",
      parts: [
        { status: "Picked Up from Repair Shop", description: "Left quarter panel", part_no: "61111-0K900" },
        { status: "Returned to HQ", description: "Dashboard cowl", part_no: "55700-0K010" },
        { status: "Picked Up from Repair Shop", description: "Tail lamp", part_no: "81560-0K230" },
        // Flagged for return after the trip: the open trip still wins (leg 2 first).
        { status: "Pending Repair Shop Pick-Up" },
      ],
    });
    const { movement, hq, deliveries } = await makeReverseTrip(a, claim.id, [
      { part: parts[0] },
      { part: parts[1], returned: true },
      { part: parts[2] },
    ], { hqName: "Crash Claim HQ - Main Depot" });
    const data = await expectSearchData(a, "klm456", "reverse");
    assert.equal(data.form_name, "dropoff");
    assert.equal(data.movement_type, "reverse");
    assert.equal(data.rego, "klm456");
    assert.equal(data.stage, "dropoff");
    assert.deepEqual(data.hq_location, { id: hq.id, name: "Crash Claim HQ - Main Depot" });
    assert.equal(data.parts_movement_id, movement.id);
    assert.equal(typeof data.parts_movement_id, "number");
    assert.equal(typeof data.hq_location.id, "number");
    assert.deepEqual(
      data.parts_list.map((p: Record<string, unknown>) => ({
        delivery_id: p.delivery_id,
        parts_order_id: p.parts_order_id,
        description: p.description,
        part_no: p.part_no,
      })),
      [
        {
          delivery_id: deliveries[0].id,
          parts_order_id: parts[0].id,
          description: "Left quarter panel",
          part_no: "61111-0K900",
        },
        {
          delivery_id: deliveries[2].id,
          parts_order_id: parts[2].id,
          description: "Tail lamp",
          part_no: "81560-0K230",
        },
      ],
    );
    for (const item of data.parts_list) {
      assert.equal(typeof item.delivery_id, "number");
      assert.equal(typeof item.parts_order_id, "number");
    }
  },
);

appTest("Parts_search_details reverse: a completed latest trip falls back to the pickup stage", async (a) => {
  const { claim, parts } = await makeClaim(a.db, {
    registration: "KLM-456",
    parts: [{ status: "Returned to HQ" }, { status: "Pending Repair Shop Pick-Up" }],
  });
  await makeReverseTrip(a, claim.id, [{ part: parts[0], returned: true }], { complete: true });
  const data = await expectSearchData(a, "KLM 456", "reverse");
  assert.equal(data.stage, "pickup");
  assert.equal(data.form_name, "pickup");
  assert.deepEqual(data.parts_list.map((p: { parts_order_id: number }) => p.parts_order_id), [parts[1].id]);
  assert.ok(!("parts_movement_id" in data));
});

appTest(
  "Parts_search_details reverse: only the latest reverse trip counts (an older open trip does not answer dropoff)",
  async (a) => {
    const { claim, parts } = await makeClaim(a.db, {
      registration: "KLM-456",
      parts: [{ status: "Picked Up from Repair Shop" }, { status: "Returned to HQ" }],
    });
    await makeReverseTrip(a, claim.id, [{ part: parts[0] }]);
    await makeReverseTrip(a, claim.id, [{ part: parts[1], returned: true }], { complete: true });
    await expectSearchFailure(a, "KLM-456", "reverse", "No parts flagged for return at a repair shop");
  },
);

// ---------------------------------------------------------------------------------------------------------
// Rego matching (D11)

appTest(
  "Parts_search_details D11: the rego is trimmed and compared without case, spaces or hyphens on both sides",
  async (a) => {
    const { parts } = await makeClaim(a.db, { registration: "ABC 123", parts: [{ status: "Arrived" }] });
    for (const rego of ["abc-123", "  ABC123  ", "a b-c 1-2 3", "Abc - 123"]) {
      const data = await expectSearchData(a, rego, "direct");
      assert.deepEqual(data.parts_list.map((p: { parts_order_id: number }) => p.parts_order_id), [
        parts[0].id,
      ], rego);
    }
  },
);

appTest("Parts_search_details D11: a contains-match finds the claim from part of the rego", async (a) => {
  const { parts } = await makeClaim(a.db, { registration: "GHJ-4567", parts: [{ status: "Arrived" }] });
  const data = await expectSearchData(a, "j456", "direct");
  assert.equal(data.parts_list[0].parts_order_id, parts[0].id);
});

appTest("Parts_search_details D11: % in the rego matches itself, not everything", async (a) => {
  await makeClaim(a.db, { registration: "ABC 123", parts: [{ status: "Arrived" }] });
  await makeClaim(a.db, { registration: "AXY 919", parts: [{ status: "Arrived" }] });
  await expectSearchFailure(a, "A%1", "direct", "Rego not found");
  await expectSearchFailure(a, "AB%1", "direct", "Rego not found");
  const { parts } = await makeClaim(a.db, { registration: "XAB%1 Z", parts: [{ status: "Arrived" }] });
  const data = await expectSearchData(a, "AB%1", "direct");
  assert.equal(data.parts_list[0].parts_order_id, parts[0].id);
});

appTest("Parts_search_details D11: _ in the rego matches itself, not any one character", async (a) => {
  await makeClaim(a.db, { registration: "ABC1", parts: [{ status: "Arrived" }] });
  await expectSearchFailure(a, "AB_1", "direct", "Rego not found");
  const { parts } = await makeClaim(a.db, { registration: "TR_77", parts: [{ status: "Arrived" }] });
  const data = await expectSearchData(a, "R_77", "direct");
  assert.equal(data.parts_list[0].parts_order_id, parts[0].id);
  const exact = await expectSearchData(a, "tr_77", "direct");
  assert.equal(exact.parts_list[0].parts_order_id, parts[0].id);
});

appTest("Parts_search_details D11: a backslash in the rego matches itself", async (a) => {
  await makeClaim(a.db, { registration: "AB12", parts: [{ status: "Arrived" }] });
  await expectSearchFailure(a, "AB1\\", "direct", "Rego not found");
  await expectSearchFailure(a, "\\\\\\\\", "direct", "Rego not found");
  const { parts } = await makeClaim(a.db, { registration: "XQ\\W 5", parts: [{ status: "Arrived" }] });
  const data = await expectSearchData(a, "q\\w5", "direct");
  assert.equal(data.parts_list[0].parts_order_id, parts[0].id);
});

appTest(
  "Parts_search_details D11: fewer than 2 characters after normalising asks for at least 2",
  async (a) => {
    await makeClaim(a.db, { registration: "ABC 123", parts: [{ status: "Arrived" }] });
    for (const rego of ["", "A", "  a  ", " - ", "-1-", "  "]) {
      for (const flow of ["direct", "reverse"] as const) {
        await expectSearchFailure(a, rego, flow, "Enter at least 2 characters of the rego.");
      }
    }
  },
);

appTest(
  "Parts_search_details D30: on the handler a rego of 2 or 3 characters matches only a whole registration",
  async (a) => {
    const made = [];
    for (const reg of ["AB 123", "XAB 99", "KAB 1"]) {
      made.push(await makeClaim(a.db, { registration: reg, parts: [{ status: "Arrived" }] }));
    }
    const user = await makeUser(a.db);
    // Part of several registrations: the protocol's no-match answers, naming none of them, on the search,
    // the upload token and a submission alike.
    for (const rego of ["ab", "AB1", "b-12", "K A"]) {
      for (const flow of ["direct", "reverse"] as const) {
        await expectSearchFailure(a, rego, flow, "Rego not found");
      }
      const token = await a.call({
        event_type: "parts_movement_upload_token",
        Parts_Order: made[0].parts[0].id,
        Movement_Stage: "direct_dropoff",
        rego,
        user_email: user.email,
      });
      assert.equal(token.result.text, "Rego not found", rego);
      const dropOff = await a.call({
        event_type: "parts_drop_off",
        user_email: user.email,
        details: {
          rego,
          movement_type: "direct",
          delivery_location: { id: "1" },
          parts: [{ parts_order_id: made[0].parts[0].id, confirm: true, image_id: "1" }],
        },
      });
      assert.equal(dropOff.result.text, "Claim not found.", rego);
    }
    // A short registration typed whole is still found.
    const { parts } = await makeClaim(a.db, { registration: "Q7", parts: [{ status: "Arrived" }] });
    const data = await expectSearchData(a, "q 7", "direct");
    assert.equal(data.parts_list[0].parts_order_id, parts[0].id);
    // From 4 characters on, a part of a registration matches (D11).
    const found = await expectSearchData(a, "b123", "direct");
    assert.equal(found.parts_list[0].parts_order_id, made[0].parts[0].id);
  },
);

appTest("Parts_search_details D11: an exact match wins over contains-matches", async (a) => {
  const { parts } = await makeClaim(a.db, { registration: "AB 12", parts: [{ status: "Arrived" }] });
  await makeClaim(a.db, { registration: "XAB12", parts: [{ status: "Arrived" }] });
  await makeClaim(a.db, { registration: "AB123", parts: [{ status: "Arrived" }] });
  const data = await expectSearchData(a, "ab-12", "direct");
  assert.deepEqual(data.parts_list.map((p: { parts_order_id: number }) => p.parts_order_id), [parts[0].id]);
});

appTest(
  "Parts_search_details D11: a rego matching several vehicles names them and asks for the full rego",
  async (a) => {
    await makeClaim(a.db, { registration: "DEF 4567", parts: [{ status: "Arrived" }] });
    await makeClaim(a.db, { registration: "GHJ4567", parts: [{ status: "Arrived" }] });
    await makeClaim(a.db, { registration: "ZZZ 111", parts: [{ status: "Arrived" }] });
    for (const flow of ["direct", "reverse"] as const) {
      await expectSearchFailure(
        a,
        "4567",
        flow,
        "Several vehicles match 4567: DEF 4567, GHJ4567. Enter the full rego.",
      );
    }
  },
);

appTest("Parts_search_details D11: ABC 123 and abc-123 are one vehicle, not several", async (a) => {
  await makeClaim(a.db, {
    registration: "ABC 123",
    parts: [{ status: "Arrived" }],
    createdAt: new Date("2026-01-01T00:00:00Z"),
  });
  const { parts } = await makeClaim(a.db, {
    registration: "abc-123",
    parts: [{ status: "Arrived" }],
    createdAt: new Date("2026-02-01T00:00:00Z"),
  });
  // A contains-match on both spellings: still one vehicle.
  const data = await expectSearchData(a, "BC12", "direct");
  assert.deepEqual(data.parts_list.map((p: { parts_order_id: number }) => p.parts_order_id), [parts[0].id]);
});

appTest(
  "Parts_search_details D11: among claims of one vehicle the newest with work for the flow wins",
  async (a) => {
    const older = await makeClaim(a.db, {
      registration: "DEF 456",
      parts: [{ status: "Arrived" }, { status: "Pending Repair Shop Pick-Up" }],
      createdAt: new Date("2026-01-01T00:00:00Z"),
    });
    const newer = await makeClaim(a.db, {
      registration: "def-456",
      parts: [{ status: "Delivered to Repair Shop directly" }],
      createdAt: new Date("2026-03-01T00:00:00Z"),
    });
    // Inserted last but created in between: order is by creation time, not by insertion.
    const middle = await makeClaim(a.db, {
      registration: "DEF456",
      parts: [{ status: "Arrived" }],
      createdAt: new Date("2026-02-01T00:00:00Z"),
    });
    const direct = await expectSearchData(a, "DEF 456", "direct");
    assert.deepEqual(direct.parts_list.map((p: { parts_order_id: number }) => p.parts_order_id), [
      middle.parts[0].id,
    ]);
    const reverse = await expectSearchData(a, "DEF 456", "reverse");
    assert.deepEqual(reverse.parts_list.map((p: { parts_order_id: number }) => p.parts_order_id), [
      older.parts[1].id,
    ]);
    assert.ok(newer.claim.id > older.claim.id);
  },
);

appTest("Parts_search_details D11: an open return trip is work for the reverse flow", async (a) => {
  const older = await makeClaim(a.db, {
    registration: "KLM 456",
    parts: [{ status: "Picked Up from Repair Shop" }],
    createdAt: new Date("2026-01-01T00:00:00Z"),
  });
  await makeClaim(a.db, {
    registration: "KLM-456",
    parts: [{ status: "Arrived" }],
    createdAt: new Date("2026-02-01T00:00:00Z"),
  });
  const { movement } = await makeReverseTrip(a, older.claim.id, [{ part: older.parts[0] }]);
  const data = await expectSearchData(a, "KLM456", "reverse");
  assert.equal(data.stage, "dropoff");
  assert.equal(data.parts_movement_id, movement.id);
});

appTest(
  "Parts_search_details D11: when no claim of the vehicle has work, the newest answers (and its error)",
  async (a) => {
    await makeClaim(a.db, {
      registration: "NOP 111",
      management: false,
      parts: [{ status: "Ordered" }],
      createdAt: new Date("2026-03-01T00:00:00Z"),
    });
    await makeClaim(a.db, {
      registration: "NOP-111",
      parts: [{ status: "Ordered" }],
      createdAt: new Date("2026-01-01T00:00:00Z"),
    });
    // The newest has no management record: its error shows it was the one chosen.
    await expectSearchFailure(a, "nop111", "direct", "Record not found");
    await expectSearchFailure(a, "nop111", "reverse", "No parts flagged for return at a repair shop");
  },
);

appTest(
  "Parts_search_details D11: property: any spacing and case of a registration finds its claim",
  async (a) => {
    const email = await driver(a);
    const used = new Set<string>();
    const alnum = fc.constantFrom(..."ABCDEFGHJKLMNPQRSTUVWXYZ0123456789".split(""));
    const separators = fc.array(fc.constantFrom("", "", " ", "-", "  ", " - "), {
      minLength: 12,
      maxLength: 12,
    });
    const spell = (chars: string[], seps: string[], lower: boolean[]) =>
      chars.map((c, i) => (lower[i] ? c.toLowerCase() : c) + (i < chars.length - 1 ? seps[i] : "")).join("");
    await fc.assert(
      fc.asyncProperty(
        fc.array(alnum, { minLength: 2, maxLength: 10 }),
        separators,
        separators,
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        fc.constantFrom("", " ", "  "),
        async (chars, storedSeps, typedSeps, lower, pad) => {
          const norm = chars.join("");
          fc.pre(!used.has(norm));
          used.add(norm);
          const registration = spell(chars, storedSeps, chars.map(() => false));
          const typed = pad + spell(chars, typedSeps, lower) + pad;
          const { parts } = await makeClaim(a.db, { registration, parts: [{ status: "Arrived" }] });
          const body = await a.call(search(email, typed));
          assert.equal(body.result.status, "success", `${typed} → ${registration}: ${body.result.text}`);
          const list = body.result.data!.parts_list as { parts_order_id: number }[];
          assert.deepEqual(list.map((p) => p.parts_order_id), [parts[0].id]);
        },
      ),
      { numRuns: 40 },
    );
  },
);

// ---------------------------------------------------------------------------------------------------------
// The demo data (D4) answers as docs/protocol.md shows

appTest(
  "Parts_search_details on the demo data: ABC123 direct and XYZ 789 reverse answer as docs/protocol.md shows",
  async (a) => {
    await importData(a.db, JSON.parse(await Deno.readTextFile(DEMO_DATA_URL)), a.clock);
    const ids = async (claimNumber: string) =>
      await a.db.selectFrom("parts_orders as p").innerJoin("claims as c", "c.id", "p.claim_id")
        .select(["p.id", "p.part_no"]).where("c.claim_number", "=", claimNumber).execute()
        .then((rows) => new Map(rows.map((r) => [r.part_no, r.id])));
    const north = await a.db.selectFrom("repairers").select("id").where("name", "=", "North Smash Repairs")
      .executeTakeFirstOrThrow();

    const direct = await expectSearchData(a, "ABC123", "direct");
    const abc = await ids("CLM-1001");
    assert.deepEqual(
      {
        repairer: direct.repairer,
        form_name: direct.form_name,
        movement_type: direct.movement_type,
        rego: direct.rego,
        parts_list: direct.parts_list.map((p: Record<string, unknown>) => ({
          parts_order_id: p.parts_order_id,
          description: p.description,
          order_status: p.order_status,
        })),
      },
      {
        repairer: north.id,
        form_name: "pickup",
        movement_type: "direct",
        rego: "ABC123",
        parts_list: [
          {
            parts_order_id: abc.get("52119-0K040"),
            description: "Front bumper cover",
            order_status: "Arrived",
          },
          {
            parts_order_id: abc.get("81110-0K530"),
            description: "Left headlamp assembly",
            order_status: "Arrived",
          },
        ],
      },
    );

    const reverse = await expectSearchData(a, "XYZ 789", "reverse");
    const xyz = await ids("CLM-1002");
    assert.deepEqual(
      {
        form_name: reverse.form_name,
        movement_type: reverse.movement_type,
        rego: reverse.rego,
        stage: reverse.stage,
        parts_list: reverse.parts_list.map((p: Record<string, unknown>) => ({
          parts_order_id: p.parts_order_id,
          description: p.description,
        })),
      },
      {
        form_name: "pickup",
        movement_type: "reverse",
        rego: "XYZ 789",
        stage: "pickup",
        parts_list: [
          { parts_order_id: xyz.get("87940-0K010"), description: "Right door mirror" },
          { parts_order_id: xyz.get("75310-0K020"), description: "Grille emblem" },
        ],
      },
    );
    assert.ok(!("hq_location" in reverse) && !("parts_movement_id" in reverse));
  },
);

appTest(
  "Parts_search_details: past five matching vehicles the message names five, then says 'and more'",
  async (a) => {
    for (const reg of ["QQ1 001", "QQ1 002", "QQ1 003", "QQ1 004", "QQ1 005", "QQ1 006", "QQ1 007"]) {
      await makeClaim(a.db, { registration: reg, parts: [{ status: "Arrived" }] });
    }
    await expectSearchFailure(
      a,
      "qq1 0",
      "direct",
      "Several vehicles match qq1 0: QQ1 001, QQ1 002, QQ1 003, QQ1 004, QQ1 005 and more. Enter the full rego.",
    );
  },
);
