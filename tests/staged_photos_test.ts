/**
 * Staged photos per uploader (docs/photos.md "Quotas", "Retakes", "Whose photo"): the quotas on photos
 * uploaded and not yet submitted (per uploader, in total; refused before the body is read, and atomically
 * under parallel uploads on the server), a retake replacing the uploader's earlier photo of the part (it
 * does not add, cannot be submitted, and is removed after its grace), and a submission taking only photos
 * its own user staged.
 */
import assert from "node:assert/strict";
import type { User } from "@/db/schema.ts";
import { sql } from "kysely";
import { purgePhotos, RETAKE_GRACE_MS } from "@/lib/photos/purge.ts";
import { removeReplacedPhotos } from "@/lib/photos/retakes.ts";
import { appTest, serverAppTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeRepairer, makeUser } from "@/testkit/factories.ts";
import {
  confirmed,
  dropOffPayload,
  dropOffReversePayload,
  flowSetup,
  pickUpPayload,
  stageFor,
  statusOf,
} from "@/testkit/movements.ts";
import { jpegPhoto, photoForm } from "@/testkit/photos.ts";
import { expectFailure, type Minted, stored, uploadPath } from "@/tests/helpers/uploads.ts";

const PER_USER_TEXT = (n: number) =>
  `Too many of your photos are waiting to be submitted (${n}, the most one user may have). ` +
  "Submit the parts you photographed, then take new photos.";
const TOTAL_TEXT =
  "The server holds as many photos waiting to be submitted as it may; the photo was not stored. " +
  "Submit waiting movements, or try again later.";

/** Bytes of each upload below: the sample JPEG (tests/fixtures/photo.jpg) and four bytes. */
const SIZE = 4287 + 4;

/** The sample JPEG with `tag` appended (still a JPEG), so each upload stores its own file. */
async function photo(tag: number): Promise<Uint8Array> {
  const jpeg = await jpegPhoto();
  const out = new Uint8Array(jpeg.length + 4);
  out.set(jpeg);
  new DataView(out.buffer).setUint32(jpeg.length, tag);
  assert.equal(out.length, SIZE);
  return out;
}

/** A claim with `count` Arrived parts and its repair shop. */
async function claimWith(a: TestApp, count: number) {
  const shop = await makeRepairer(a.db);
  const { claim, parts } = await makeClaim(a.db, {
    management: shop.id,
    parts: Array.from({ length: count }, () => ({ status: "Arrived" as const })),
  });
  return { shop, claim, parts };
}

/** Call 2a for `user` and the part. */
async function mintFor(a: TestApp, user: User, rego: string, partId: number): Promise<Minted> {
  const body = await a.call({
    event_type: "parts_movement_upload_token",
    Parts_Order: String(partId),
    Movement_Stage: "direct_dropoff",
    rego,
    user_email: user.email,
  });
  assert.equal(body.result.status, "success", JSON.stringify(body));
  return body.result.data as unknown as Minted;
}

/** Call 2b of a minted record with `bytes`. */
async function upload(a: TestApp, m: Minted, bytes: Uint8Array): Promise<Response> {
  return await a.app.request(uploadPath(m), {
    method: "POST",
    headers: { authorization: `Zoho-oauthtoken ${m.token}` },
    body: photoForm(bytes),
  });
}

/** Calls 2a and 2b for `user`'s photo of the part; returns the record and the answer. */
async function photograph(a: TestApp, user: User, rego: string, partId: number, tag: number) {
  const m = await mintFor(a, user, rego, partId);
  return { m, res: await upload(a, m, await photo(tag)) };
}

async function expectStored(res: Response) {
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal((await res.json()).code, 3000);
}

const photoOf = async (
  a: TestApp,
  recordId: number,
) => (await a.db.selectFrom("uploaded_images").select(["photo_id", "replaced_at"]).where("id", "=", recordId)
  .executeTakeFirst());

