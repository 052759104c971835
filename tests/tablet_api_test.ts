/**
 * The tablet's JSON endpoints: search per job, photos (2a + 2b in one call), the three submissions with
 * their rule messages next to the part, D16 replays, and the receipt page.
 */
import assert from "node:assert/strict";
import type { PartStatus } from "@/db/schema.ts";
import type { TestApp } from "@/testkit/app.ts";
import { appTest } from "@/testkit/app.ts";
import { makeClaim, makeHq, makeRepairer } from "@/testkit/factories.ts";
import { jpegPhoto, notAPhoto } from "@/testkit/photos.ts";
import { handoversOff } from "@/tests/helpers/handover.ts";
import { makeDriver, Tablet } from "@/tests/helpers/tablet.ts";

async function setup(a: TestApp, statuses: PartStatus[], registration = "ABC123") {
  const hq = await makeHq(a.db, "Crash Claim HQ - Main Depot");
  const shop = await makeRepairer(a.db, "North Smash Repairs");
  const other = await makeRepairer(a.db, "Southside Collision Centre");
  const { claim, parts } = await makeClaim(a.db, {
    registration,
    management: shop.id,
    parts: statuses.map((status, i) => ({ status, part_no: `PN-${i + 1}` })),
  });
  const driver = await makeDriver(a, { name: "Dana Driver" });
  const t = new Tablet(a);
  await t.signIn(driver);
  // The handover step has its own tests (handover_test.ts).
  await handoversOff(a);
  return { hq, shop, other, claim, parts, driver, t };
}

async function json(res: Response, status = 200) {
  assert.equal(res.status, status, await res.clone().text());
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  return await res.json();
}

/** Uploads a photo for each part and returns the parts[] of a submission. */
async function photographed(t: Tablet, job: string, rego: string, partIds: number[]) {
  const items = [];
  for (const id of partIds) {
    const body = await json(await t.uploadPhoto({ job, rego, part_id: id }, await jpegPhoto()));
    items.push({ parts_order_id: id, confirm: true, image_id: body.image_id });
  }
  return items;
}

appTest(
  "tablet api: search for a delivery lists the Arrived parts with their quantity, the claim's repairer, " +
    "and the parts not ready yet with their status in a driver's words",
  async (a) => {
    const { t, shop, parts } = await setup(a, ["Arrived", "Ordered", "Arrived", "Returned to HQ"]);
    await a.db.updateTable("parts_orders").set({ qty_ordered: 4 }).where("id", "=", parts[2].id).execute();
    const found = await json(await t.postJson("/tablet/api/search", { job: "deliver", rego: "abc 123" }));
    assert.deepEqual(found, {
      job: "deliver",
      rego: "abc 123",
      claim_number: found.claim_number,
      parts: [
        { id: parts[0].id, part_no: "PN-1", description: parts[0].description, qty: 1 },
        { id: parts[2].id, part_no: "PN-3", description: parts[2].description, qty: 4 },
      ],
      not_ready: [
        {
          id: parts[1].id,
          part_no: "PN-2",
          description: parts[1].description,
          qty: 1,
          status: "Ordered, not at HQ yet",
        },
        { id: parts[3].id, part_no: "PN-4", description: parts[3].description, qty: 1, status: "Back at HQ" },
      ],
      repairer_id: shop.id,
      repairer_name: "North Smash Repairs",
      handover: { policy: "off", reasons: found.handover.reasons },
    });
  },
);

appTest(
  "tablet api: a rego matching several vehicles answers the handler's message and each rego to pick",
  async (a) => {
    const { t } = await setup(a, ["Arrived"], "KLM-456");
    await makeClaim(a.db, { registration: "456 XYZ", parts: [{ status: "Arrived" }] });
    await makeClaim(a.db, { registration: "Q 4567", parts: [{ status: "Arrived" }] });
    const several = await json(await t.postJson("/tablet/api/search", { job: "deliver", rego: "456" }), 422);
    assert.deepEqual(several, {
      message: "Several vehicles match 456: 456 XYZ, KLM-456, Q 4567. Enter the full rego.",
      regos: ["456 XYZ", "KLM-456", "Q 4567"],
      next_step: "Tap the vehicle you mean, or type the full rego.",
    });
    // Each offered rego finds its one vehicle.
    for (const rego of several.regos) {
      const found = await json(await t.postJson("/tablet/api/search", { job: "deliver", rego }));
      assert.equal(found.rego, rego);
    }
    // Too short is "invalid" too, but names no vehicles.
    assert.deepEqual(
      await json(await t.postJson("/tablet/api/search", { job: "deliver", rego: "4" }), 422),
      { message: "Enter at least 2 characters of the rego." },
    );
  },
);

