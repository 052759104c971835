/**
 * Proof of handover through the tablet API (docs/handover.md): the policy per job in the search answer, the
 * handover recorded with its movement under each policy, its digest, every refusal writing nothing, the
 * images' ownership and single use, and the mobile app's path unchanged.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { PartStatus } from "@/db/schema.ts";
import { handoverDigest, handoverText } from "@/lib/handover/digest.ts";
import { SIGNATURE_MAX_BYTES } from "@/lib/handover/images.ts";
import type { TestApp } from "@/testkit/app.ts";
import { appTest, serverAppTest } from "@/testkit/app.ts";
import { makeClaim, makeHq, makeRepairer, stagePhoto } from "@/testkit/factories.ts";
import { dropOffPayload } from "@/testkit/movements.ts";
import { jpegPhoto, loadFixture } from "@/testkit/photos.ts";
import {
  json,
  leftPhoto,
  photographed,
  setPolicies,
  signature,
  signaturePng,
} from "@/tests/helpers/handover.ts";
import { makeDriver, Tablet } from "@/tests/helpers/tablet.ts";
import { lockWaiters, whileHolding } from "@/tests/helpers/races.ts";

async function setup(a: TestApp, status: PartStatus, registration = "ABC123") {
  await makeHq(a.db, "Crash Claim HQ - Main Depot");
  const shop = await makeRepairer(a.db, "North Smash Repairs");
  const { parts } = await makeClaim(a.db, {
    registration,
    management: shop.id,
    parts: [{ status, part_no: "PN-1" }, { status, part_no: "PN-2" }],
  });
  const driver = await makeDriver(a, { name: "Dana Driver" });
  const t = new Tablet(a);
  await t.signIn(driver);
  return { shop, parts, driver, t };
}

/** Counts of what a submission writes: movements, handovers, handover images taken. */
async function written(a: TestApp) {
  const count = async (table: "parts_movements" | "handovers") =>
    (await a.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow())
      .n;
  const used = await a.db.selectFrom("handover_images").select("id").where("movement_id", "is not", null)
    .execute();
  return {
    movements: Number(await count("parts_movements")),
    handovers: Number(await count("handovers")),
    used: used.length,
  };
}

/** The digest recomputed from the database's own rows, as docs/handover.md "Digest" defines it. */
async function expectedDigest(
  a: TestApp,
  movementId: number,
  leg: "direct_dropoff" | "reverse_pickup" | "reverse_dropoff",
  /** The parts the handover was signed for (all of the movement's when not given). */
  partIds?: number[],
) {
  const h = await a.db.selectFrom("handovers").selectAll().where("movement_id", "=", movementId)
    .where("leg", "=", leg).executeTakeFirstOrThrow();
  const key = async (id: number | null) =>
    id === null ? null : (await a.db.selectFrom("photos").select("storage_key").where("id", "=", id)
      .executeTakeFirstOrThrow()).storage_key;
  const rows = (await a.db.selectFrom("deliver_parts").selectAll().where("movement_id", "=", movementId)
    .execute()).filter((r) => !partIds || partIds.includes(r.part_id));
  const parts = [];
  for (const r of rows) {
    const photo = leg === "reverse_dropoff" ? r.delivery_photo_id : r.pickup_photo_id;
    parts.push({ partId: r.part_id, sha256: await key(photo) });
  }
  return {
    row: h,
    digest: handoverDigest({
      movementId,
      leg,
      parts,
      signatureSha256: await key(h.signature_photo_id),
      leftSha256: await key(h.left_photo_id),
    }),
  };
}

appTest(
  "handover: the search answers each job's policy (defaults) and the reasons for nobody to sign",
  async (a) => {
    const { t } = await setup(a, "Arrived");
    const found = await json(await t.postJson("/tablet/api/search", { job: "deliver", rego: "ABC123" }));
    assert.deepEqual(found.handover, {
      policy: "required",
      reasons: [
        { key: "shop_closed", label: "Shop closed" },
        { key: "left_at_agreed_place", label: "Left at the agreed place" },
        { key: "receiver_refused", label: "Receiver refused to sign" },
      ],
    });
    await setPolicies(a, { direct_dropoff: "optional" });
    const again = await json(await t.postJson("/tablet/api/search", { job: "deliver", rego: "ABC123" }));
    assert.equal(again.handover.policy, "optional");
  },
);