appTest(
  "staged photos: an uploader at STAGED_PHOTOS_PER_USER is refused 409 code 1056 before the body is read; a submission frees places",
  async (a) => {
    const driver = await makeUser(a.db, { role: "driver" });
    const other = await makeUser(a.db, { role: "driver" });
    const { shop, claim, parts } = await claimWith(a, 4);
    const first = await photograph(a, driver, claim.registration, parts[0].id, 1);
    await expectStored(first.res);
    await expectStored((await photograph(a, driver, claim.registration, parts[1].id, 2)).res);

    const keysBefore = (await stored(a)).keys.length;
    const over = await photograph(a, driver, claim.registration, parts[2].id, 3);
    assert.deepEqual(await expectFailure(over.res, 409, 1056), { code: 1056, message: PER_USER_TEXT(2) });
    assert.equal((await photoOf(a, over.m.record_id))!.photo_id, null, "nothing recorded");
    assert.equal((await stored(a)).keys.length, keysBefore, "nothing stored");

    // Another uploader has places of their own.
    await expectStored((await photograph(a, other, claim.registration, parts[3].id, 4)).res);

    // A submitted photo no longer counts: the refused record's token still works (not used up).
    const sent = await a.call(dropOffPayload(driver.email, claim.registration, shop, [
      { parts_order_id: String(parts[0].id), confirm: true, image_id: String(first.m.record_id) },
    ]));
    assert.equal(sent.result.status, "success", JSON.stringify(sent));
    await expectStored(await upload(a, over.m, await photo(3)));
  },
  { config: { stagedPhotosPerUser: 2 } },
);

appTest(
  "staged photos: over STAGED_PHOTO_BYTES_TOTAL the upload is refused 507 code 1057, whoever sends it",
  async (a) => {
    const { claim, parts } = await claimWith(a, 3);
    for (const [i, part] of parts.slice(0, 2).entries()) {
      const user = await makeUser(a.db, { role: "driver" });
      await expectStored((await photograph(a, user, claim.registration, part.id, i)).res);
    }
    const late = await makeUser(a.db, { role: "driver" });
    const over = await photograph(a, late, claim.registration, parts[2].id, 9);
    assert.deepEqual(await expectFailure(over.res, 507, 1057), { code: 1057, message: TOTAL_TEXT });
    assert.equal((await photoOf(a, over.m.record_id))!.photo_id, null);
  },
  // Room for two photos of the sample's size, not three.
  { config: { stagedPhotoBytesTotal: 2.5 * SIZE } },
);

/** The quota's bound on everyone's staged bytes (lib/photos/quota.ts). */
const bound = async (a: TestApp) =>
  Number(
    (await sql<{ bytes: string }>`select bytes::text from staged_photo_bytes`.execute(a.db)).rows[0].bytes,
  );
const setBound = (a: TestApp, bytes: number) =>
  sql`update staged_photo_bytes set bytes = ${bytes}`.execute(a.db);

appTest(
  "staged photos: the total's bound runs ahead of the truth, is counted again only when it would refuse, and the purge sets it to the truth",
  async (a) => {
    const { shop, claim, parts } = await claimWith(a, 4);
    const users = await Promise.all(parts.map(() => makeUser(a.db, { role: "driver" })));
    const first = await photograph(a, users[0], claim.registration, parts[0].id, 0);
    await expectStored(first.res);
    await expectStored((await photograph(a, users[1], claim.registration, parts[1].id, 1)).res);
    assert.equal(await bound(a), 2 * SIZE, "each upload adds its bytes");

    // A submitted photo stops counting; the bound keeps it until it would refuse, then counts again.
    const sent = await a.call(dropOffPayload(users[0].email, claim.registration, shop, [
      { parts_order_id: String(parts[0].id), confirm: true, image_id: String(first.m.record_id) },
    ]));
    assert.equal(sent.result.status, "success", JSON.stringify(sent));
    assert.equal(await bound(a), 2 * SIZE);
    await expectStored((await photograph(a, users[2], claim.registration, parts[2].id, 2)).res);
    assert.equal(await bound(a), 2 * SIZE, "counted again: two staged photos, the new one among them");

    // A refusal adds nothing.
    const over = await photograph(a, users[3], claim.registration, parts[3].id, 3);
    await expectFailure(over.res, 507, 1057);
    assert.equal(await bound(a), 2 * SIZE);

    // A bound far ahead (photos submitted since) refuses nobody, before the body or after it.
    const second = await a.db.selectFrom("uploaded_images").select("id").where("part_id", "=", parts[1].id)
      .executeTakeFirstOrThrow();
    await sql`update uploaded_images set submitted = true where id = ${second.id}`.execute(a.db);
    await setBound(a, 100 * SIZE);
    await expectStored(await upload(a, over.m, await photo(3)));
    assert.equal(await bound(a), 2 * SIZE);

    // The purge counts again whatever the bound says.
    await setBound(a, 100 * SIZE);
    await purgePhotos(a);
    assert.equal(await bound(a), 2 * SIZE);
  },
  // Room for two photos of the sample's size, not three.
  { config: { stagedPhotoBytesTotal: 2.5 * SIZE } },
);