appTest("tablet api: search answers the exact messages of the handler", async (a) => {
  const { t } = await setup(a, ["Ordered"]);
  await makeClaim(a.db, { registration: "FLT 900", management: false, parts: [{ status: "Arrived" }] });
  // "Rego not found" and "Record not found" stay word for word; the tablet adds what to do next.
  const nextStep =
    "Check the rego on the vehicle and search again. If it is right, call HQ: the claim may not be set up yet.";
  const cases: [string, string, Record<string, string>][] = [
    ["deliver", "ZZZ999", { message: "Rego not found", next_step: nextStep }],
    ["collect", "ZZZ999", { message: "Rego not found", next_step: nextStep }],
    ["deliver", "A", { message: "Enter at least 2 characters of the rego." }],
    ["deliver", "ABC123", { message: "No parts ready for delivery to a repair shop" }],
    ["deliver", "FLT900", { message: "Record not found", next_step: nextStep }],
    ["collect", "ABC123", { message: "No parts flagged for return at a repair shop" }],
    ["return", "ABC123", { message: "Return trip not found." }],
  ];
  for (const [job, rego, answer] of cases) {
    assert.deepEqual(await json(await t.postJson("/tablet/api/search", { job, rego }), 422), answer, rego);
  }
  const bad = await json(await t.postJson("/tablet/api/search", { job: "fly", rego: "ABC123" }), 422);
  assert.match(bad.message, /^Invalid request: job must be one of deliver, collect, return\.$/);
});

appTest(
  "tablet api: a photo is staged for the driver and the flow's stage, and refused when not a photo",
  async (a) => {
    const { t, parts, driver } = await setup(a, ["Arrived", "Ordered"]);
    const body = await json(
      await t.uploadPhoto({ job: "deliver", rego: "ABC123", part_id: parts[0].id }, await jpegPhoto()),
    );
    const row = await a.db.selectFrom("uploaded_images").selectAll().where("id", "=", body.image_id)
      .executeTakeFirstOrThrow();
    assert.equal(row.part_id, parts[0].id);
    assert.equal(row.movement_stage, "direct_dropoff");
    assert.equal(row.uploaded_by, driver.id);
    assert.equal(row.photo_id, body.photo_id);
    // The part is not Arrived: the flow's message, about that part.
    assert.deepEqual(
      await json(
        await t.uploadPhoto({ job: "deliver", rego: "ABC123", part_id: parts[1].id }, await jpegPhoto()),
        422,
      ),
      { message: "PN-2 is no longer available for delivery.", part_id: parts[1].id },
    );
    const refused = await json(
      await t.uploadPhoto({ job: "deliver", rego: "ABC123", part_id: parts[0].id }, await notAPhoto()),
      415,
    );
    assert.equal(refused.message, "The file is not a JPEG, PNG, WebP or HEIC photo.");
    assert.equal(refused.part_id, parts[0].id);
  },
);

appTest(
  "tablet api: a delivery is recorded once; a retry of it answers the same movement (D16)",
  async (a) => {
    const { t, parts, other } = await setup(a, ["Arrived", "Arrived"]);
    const items = await photographed(t, "deliver", "ABC123", [parts[0].id, parts[1].id]);
    const body = { job: "deliver", rego: "ABC123", repairer_id: other.id, parts: items };
    await a.db.updateTable("repairers").set({ emails: ["parts@other.example"] }).where("id", "=", other.id)
      .execute();
    const first = await json(await t.postJson("/tablet/api/movements", body));
    assert.equal(first.receipt_url, `/tablet/movements/${first.movement_id}`);
    const movement = await a.db.selectFrom("parts_movements").selectAll().executeTakeFirstOrThrow();
    assert.equal(movement.id, first.movement_id);
    assert.equal(movement.repairer_id, other.id, "the shop chosen in the dropdown, not the claim's");
    const again = await json(await t.postJson("/tablet/api/movements", body));
    assert.deepEqual(again, first);
    assert.equal((await a.db.selectFrom("parts_movements").selectAll().execute()).length, 1);
    // The chosen shop is e-mailed once, as from the handler (no SMTP here: recorded as not configured).
    const mails = await a.db.selectFrom("announcements").select(["repairer_id", "title", "state"])
      .where("channel", "=", "shop_email").execute();
    assert.deepEqual(mails, [{ repairer_id: other.id, title: "Parts Delivered", state: "feed_only" }]);

    const receipt = await t.request(first.receipt_url);
    assert.equal(receipt.status, 200);
    const html = await receipt.text();
    assert.match(html, /Delivered to the repair shop/);
    assert.match(html, new RegExp(`#${first.movement_id}`));
    assert.match(html, /PN-1/);
    assert.match(html, /Southside Collision Centre/);
    assert.match(html, /src="\/photos\/\d+\/thumb"/);
    assert.match(html, /Finish and sign out/);
  },
);