appTest(
  "handover: required — a delivery without it is refused and writes nothing; with it, recorded with its digest",
  async (a) => {
    const { t, parts, shop, driver } = await setup(a, "Arrived");
    const items = await photographed(t, "deliver", "ABC123", parts.map((p) => p.id));
    const body = { job: "deliver", rego: "ABC123", repairer_id: shop.id, parts: items };
    assert.deepEqual(await json(await t.postJson("/tablet/api/movements", body), 422), {
      message: "This job needs the receiver's name and signature.",
    });
    const left = await leftPhoto(t);
    assert.deepEqual(
      await json(
        await t.postJson("/tablet/api/movements", {
          ...body,
          handover: { unsigned_reason: "shop_closed", left_image_id: left },
        }),
        422,
      ),
      {
        message: 'This job needs the receiver\'s name and signature. "Nobody to sign" is not allowed for it.',
      },
    );
    assert.deepEqual(await written(a), { movements: 0, handovers: 0, used: 0 });

    const sig = await signature(t);
    const handover = { receiver_name: "  Sam Shopkeeper ", signature_image_id: sig };
    const done = await json(await t.postJson("/tablet/api/movements", { ...body, handover }));
    const { row, digest } = await expectedDigest(a, done.movement_id, "direct_dropoff");
    assert.equal(row.receiver_name, "Sam Shopkeeper");
    assert.equal(row.recorded_by, driver.id);
    assert.equal(row.unsigned_reason, null);
    assert.match(row.digest, /^[0-9a-f]{64}$/);
    assert.equal(row.digest, digest);
    assert.deepEqual(await written(a), { movements: 1, handovers: 1, used: 1 });

    // A retry of the applied submission (D16) answers the same movement and records nothing again.
    assert.deepEqual(await json(await t.postJson("/tablet/api/movements", { ...body, handover })), done);
    assert.deepEqual(await written(a), { movements: 1, handovers: 1, used: 1 });
  },
);

appTest(
  "handover: optional — a return to HQ with nobody to sign keeps the reason and the left-at photo",
  async (a) => {
    const { t, parts } = await setup(a, "Pending Repair Shop Pick-Up", "XYZ 789");
    const ids = parts.map((p) => p.id);
    await setPolicies(a, { reverse_pickup: "off" });
    const picked = await json(
      await t.postJson("/tablet/api/movements", {
        job: "collect",
        rego: "XYZ 789",
        parts: await photographed(t, "collect", "XYZ 789", ids),
      }),
    );
    assert.deepEqual(await written(a), { movements: 1, handovers: 0, used: 0 });
    const body = {
      job: "return",
      rego: "XYZ 789",
      movement_id: picked.movement_id,
      parts: await photographed(t, "return", "XYZ 789", ids),
    };
    assert.deepEqual(await json(await t.postJson("/tablet/api/movements", body), 422), {
      message:
        'This job needs the receiver\'s name and signature, or "Nobody to sign" with a reason and a photo of where the parts were left.',
    });
    const left = await leftPhoto(t);
    assert.deepEqual(
      await json(
        await t.postJson("/tablet/api/movements", {
          ...body,
          handover: { unsigned_reason: "tea break", left_image_id: left },
        }),
        422,
      ),
      { message: "Choose why nobody signed." },
    );
    await json(
      await t.postJson("/tablet/api/movements", {
        ...body,
        handover: { unsigned_reason: "left_at_agreed_place", left_image_id: left },
      }),
    );
    const { row, digest } = await expectedDigest(a, picked.movement_id, "reverse_dropoff");
    assert.equal(row.unsigned_reason, "left_at_agreed_place");
    assert.equal(row.receiver_name, null);
    assert.notEqual(row.left_photo_id, null);
    assert.equal(row.digest, digest);
  },
);

