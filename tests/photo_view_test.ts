import assert from "node:assert/strict";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { SessionUser } from "@/lib/sessions.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { probeImage } from "@/io/image_probe.ts";
import { photoRoutes } from "@/routes/photos.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import type { User } from "@/db/schema.ts";
import { makeClaim, makePhoto, makeUser, stagePhoto } from "@/testkit/factories.ts";
import { type HqClient, signedIn } from "@/tests/helpers/hq.ts";
import { confirmed, dropOffReversePayload, flowSetup, pickUpPayload, stageFor } from "@/testkit/movements.ts";
import { heicPhoto, jpegPhoto, loadPhoto, pngPhoto } from "@/testkit/photos.ts";

const IMMUTABLE = "private, max-age=31536000, immutable";

/** A dispatcher (who may see every photo) on `c.var.session`, as the app's sign-in guard puts the user there. */
const asStaff = (c: Context<SessionEnv>) =>
  c.set("session", { user: { id: 0, role: "dispatcher" } } as SessionUser);

const allowAll: MiddlewareHandler<SessionEnv> = async (c, next) => {
  asStaff(c);
  await next();
};

/** The photo routes behind a guard that lets everyone in (the app mounts them behind the session guard). */
function viewer(a: TestApp, guard: MiddlewareHandler<SessionEnv> = allowAll) {
  return new Hono().route("/photos", photoRoutes(a, guard))
    .notFound((c) => c.json({ code: 4040, message: "Not found." }, 404));
}

async function expectImage(res: Response, type: string) {
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(res.headers.get("content-type"), type);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  return new Uint8Array(await res.arrayBuffer());
}

async function photoRow(a: TestApp, id: number) {
  return await a.db.selectFrom("photos").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

appTest(
  "photos: GET /photos/:id sends the stored bytes with their type, nosniff and an immutable cache",
  async (a) => {
    const sent = await jpegPhoto();
    const photo = await makePhoto(a.db, a.storage, sent);
    const res = await viewer(a).request(`/photos/${photo.id}`);
    assert.equal(res.headers.get("cache-control"), IMMUTABLE);
    assert.equal(res.headers.get("content-length"), String(sent.length));
    assert.deepEqual(await expectImage(res, "image/jpeg"), sent);

    const png = await makePhoto(a.db, a.storage, await pngPhoto());
    assert.deepEqual(
      await expectImage(await viewer(a).request(`/photos/${png.id}`), "image/png"),
      await pngPhoto(),
    );
  },
);

appTest("photos: HEAD answers the headers without a body", async (a) => {
  const sent = await jpegPhoto();
  const photo = await makePhoto(a.db, a.storage, sent);
  const res = await viewer(a).request(`/photos/${photo.id}`, { method: "HEAD" });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/jpeg");
  assert.equal(res.headers.get("content-length"), String(sent.length));
  assert.equal(res.body, null);
});

appTest("photos: a matching If-None-Match answers 304 without a body", async (a) => {
  const photo = await makePhoto(a.db, a.storage);
  const first = await viewer(a).request(`/photos/${photo.id}`);
  const etag = first.headers.get("etag")!;
  await first.body?.cancel();
  assert.equal(etag, `"${photo.storage_key}"`);
  const again = await viewer(a).request(`/photos/${photo.id}`, { headers: { "if-none-match": etag } });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get("cache-control"), IMMUTABLE);
  assert.equal(await again.text(), "");
});

appTest(
  "photos: the thumbnail is a JPEG of 320 px on the long edge, made once and kept in storage",
  async (a) => {
    const photo = await makePhoto(a.db, a.storage, await jpegPhoto()); // 480x360
    const res = await viewer(a).request(`/photos/${photo.id}/thumb`);
    assert.equal(res.headers.get("cache-control"), IMMUTABLE);
    const thumb = await expectImage(res, "image/jpeg");
    assert.deepEqual(probeImage(thumb), { type: "image/jpeg", width: 320, height: 240 });

    const row = await photoRow(a, photo.id);
    assert.ok(row.thumb_key);
    assert.deepEqual(await Deno.readFile(a.storage.path(row.thumb_key)), thumb);
    const files = (await Array.fromAsync(a.storage.keys())).sort();
    assert.deepEqual(files, [photo.storage_key, row.thumb_key].sort());

    // Served from storage from now on: same bytes, no new file, same key.
    const again = await expectImage(await viewer(a).request(`/photos/${photo.id}/thumb`), "image/jpeg");
    assert.deepEqual(again, thumb);
    assert.equal((await photoRow(a, photo.id)).thumb_key, row.thumb_key);
    assert.deepEqual((await Array.fromAsync(a.storage.keys())).sort(), files);
  },
);