appTest("tablet api: a rule failure names the part and writes nothing", async (a) => {
  const { t, parts, shop } = await setup(a, ["Arrived", "Arrived"]);
  const items = await photographed(t, "deliver", "ABC123", [parts[0].id, parts[1].id]);
  // The dashboard takes the second part away between the photo and the confirmation.
  await a.db.updateTable("parts_orders").set({ status: "Ordered" }).where("id", "=", parts[1].id).execute();
  const body = { job: "deliver", rego: "ABC123", repairer_id: shop.id, parts: items };
  assert.deepEqual(await json(await t.postJson("/tablet/api/movements", body), 422), {
    message: "PN-2 is no longer available for delivery.",
    part_id: parts[1].id,
  });
  assert.deepEqual(
    await json(
      await t.postJson("/tablet/api/movements", { ...body, repairer_id: null, parts: [items[0]] }),
      422,
    ),
    { message: "Choose a repair shop." },
  );
  assert.deepEqual(
    await json(
      await t.postJson("/tablet/api/movements", { ...body, parts: [{ ...items[0], confirm: false }] }),
      422,
    ),
    { message: "Select at least one part to deliver." },
  );
  assert.equal((await a.db.selectFrom("parts_movements").selectAll().execute()).length, 0);
});

appTest("tablet api: collect, then return to HQ in two drops; the receipts follow the trip", async (a) => {
  const { t, parts, hq } = await setup(
    a,
    ["Pending Repair Shop Pick-Up", "Pending Repair Shop Pick-Up"],
    "XYZ 789",
  );
  const ids = parts.map((p) => p.id);
  const picked = await json(
    await t.postJson("/tablet/api/movements", {
      job: "collect",
      rego: "xyz789",
      parts: await photographed(t, "collect", "xyz789", ids),
    }),
  );
  // Collecting again is refused while the trip is open: return it first.
  const collect = await json(
    await t.postJson("/tablet/api/search", { job: "collect", rego: "XYZ 789" }),
    422,
  );
  assert.equal(collect.switch_to, "return");
  const found = await json(await t.postJson("/tablet/api/search", { job: "return", rego: "XYZ 789" }));
  assert.equal(found.movement_id, picked.movement_id);
  assert.deepEqual(found.hq_location, { id: hq.id, name: hq.name });
  assert.deepEqual(found.parts.map((p: { id: number }) => p.id), ids);

  const first = await photographed(t, "return", "XYZ 789", [ids[0]]);
  const partial = await json(
    await t.postJson("/tablet/api/movements", {
      job: "return",
      rego: "XYZ 789",
      movement_id: picked.movement_id,
      parts: [first[0], { parts_order_id: ids[1], confirm: false, image_id: null }],
    }),
  );
  assert.equal(partial.movement_id, picked.movement_id);
  let html = await (await t.request(partial.receipt_url)).text();
  assert.match(html, /Returned to HQ/);
  assert.match(html, /Parts still on the truck for this trip: 1\./);

  const rest = await photographed(t, "return", "XYZ 789", [ids[1]]);
  await json(
    await t.postJson("/tablet/api/movements", {
      job: "return",
      rego: "XYZ 789",
      movement_id: picked.movement_id,
      parts: rest,
    }),
  );
  html = await (await t.request(partial.receipt_url)).text();
  // The driver reads words of a return trip and "Back at HQ", not the internal "Parts Dropped off" /
  // "Returned to HQ", and never "Delivered" (that is a delivery to a shop).
  assert.match(html, /Movement <strong[^>]*>#\d+<\/strong> · Trip finished, all parts back at HQ/);
  assert.doesNotMatch(html, /Delivered/);
  assert.doesNotMatch(html, /Parts Dropped off/);
  assert.equal(html.match(/Back at HQ/g)?.length, 2);
  assert.doesNotMatch(html, /still on the truck/);
  const statuses = await a.db.selectFrom("parts_orders").select("status").where("id", "in", ids).execute();
  assert.deepEqual(statuses.map((s) => s.status), ["Returned to HQ", "Returned to HQ"]);
  assert.deepEqual(
    await json(await t.postJson("/tablet/api/search", { job: "return", rego: "XYZ 789" }), 422),
    { message: "Return trip not found." },
  );
});

/** The text of the receipt's <dd> after the <dt> named `term`, or undefined when there is no such row. */
function receiptRow(html: string, term: string): string | undefined {
  return new RegExp(`<dt[^>]*>${term}</dt><dd[^>]*>([^<]*)</dd>`).exec(html)?.[1];
}

const captions = (html: string) =>
  [...html.matchAll(/data-testid="photo-caption"[^>]*>([^<]*)</g)].map((m) => m[1]);

appTest(
  "tablet api: collect and return name the shop the parts came from; the return receipt labels its photos " +
    "(pickup, return) and never reads Delivered",
  async (a) => {
    const { t, parts, shop, other } = await setup(
      a,
      ["Pending Repair Shop Pick-Up", "Pending Repair Shop Pick-Up"],
      "XYZ 789",
    );
    const ids = parts.map((p) => p.id);
    const found = await json(await t.postJson("/tablet/api/search", { job: "collect", rego: "XYZ 789" }));
    assert.equal(found.repairer_name, "North Smash Repairs", "the collect screen can name the shop");
    assert.equal(found.repairer_id, shop.id);

    const picked = await json(
      await t.postJson("/tablet/api/movements", {
        job: "collect",
        rego: "XYZ 789",
        parts: await photographed(t, "collect", "XYZ 789", ids),
      }),
    );
    let html = await (await t.request(picked.receipt_url)).text();
    assert.equal(receiptRow(html, "Repair shop"), "North Smash Repairs");
    assert.deepEqual(captions(html), ["Pickup", "Pickup"]);
    assert.match(html, /Movement <strong[^>]*>#\d+<\/strong> · Picked up, on the truck/);

    // The claim moves to another shop while the parts are on the truck: the trip keeps where it began.
    await a.db.updateTable("claim_management").set({ repairer_id: other.id }).execute();
    await json(
      await t.postJson("/tablet/api/movements", {
        job: "return",
        rego: "XYZ 789",
        movement_id: picked.movement_id,
        parts: await photographed(t, "return", "XYZ 789", ids),
      }),
    );
    html = await (await t.request(picked.receipt_url)).text();
    assert.equal(receiptRow(html, "Repair shop"), "North Smash Repairs");
    assert.equal(receiptRow(html, "HQ"), "Crash Claim HQ - Main Depot");
    assert.deepEqual(captions(html), ["Pickup", "Return", "Pickup", "Return"]);
    assert.match(html, /alt="Return photo of PN-1"/);
    assert.match(html, /<h1[^>]*>Returned to HQ<\/h1>/);
    assert.doesNotMatch(html, /Delivered/);
  },
);

appTest("tablet api: a receipt is only for the drivers on the movement (and admins)", async (a) => {
  const { t, parts, shop } = await setup(a, ["Arrived"]);
  const items = await photographed(t, "deliver", "ABC123", [parts[0].id]);
  const { receipt_url } = await json(
    await t.postJson("/tablet/api/movements", {
      job: "deliver",
      rego: "ABC123",
      repairer_id: shop.id,
      parts: items,
    }),
  );
  const sam = new Tablet(a);
  await sam.signIn(await makeDriver(a));
  assert.equal((await sam.request(receipt_url)).status, 404);
  const admin = new Tablet(a);
  await admin.signIn(await makeDriver(a, { role: "admin" }));
  assert.equal((await admin.request(receipt_url)).status, 200);
  assert.equal((await t.request("/tablet/movements/999999")).status, 404);
});

appTest(
  "tablet api: a photo declared over the cap is refused with 413 before a staged row is made",
  async (a) => {
    const { t, parts } = await setup(a, ["Arrived"]);
    const q = new URLSearchParams({ job: "deliver", rego: "ABC123", part_id: String(parts[0].id) });
    const res = await t.request(`/tablet/api/photos?${q}`, {
      method: "POST",
      headers: {
        "content-type": "image/jpeg",
        "x-csrf-token": t.csrf,
        "content-length": String(a.config.maxPhotoBytes + 1),
      },
      body: await jpegPhoto() as Uint8Array<ArrayBuffer>,
    });
    const body = await json(res, 413);
    assert.match(body.message, /^The photo is larger than .+\.$/);
    assert.equal(body.part_id, parts[0].id);
    assert.equal((await a.db.selectFrom("uploaded_images").select("id").execute()).length, 0);
  },
);

appTest(
  "tablet api: a photo whose body breaks off mid-upload is a client abort (400, nothing stored), not a fault",
  async (a) => {
    const { t, parts } = await setup(a, ["Arrived"]);
    const jpeg = await jpegPhoto();
    // The first half arrives, then the stream fails as a dropped connection does.
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(jpeg.slice(0, jpeg.length >> 1));
      },
      pull(controller) {
        controller.error(new Error("connection reset by peer"));
      },
    });
    const q = new URLSearchParams({ job: "deliver", rego: "ABC123", part_id: String(parts[0].id) });
    const res = await t.request(`/tablet/api/photos?${q}`, {
      method: "POST",
      headers: { "content-type": "image/jpeg", "x-csrf-token": t.csrf },
      body: broken,
    });
    assert.equal(res.status, 400, await res.clone().text());
    assert.equal(await res.text(), "The request body was cut off by the client.");
    assert.equal((await a.db.selectFrom("photos").select("id").execute()).length, 0);
  },
);