appTest("handover: off — no step; a handover sent anyway is refused and nothing is written", async (a) => {
  const { t, parts, shop } = await setup(a, "Arrived");
  await setPolicies(a, { direct_dropoff: "off" });
  const items = await photographed(t, "deliver", "ABC123", parts.map((p) => p.id));
  const body = { job: "deliver", rego: "ABC123", repairer_id: shop.id, parts: items };
  const sig = await signature(t);
  assert.deepEqual(
    await json(
      await t.postJson("/tablet/api/movements", {
        ...body,
        handover: { receiver_name: "Sam", signature_image_id: sig },
      }),
      422,
    ),
    { message: "This job takes no signature." },
  );
  assert.deepEqual(await written(a), { movements: 0, handovers: 0, used: 0 });
  await json(await t.postJson("/tablet/api/movements", { ...body, handover: null }));
  assert.deepEqual(await written(a), { movements: 1, handovers: 0, used: 0 });
});

appTest("handover: refused signatures — over the cap, not a PNG, blank — store no image row", async (a) => {
  const { t } = await setup(a, "Arrived");
  const big = await signaturePng({ width: 600, height: 400, noise: true });
  assert.ok(big.length > SIGNATURE_MAX_BYTES, `the sample is ${big.length} bytes`);
  assert.deepEqual(await json(await t.uploadHandoverImage("signature", big), 413), {
    message: "The signature is larger than 256 KiB.",
  });
  assert.deepEqual(
    await json(await t.uploadHandoverImage("signature", await jpegPhoto(), "image/jpeg"), 415),
    {
      message: "The signature must be a PNG image.",
    },
  );
  assert.deepEqual(
    await json(await t.uploadHandoverImage("signature", await signaturePng({ strokes: 0 })), 422),
    {
      message: "The signature is blank. Ask the receiver to sign.",
    },
  );
  assert.equal(
    (await json(await t.uploadHandoverImage("sketch", await signaturePng()), 422)).message,
    "Invalid request: kind must be one of signature, left.",
  );
  assert.equal((await a.db.selectFrom("handover_images").select("id").execute()).length, 0);
  assert.equal((await a.db.selectFrom("photos").select("id").execute()).length, 0);
});

appTest(
  "handover: a name with control characters, another driver's image, a reused image are refused; nothing written",
  async (a) => {
    const { t, parts, shop } = await setup(a, "Arrived");
    const items = await photographed(t, "deliver", "ABC123", [parts[0].id]);
    const body = { job: "deliver", rego: "ABC123", repairer_id: shop.id, parts: items };
    const sig = await signature(t);
    const refused = async (handover: unknown, message: string) => {
      assert.deepEqual(await json(await t.postJson("/tablet/api/movements", { ...body, handover }), 422), {
        message,
      });
      assert.deepEqual(await written(a), { movements: 0, handovers: 0, used: 0 });
    };
    await refused(
      { receiver_name: "Sam\u0007", signature_image_id: sig },
      "The receiver's name must not contain control characters.",
    );
    await refused({ receiver_name: "   ", signature_image_id: sig }, "Type the receiver's name.");
    await refused(
      { receiver_name: "S".repeat(101), signature_image_id: sig },
      "The receiver's name must be at most 100 characters.",
    );
    await refused({ receiver_name: "Sam" }, "The receiver's signature is missing.");

    const other = new Tablet(a);
    await other.signIn(await makeDriver(a));
    const theirs = await signature(other);
    await refused(
      { receiver_name: "Sam", signature_image_id: theirs },
      "The signature was not found. Send it again.",
    );
    const left = await leftPhoto(t);
    await refused(
      { receiver_name: "Sam", signature_image_id: left },
      "The signature was not found. Send it again.",
    );

    // Used once, the signature cannot sign for a second movement.
    await json(
      await t.postJson("/tablet/api/movements", {
        ...body,
        handover: { receiver_name: "Sam", signature_image_id: sig },
      }),
    );
    const items2 = await photographed(t, "deliver", "ABC123", [parts[1].id]);
    assert.deepEqual(
      await json(
        await t.postJson("/tablet/api/movements", {
          ...body,
          parts: items2,
          handover: { receiver_name: "Sam", signature_image_id: sig },
        }),
        422,
      ),
      { message: "The signature was already used by another movement. Send it again." },
    );
    assert.deepEqual(await written(a), { movements: 1, handovers: 1, used: 1 });
    const status = await a.db.selectFrom("parts_orders").select("status").where("id", "=", parts[1].id)
      .executeTakeFirstOrThrow();
    assert.equal(status.status, "Arrived");
  },
);