appTest("photos: parallel first requests for a thumbnail make it once", async (a) => {
  const photo = await makePhoto(a.db, a.storage, await loadPhoto("webpAlpha"));
  const answers = await Promise.all([1, 2, 3, 4].map(() => viewer(a).request(`/photos/${photo.id}/thumb`)));
  const bodies = await Promise.all(answers.map((r) => expectImage(r, "image/jpeg")));
  for (const b of bodies) assert.deepEqual(b, bodies[0]);
  assert.equal((await Array.fromAsync(a.storage.keys())).length, 2);
});

appTest("photos: a thumbnail whose file went missing is made again", async (a) => {
  const photo = await makePhoto(a.db, a.storage, await pngPhoto());
  await (await viewer(a).request(`/photos/${photo.id}/thumb`)).body?.cancel();
  const { thumb_key } = await photoRow(a, photo.id);
  await a.storage.remove(thumb_key!);
  const thumb = await expectImage(await viewer(a).request(`/photos/${photo.id}/thumb`), "image/jpeg");
  assert.deepEqual(probeImage(thumb), { type: "image/jpeg", width: 90, height: 120 }); // never enlarged
  assert.ok(await a.storage.exists((await photoRow(a, photo.id)).thumb_key!));
});

appTest(
  "photos: a HEIC photo's thumbnail is an SVG placeholder; the original is served as image/heic",
  async (a) => {
    const photo = await makePhoto(a.db, a.storage, await heicPhoto()); // 4032x3024
    const res = await viewer(a).request(`/photos/${photo.id}/thumb`);
    assert.equal(res.headers.get("cache-control"), "private, max-age=86400");
    const svg = new TextDecoder().decode(await expectImage(res, "image/svg+xml"));
    assert.match(svg, /^<svg [^>]*width="320" height="240"/);
    assert.match(svg, /HEIC photo/);
    assert.doesNotMatch(svg, /<script/i);
    assert.equal((await photoRow(a, photo.id)).thumb_key, null);

    const original = await expectImage(await viewer(a).request(`/photos/${photo.id}`), "image/heic");
    assert.deepEqual(original, await heicPhoto());
  },
);

appTest("photos: an unknown, non-numeric or missing-file photo is a clean 404", async (a) => {
  const photo = await makePhoto(a.db, a.storage);
  await a.storage.remove(photo.storage_key);
  for (
    const path of [
      "/photos/999999",
      "/photos/abc",
      "/photos/0",
      "/photos/-1/thumb",
      `/photos/${photo.id}`,
      "/photos/999999/thumb",
    ]
  ) {
    const res = await viewer(a).request(path);
    assert.equal(res.status, 404, path);
    assert.match(res.headers.get("content-type")!, /^application\/json/);
    assert.equal((await res.json()).code, 4040);
  }
});

appTest(
  "photos: the guard runs before both routes; a refusing guard keeps the photo from being read",
  async (a) => {
    const photo = await makePhoto(a.db, a.storage);
    const seen: string[] = [];
    const refuse: MiddlewareHandler = (c) => {
      seen.push(c.req.path);
      return Promise.resolve(c.json({ code: 4010, message: "Sign in first." }, 401));
    };
    const allow: MiddlewareHandler<SessionEnv> = async (c, next) => {
      seen.push(c.req.path);
      asStaff(c);
      await next();
    };
    const refused = viewer(a, refuse);
    for (const path of [`/photos/${photo.id}`, `/photos/${photo.id}/thumb`]) {
      const res = await refused.request(path);
      assert.equal(res.status, 401);
      assert.match(res.headers.get("content-type")!, /^application\/json/);
      assert.deepEqual(await res.json(), { code: 4010, message: "Sign in first." });
    }
    // The refused thumbnail request did not make a thumbnail.
    assert.equal((await photoRow(a, photo.id)).thumb_key, null);

    const allowed = viewer(a, allow);
    assert.deepEqual(
      await expectImage(await allowed.request(`/photos/${photo.id}`), "image/jpeg"),
      await jpegPhoto(),
    );
    await expectImage(await allowed.request(`/photos/${photo.id}/thumb`), "image/jpeg");
    assert.deepEqual(seen, [
      `/photos/${photo.id}`,
      `/photos/${photo.id}/thumb`,
      `/photos/${photo.id}`,
      `/photos/${photo.id}/thumb`,
    ]);
  },
);

appTest("photos: an uploaded photo can be viewed right after call 2b", async (a) => {
  const user = await makeUser(a.db);
  const { claim, parts } = await makeClaim(a.db, { parts: [{ status: "Arrived" }] });
  const token = await a.call({
    event_type: "parts_movement_upload_token",
    Parts_Order: parts[0].id,
    Movement_Stage: "direct_dropoff",
    rego: claim.registration,
    user_email: user.email,
  });
  const d = token.result.data as {
    record_id: number;
    token: string;
    app_owner: string;
    app_name: string;
    report_name: string;
  };
  const form = new FormData();
  form.append(
    "file",
    new File([await pngPhoto() as Uint8Array<ArrayBuffer>], "p.png", { type: "image/png" }),
  );
  const up = await a.app.request(
    `/api/v2.1/data/${d.app_owner}/${d.app_name}/report/${d.report_name}/${d.record_id}/Parts_Image/upload`,
    { method: "POST", headers: { authorization: `Zoho-oauthtoken ${d.token}` }, body: form },
  );
  assert.equal(up.status, 200);
  const { photo_id } = await a.db.selectFrom("uploaded_images").select("photo_id").where(
    "id",
    "=",
    d.record_id,
  )
    .executeTakeFirstOrThrow();
  assert.deepEqual(
    await expectImage(await viewer(a).request(`/photos/${photo_id}`), "image/png"),
    await pngPhoto(),
  );
});

