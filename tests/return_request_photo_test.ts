/**
 * A return request's photo (docs/return-requests.md "Photo") on both databases: sent after the request by the
 * driver who asked, shown in HQ's queue and to that driver only, replaced by a retake (the purge then takes
 * the replaced one and keeps the current one), and refused, changing nothing, for a file that is not a photo,
 * another driver's request, an unknown one, and a request decided before (or while) the photo arrived.
 */
import assert from "node:assert/strict";
import type { PartStatus } from "@/db/schema.ts";
import type { TestApp } from "@/testkit/app.ts";
import { appTest } from "@/testkit/app.ts";
import { makeClaim, makeRepairer } from "@/testkit/factories.ts";
import { jpegPhoto, notAPhoto, pngPhoto } from "@/testkit/photos.ts";
import { attachReturnRequestPhoto } from "@/lib/return_request_photo.ts";
import { declineReturnRequest } from "@/lib/return_requests.ts";
import { DomainError } from "@/lib/errors.ts";
import { IN_FLIGHT_GRACE_MS, purgePhotos } from "@/lib/photos/purge.ts";
import { signedIn } from "@/tests/helpers/hq.ts";
import { makeDriver, Tablet } from "@/tests/helpers/tablet.ts";

const AT_SHOP: PartStatus = "Delivered to Repair Shop directly";

async function asked(a: TestApp) {
  const shop = await makeRepairer(a.db, "North Smash Repairs");
  const { parts } = await makeClaim(a.db, {
    registration: "RET123",
    management: shop.id,
    parts: [{ status: AT_SHOP, part_no: "PN-1" }],
  });
  const driver = await makeDriver(a, { name: "Dana Driver" });
  const t = new Tablet(a);
  await t.signIn(driver);
  const res = await t.postJson("/tablet/api/return-requests", {
    rego: "RET123",
    parts: [parts[0].id],
    client_key: crypto.randomUUID(),
  });
  assert.equal(res.status, 200, await res.clone().text());
  const request = await res.json() as { id: number; photo_id: number | null };
  assert.equal(request.photo_id, null);
  return { t, driver, request };
}

const photoOf = async (a: TestApp, id: number) =>
  (await a.db.selectFrom("return_requests").select("photo_id").where("id", "=", id).executeTakeFirstOrThrow())
    .photo_id;

appTest(
  "return request photo: sent after the request, shown in HQ's queue and to its driver only",
  async (a) => {
    const { t, request } = await asked(a);
    const res = await t.postPhoto(`/tablet/api/return-requests/${request.id}/photo`, await jpegPhoto());
    assert.equal(res.status, 200, await res.clone().text());
    const answer = await res.json() as { id: number; state: string; photo_id: number };
    assert.equal(answer.id, request.id);
    assert.equal(answer.state, "open");
    assert.equal(answer.photo_id, await photoOf(a, request.id));
    assert.ok(answer.photo_id > 0);

    // The driver's own tablet reads the request with its photo, and may open the photo.
    const read = await (await t.request(`/tablet/api/return-requests/${request.id}`)).json();
    assert.equal(read.photo_id, answer.photo_id);
    assert.equal((await t.request(`/photos/${answer.photo_id}`)).status, 200);
    // Another driver may not (photo ids are sequential).
    const other = new Tablet(a);
    await other.signIn(await makeDriver(a, { name: "Sam Other" }));
    assert.equal((await other.request(`/photos/${answer.photo_id}`)).status, 404);

    const hq = await signedIn(a, "dispatcher");
    const page = await (await hq.get("/hq/return-requests")).text();
    assert.match(page, new RegExp(`data-testid="return-request-photo"[^]*?/photos/${answer.photo_id}/thumb`));
    assert.equal((await hq.get(`/photos/${answer.photo_id}`)).status, 200);
  },
);

appTest(
  "return request photo: a retake replaces it; the purge removes the replaced photo only",
  async (a) => {
    const { t, request } = await asked(a);
    const first =
      await (await t.postPhoto(`/tablet/api/return-requests/${request.id}/photo`, await jpegPhoto()))
        .json();
    const second =
      await (await t.postPhoto(`/tablet/api/return-requests/${request.id}/photo`, await pngPhoto()))
        .json();
    assert.notEqual(second.photo_id, first.photo_id);
    assert.equal(await photoOf(a, request.id), second.photo_id);

    a.clock.advance(IN_FLIGHT_GRACE_MS + 60_000);
    const report = await purgePhotos(a);
    assert.equal(report.photoRows, 1);
    const left = await a.db.selectFrom("photos").select("id").execute();
    assert.deepEqual(left.map((r) => r.id), [second.photo_id]);
  },
);

appTest("return request photo: refusals change nothing", async (a) => {
  const { t, request } = await asked(a);
  const url = `/tablet/api/return-requests/${request.id}/photo`;
  const photos = async () => (await a.db.selectFrom("photos").select("id").execute()).length;

  const text = await t.postPhoto(url, await notAPhoto());
  assert.equal(text.status, 415);
  assert.match((await text.json()).message, /not a JPEG, PNG, WebP or HEIC photo/);

  const unknown = await t.postPhoto(
    `/tablet/api/return-requests/${request.id + 100}/photo`,
    await jpegPhoto(),
  );
  assert.equal(unknown.status, 404);
  assert.equal((await unknown.json()).message, "Return request not found.");

  const other = new Tablet(a);
  await other.signIn(await makeDriver(a, { name: "Sam Other" }));
  assert.equal((await other.postPhoto(url, await jpegPhoto())).status, 404);

  const hq = await signedIn(a, "dispatcher");
  await declineReturnRequest(a, hq.user.id, request.id, "Shop still needs them");
  const late = await t.postPhoto(url, await jpegPhoto());
  assert.equal(late.status, 422);
  assert.match(
    (await late.json()).message,
    /^Return request #\d+ was already declined by .+; the photo was not added\.$/,
  );

  assert.equal(await photoOf(a, request.id), null);
  assert.equal(await photos(), 0);
});

appTest(
  "return request photo: a decision made while the photo uploads wins; the photo is not added",
  async (a) => {
    const { driver, request } = await asked(a);
    const hq = await signedIn(a, "dispatcher");
    const bytes = await jpegPhoto();
    await assert.rejects(
      attachReturnRequestPhoto(a, driver, request.id, async (sink) => {
        // The dispatcher decides after the request was checked, before the photo is recorded.
        await declineReturnRequest(a, hq.user.id, request.id, "Not yet");
        return await sink(ReadableStream.from([bytes]));
      }),
      (error) =>
        error instanceof DomainError && error.kind === "conflict" && /already declined/.test(error.message),
    );
    assert.equal(await photoOf(a, request.id), null);
    assert.equal((await a.db.selectFrom("photos").select("id").execute()).length, 0);
  },
);