appTest("handover: two submissions racing for one signature — exactly one records it", async (a) => {
  const { t, shop } = await setup(a, "Arrived");
  const { parts: more } = await makeClaim(a.db, {
    registration: "DEF456",
    management: shop.id,
    parts: [{ status: "Arrived", part_no: "PN-9" }],
  });
  const sig = await signature(t);
  const handover = { receiver_name: "Sam", signature_image_id: sig };
  const bodies = [
    {
      job: "deliver",
      rego: "ABC123",
      repairer_id: shop.id,
      parts: await photographed(t, "deliver", "ABC123", [
        (await a.db.selectFrom("parts_orders").select("id").where("part_no", "=", "PN-1")
          .executeTakeFirstOrThrow()).id,
      ]),
      handover,
    },
    {
      job: "deliver",
      rego: "DEF456",
      repairer_id: shop.id,
      parts: await photographed(t, "deliver", "DEF456", [more[0].id]),
      handover,
    },
  ];
  const answers = await Promise.all(bodies.map((b) => t.postJson("/tablet/api/movements", b)));
  const statuses = answers.map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, 422]);
  const loser = answers.find((r) => r.status === 422)!;
  assert.deepEqual(await loser.json(), {
    message: "The signature was already used by another movement. Send it again.",
  });
  assert.deepEqual(await written(a), { movements: 1, handovers: 1, used: 1 });
});

serverAppTest(
  "handover: two submissions queued on one staged signature — the first records it, the second reads it used",
  async (a) => {
    const { t, shop, parts } = await setup(a, "Arrived");
    const { parts: more } = await makeClaim(a.db, {
      registration: "DEF456",
      management: shop.id,
      parts: [{ status: "Arrived", part_no: "PN-9" }],
    });
    const sig = await signature(t);
    const handover = { receiver_name: "Sam", signature_image_id: sig };
    const first = {
      job: "deliver",
      rego: "ABC123",
      repairer_id: shop.id,
      parts: await photographed(t, "deliver", "ABC123", [parts[0].id]),
      handover,
    };
    const second = {
      ...first,
      rego: "DEF456",
      parts: await photographed(t, "deliver", "DEF456", [more[0].id]),
    };
    // The image's row is held while both submissions queue behind it; the lock queue decides the order.
    const [one, two] = await whileHolding(a.db, async (trx) => {
      await trx.selectFrom("handover_images").select("id").where("id", "=", sig).forUpdate().execute();
    }, async (release) => {
      const one = t.postJson("/tablet/api/movements", first);
      await lockWaiters(a.db, 1);
      const two = t.postJson("/tablet/api/movements", second);
      await lockWaiters(a.db, 2);
      release();
      return [await one, await two] as const;
    });
    const won = await json(one);
    assert.deepEqual(await json(two, 422), {
      message: "The signature was already used by another movement. Send it again.",
    });
    const image = await a.db.selectFrom("handover_images").selectAll().where("id", "=", sig)
      .executeTakeFirstOrThrow();
    assert.equal(image.movement_id, won.movement_id);
    assert.deepEqual(await written(a), { movements: 1, handovers: 1, used: 1 });
    const other = await a.db.selectFrom("parts_orders").select("status").where("id", "=", more[0].id)
      .executeTakeFirstOrThrow();
    assert.equal(other.status, "Arrived", "the refused submission wrote nothing");
  },
);

appTest("handover: the mobile app's submissions take no handover step, whatever the policy", async (a) => {
  const { parts, shop, driver } = await setup(a, "Arrived");
  const image = await stagePhoto(a, {
    partId: parts[0].id,
    claimId: parts[0].claim_id,
    stage: "direct_dropoff",
    userId: driver.id,
  });
  const item = { parts_order_id: parts[0].id, confirm: true, image_id: image.id };
  const answer = await a.call(dropOffPayload(driver.email, "ABC123", shop, [item]));
  assert.equal(answer.result.status, "success", JSON.stringify(answer));
  assert.deepEqual(await written(a), { movements: 1, handovers: 0, used: 0 });
});