appTest(
  "staged photos: a retake replaces the uploader's earlier photo of the part: it does not add, cannot be submitted, and is removed after the grace",
  async (a) => {
    const driver = await makeUser(a.db, { role: "driver" });
    const { shop, claim, parts } = await claimWith(a, 2);
    const first = await photograph(a, driver, claim.registration, parts[0].id, 1);
    await expectStored(first.res);
    await expectStored((await photograph(a, driver, claim.registration, parts[1].id, 2)).res);
    const firstPhoto = await a.db.selectFrom("photos").select(["id", "storage_key"])
      .where("id", "=", (await photoOf(a, first.m.record_id))!.photo_id!).executeTakeFirstOrThrow();

    // At the limit of two, a retake of the first part is taken: it replaces, it does not add.
    const retake = await photograph(a, driver, claim.registration, parts[0].id, 11);
    await expectStored(retake.res);
    assert.notEqual((await photoOf(a, first.m.record_id))!.replaced_at, null);
    // ... and a second retake too (the replaced photo no longer counts for its uploader).
    const again = await photograph(a, driver, claim.registration, parts[0].id, 12);
    await expectStored(again.res);

    // The replaced photos are not the part's photo any more.
    for (const old of [first, retake]) {
      const answer = await a.call(dropOffPayload(driver.email, claim.registration, shop, [
        { parts_order_id: String(parts[0].id), confirm: true, image_id: String(old.m.record_id) },
      ]));
      assert.deepEqual(answer.result, {
        status: "failure",
        text: `${parts[0].part_no} is missing its delivery photo.`,
      });
    }

    // Within the grace nothing is removed (an upload of the same bytes may still be recording).
    assert.equal((await removeReplacedPhotos(a)).stagedRows, 0);
    assert.ok(await a.storage.exists(firstPhoto.storage_key));
    // After it, both replaced rows, their photo rows and files go; the latest stays and is submitted.
    a.clock.advance(Date.now() - a.clock.now().getTime() + 2 * RETAKE_GRACE_MS);
    assert.deepEqual(await removeReplacedPhotos(a), { stagedRows: 2, photoRows: 2, files: 2 });
    assert.equal(await photoOf(a, first.m.record_id), undefined);
    assert.equal(await a.storage.exists(firstPhoto.storage_key), false);
    const sent = await a.call(dropOffPayload(driver.email, claim.registration, shop, [
      { parts_order_id: String(parts[0].id), confirm: true, image_id: String(again.m.record_id) },
    ]));
    assert.equal(sent.result.status, "success", JSON.stringify(sent));
  },
  { config: { stagedPhotosPerUser: 2 } },
);

appTest(
  "staged photos: a submission with a photo another user staged answers the part's missing-photo text and writes nothing",
  async (a) => {
    const owner = await makeUser(a.db, { role: "driver" });
    const thief = await makeUser(a.db, { role: "driver" });
    const { shop, claim, parts } = await claimWith(a, 1);
    const { m, res } = await photograph(a, owner, claim.registration, parts[0].id, 1);
    await expectStored(res);
    const answer = await a.call(dropOffPayload(thief.email, claim.registration, shop, [
      { parts_order_id: String(parts[0].id), confirm: true, image_id: String(m.record_id) },
    ]));
    assert.deepEqual(answer.result, {
      status: "failure",
      text: `${parts[0].part_no} is missing its delivery photo.`,
    });
    assert.equal(await statusOf(a.db, parts[0].id), "Arrived");
    // Its owner still submits it.
    const own = await a.call(dropOffPayload(owner.email, claim.registration, shop, [
      { parts_order_id: String(parts[0].id), confirm: true, image_id: String(m.record_id) },
    ]));
    assert.equal(own.result.status, "success", JSON.stringify(own));
  },
);

