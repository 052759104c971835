import assert from "node:assert/strict";
import { Hono, type MiddlewareHandler } from "hono";
import { probeImage } from "@/io/image_probe.ts";
import { photoRoutes } from "@/routes/photos.ts";
import { appTest, type TestApp } from "@/tests/helpers/app.ts";
import { makePhoto } from "@/tests/helpers/factories.ts";
import { heicPhoto, jpegPhoto, loadPhoto, pngPhoto } from "@/tests/helpers/photos.ts";

const IMMUTABLE = "private, max-age=31536000, immutable";

const allowAll: MiddlewareHandler = async (_c, next) => {
  await next();
};

/** The photo routes behind a guard that lets everyone in (the app mounts them behind the session guard). */
function viewer(a: TestApp, guard: MiddlewareHandler = allowAll) {
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
    const allow: MiddlewareHandler = async (c, next) => {
      seen.push(c.req.path);
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
  const { makeClaim, makeUser } = await import("@/tests/helpers/factories.ts");
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