appTest(
  "handover: a return trip handed in in two drops keeps the first drop's handover for the leg",
  async (a) => {
    const { t, parts } = await setup(a, "Pending Repair Shop Pick-Up", "XYZ 789");
    const ids = parts.map((p) => p.id);
    await setPolicies(a, { reverse_pickup: "off" });
    const picked = await json(
      await t.postJson("/tablet/api/movements", {
        job: "collect",
        rego: "XYZ 789",
        parts: await photographed(t, "collect", "XYZ 789", ids),
      }),
    );
    const drop = async (id: number, handover: unknown, status = 200) =>
      await json(
        await t.postJson("/tablet/api/movements", {
          job: "return",
          rego: "XYZ 789",
          movement_id: picked.movement_id,
          parts: await photographed(t, "return", "XYZ 789", [id]),
          handover,
        }),
        status,
      );
    const policyOfSearch = async () =>
      (await json(await t.postJson("/tablet/api/search", { job: "return", rego: "XYZ 789" }))).handover
        .policy;
    assert.equal(await policyOfSearch(), "optional");
    await drop(ids[0], { receiver_name: "Hana at HQ", signature_image_id: await signature(t) });
    // The tablet's search says so: the later drop's review asks for nothing.
    assert.equal(await policyOfSearch(), "off");
    assert.deepEqual(
      await drop(ids[1], { receiver_name: "Hana at HQ", signature_image_id: await signature(t, 5) }, 422),
      { message: "The return of this trip was already signed for." },
    );
    await drop(ids[1], null);
    const rows = await a.db.selectFrom("handovers").selectAll().execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0].receiver_name, "Hana at HQ");
    const { digest } = await expectedDigest(a, picked.movement_id, "reverse_dropoff", [ids[0]]);
    assert.equal(rows[0].digest, digest, "the digest covers the parts of the drop it was signed for");
  },
);

Deno.test("handover digest: docs/handover.md's worked example", async () => {
  const sha = async (file: string) => createHash("sha256").update(await loadFixture(file)).digest("hex");
  const input = {
    movementId: 7,
    leg: "direct_dropoff" as const,
    parts: [{ partId: 15, sha256: await sha("photo.webp") }, { partId: 12, sha256: await sha("photo.jpg") }],
    signatureSha256: await sha("photo.png"),
    leftSha256: null,
  };
  const text = handoverText(input);
  const doc = await Deno.readTextFile(new URL("../docs/handover.md", import.meta.url));
  assert.ok(doc.includes("```\n" + text + "```"), "the doc shows the text, parts in ascending id");
  const digest = handoverDigest(input);
  assert.equal(digest, "ccfe2c93dcc7f414ad899c028adaecc5f6b2744718ca8ff7a283a2cb7e5f20a9");
  assert.ok(doc.includes(`Its digest is \`${digest}\``));
});

appTest(
  "handover: a driver's unused handover images count against STAGED_PHOTOS_PER_USER on their own (409)",
  async (a) => {
    const { t, parts, shop } = await setup(a, "Arrived");
    // Part photos do not count against the handover images' quota.
    const items = await photographed(t, "deliver", "ABC123", parts.map((p) => p.id));
    const first = await signature(t);
    await signature(t, 4);
    const refused = await json(
      await t.uploadHandoverImage("signature", await signaturePng({ strokes: 5 })),
      409,
    );
    assert.match(refused.message, /^Too many of your photos are waiting to be submitted \(2/);
    assert.equal((await a.db.selectFrom("handover_images").select("id").execute()).length, 2);
    // Taking one frees a place.
    await json(
      await t.postJson("/tablet/api/movements", {
        job: "deliver",
        rego: "ABC123",
        repairer_id: shop.id,
        parts: items,
        handover: { receiver_name: "Sam", signature_image_id: first },
      }),
    );
    await signature(t, 5);
  },
  { config: { stagedPhotosPerUser: 2 } },
);