serverAppTest(
  "staged photos: parallel uploads of one uploader on the PostgreSQL server never pass STAGED_PHOTOS_PER_USER",
  async (a) => {
    const driver = await makeUser(a.db, { role: "driver" });
    const { claim, parts } = await claimWith(a, 12);
    const minted = [];
    for (const part of parts) minted.push(await mintFor(a, driver, claim.registration, part.id));
    const answers = await Promise.all(minted.map(async (m, i) => upload(a, m, await photo(i))));
    const statuses = answers.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 3, String(statuses));
    assert.equal(statuses.filter((s) => s === 409).length, 9, String(statuses));
    for (const r of answers) await r.body?.cancel();
    const held = await a.db.selectFrom("uploaded_images").select((eb) => eb.fn.countAll<number>().as("n"))
      .where("uploaded_by", "=", driver.id).where("photo_id", "is not", null).executeTakeFirstOrThrow();
    assert.equal(Number(held.n), 3);
  },
  { config: { stagedPhotosPerUser: 3 }, poolSize: 10 },
);

serverAppTest(
  "staged photos: parallel uploads of many uploaders on the PostgreSQL server never pass STAGED_PHOTO_BYTES_TOTAL",
  async (a) => {
    const { claim, parts } = await claimWith(a, 12);
    const minted = [];
    for (const part of parts) {
      minted.push(await mintFor(a, await makeUser(a.db, { role: "driver" }), claim.registration, part.id));
    }
    const answers = await Promise.all(minted.map(async (m, i) => upload(a, m, await photo(i))));
    const statuses = answers.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 4, String(statuses));
    assert.equal(statuses.filter((s) => s === 507).length, 8, String(statuses));
    for (const r of answers) await r.body?.cancel();
    const sum = await a.db.selectFrom("uploaded_images as u").innerJoin("photos as p", "p.id", "u.photo_id")
      .select((eb) => eb.fn.sum<number>("p.byte_size").as("bytes")).executeTakeFirstOrThrow();
    assert.ok(Number(sum.bytes) <= 4.5 * SIZE, `${sum.bytes} bytes staged`);
  },
  { config: { stagedPhotoBytesTotal: 4.5 * SIZE }, poolSize: 10 },
);

appTest(
  "staged photos: a reverse trip's pickup and drop-off photos stop counting once each leg is submitted",
  async (a) => {
    const s = await flowSetup(a, {
      count: 2,
      status: "Pending Repair Shop Pick-Up",
      stage: "reverse_pickup",
    });
    const unsubmitted = async () =>
      (await a.db.selectFrom("uploaded_images").select("id").where("submitted", "=", false).orderBy("id")
        .execute()).map((r) => r.id);
    assert.deepEqual(await unsubmitted(), s.images);
    const leg1 = await a.call(pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs)));
    assert.equal(leg1.result.status, "success", JSON.stringify(leg1));
    assert.deepEqual(await unsubmitted(), []);
    // Leg 2 names its photos by updating the same Deliver_Parts.
    const images = await stageFor(a, s.parts, "reverse_dropoff", s.user.id);
    assert.deepEqual(await unsubmitted(), images);
    const pairs = s.parts.map((p, i) => ({ part: p.id, image: images[i] }));
    const tripId = leg1.result.data!.parts_movement_id as number;
    const leg2 = await a.call(
      dropOffReversePayload(s.user.email, s.claim.registration, tripId, confirmed(pairs)),
    );
    assert.equal(leg2.result.status, "success", JSON.stringify(leg2));
    assert.deepEqual(await unsubmitted(), []);
  },
);