appTest("photos: the app serves /photos only behind its sign-in guard", async (a) => {
  const photo = await makePhoto(a.db, a.storage);
  for (const path of [`/photos/${photo.id}`, `/photos/${photo.id}/thumb`]) {
    const res = await a.app.request(path);
    assert.equal(res.status, 401, path);
    assert.doesNotMatch(res.headers.get("content-type") ?? "", /^image\//);
    await res.body?.cancel();
  }
  assert.equal((await photoRow(a, photo.id)).thumb_key, null);
});

/** A photo of its own bytes (photos are content-addressed: equal bytes would be one photo). */
async function distinctPhoto(a: TestApp, seed: number) {
  const jpeg = await jpegPhoto();
  // Bytes after the JPEG's end marker change the file, not the image.
  const bytes = new Uint8Array([...jpeg, 0, seed]);
  return await makePhoto(a.db, a.storage, bytes);
}

async function setStagedPhoto(a: TestApp, imageIds: number[], photoId: number) {
  await a.db.updateTable("uploaded_images").set({ photo_id: photoId }).where("id", "in", imageIds).execute();
}

appTest(
  "photos: a driver sees only the photos of their own movements and uploads; staff see all; others get 404",
  async (a) => {
    // Driver `picker` picks parts up at a repair shop (photo P1); driver `dropper` returns them to HQ (P2);
    // driver `stranger` photographed another part (P3) and drove neither leg.
    const s = await flowSetup(a, {
      count: 1,
      status: "Pending Repair Shop Pick-Up",
      stage: "reverse_pickup",
    });
    const picker = s.user;
    const p1 = await distinctPhoto(a, 1);
    await setStagedPhoto(a, s.images, p1.id);
    const leg1 = await a.call(pickUpPayload(picker.email, s.claim.registration, confirmed(s.pairs)));
    assert.equal(leg1.result.status, "success", JSON.stringify(leg1));
    const dropper = await makeUser(a.db, { role: "driver" });
    const dropImages = await stageFor(a, s.parts, "reverse_dropoff", dropper.id);
    const p2 = await distinctPhoto(a, 2);
    await setStagedPhoto(a, dropImages, p2.id);
    const leg2 = await a.call(
      dropOffReversePayload(
        dropper.email,
        s.claim.registration,
        leg1.result.data!.parts_movement_id as number,
        confirmed(s.parts.map((p, i) => ({ part: p.id, image: dropImages[i] }))),
      ),
    );
    assert.equal(leg2.result.status, "success", JSON.stringify(leg2));
    const stranger = await makeUser(a.db, { role: "driver" });
    const other = await makeClaim(a.db, { parts: [{ status: "Arrived" }] });
    const own = await stagePhoto(a, {
      partId: other.parts[0].id,
      claimId: other.claim.id,
      stage: "direct_dropoff",
      userId: stranger.id,
    });
    const p3 = await distinctPhoto(a, 3);
    await setStagedPhoto(a, [own.id], p3.id);

    const sees = async (who: HqClient, photoId: number) => {
      const statuses = [];
      for (const path of [`/photos/${photoId}`, `/photos/${photoId}/thumb`]) {
        const res = await who.get(path);
        statuses.push(res.status);
        if (res.status === 404) {
          // Exactly the answer for an id that does not exist: nothing tells the photo is there.
          assert.deepEqual(await res.json(), { code: 4040, message: "Photo not found." });
        } else await res.body?.cancel();
      }
      assert.equal(statuses[0], statuses[1], `${path(photoId)}: the photo and its thumbnail agree`);
      return statuses[0] === 200;
    };
    const path = (id: number) => `/photos/${id}`;
    const seen = async (role: "driver" | "dispatcher" | "admin", user?: User) => {
      const who = await signedIn(a, role, user);
      return [await sees(who, p1.id), await sees(who, p2.id), await sees(who, p3.id)];
    };
    assert.deepEqual(await seen("driver", picker), [true, true, false], "picker: both legs of the trip");
    assert.deepEqual(await seen("driver", dropper), [true, true, false], "dropper: both legs of the trip");
    assert.deepEqual(await seen("driver", stranger), [false, false, true], "stranger: their own upload only");
    assert.deepEqual(await seen("dispatcher"), [true, true, true]);
    assert.deepEqual(await seen("admin"), [true, true, true]);
  },
);