appTest(
  "tablet api: a driver at the staged-photo quota reads why (409); a retake of a part still replaces",
  async (a) => {
    const { t, parts } = await setup(a, ["Arrived", "Arrived"]);
    await photographed(t, "deliver", "ABC123", [parts[0].id]);
    assert.deepEqual(
      await json(
        await t.uploadPhoto({ job: "deliver", rego: "ABC123", part_id: parts[1].id }, await jpegPhoto()),
        409,
      ),
      {
        message: "Too many of your photos are waiting to be submitted (1, the most one user may have). " +
          "Submit the parts you photographed, then take new photos.",
        part_id: parts[1].id,
      },
    );
    // Retake: the tablet's new photo of the same part replaces the staged one.
    const retaken = await photographed(t, "deliver", "ABC123", [parts[0].id]);
    const rows = await a.db.selectFrom("uploaded_images").select(["id", "replaced_at"])
      .where("photo_id", "is not", null).orderBy("id").execute();
    assert.equal(rows.length, 2);
    assert.notEqual(rows[0].replaced_at, null);
    assert.deepEqual(rows[1], { id: retaken[0].image_id, replaced_at: null });
  },
  { config: { stagedPhotosPerUser: 1 } },
);

appTest(
  "tablet api: a movement naming a photo another driver staged answers the part's missing-photo text",
  async (a) => {
    const { t, parts, shop } = await setup(a, ["Arrived"]);
    const items = await photographed(t, "deliver", "ABC123", [parts[0].id]);
    const other = new Tablet(a);
    await other.signIn(await makeDriver(a, { name: "Sam Other" }));
    const body = { job: "deliver", rego: "ABC123", repairer_id: shop.id, parts: items };
    assert.deepEqual(await json(await other.postJson("/tablet/api/movements", body), 422), {
      message: "PN-1 is missing its delivery photo.",
      part_id: parts[0].id,
    });
    assert.equal((await a.db.selectFrom("parts_movements").selectAll().execute()).length, 0);
    await json(await t.postJson("/tablet/api/movements", body));
  },
);

appTest(
  "tablet api: a full staging is a refusal on the photo (409), not a 5xx the queue would retry ahead of the driver's movements",
  async (a) => {
    const { t, parts } = await setup(a, ["Arrived"]);
    const res = await t.uploadPhoto(
      { job: "deliver", rego: "ABC123", part_id: parts[0].id },
      await jpegPhoto(),
    );
    assert.deepEqual(await json(res, 409), {
      message:
        "The server holds as many photos waiting to be submitted as it may; the photo was not stored. " +
        "Submit waiting movements, or try again later.",
      part_id: parts[0].id,
    });
  },
  { config: { stagedPhotoBytesTotal: 1000 } },
);
