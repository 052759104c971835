import assert from "node:assert/strict";
import { hashPin } from "@/io/pin.ts";
import { appTest } from "@/testkit/app.ts";
import { makeUser } from "@/testkit/factories.ts";
import { anonymous, pageText, signedIn, withAssets } from "@/tests/helpers/hq.ts";

const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields),
  redirect: "manual" as const,
});

appTest(
  "hq sign-in: a dispatcher signs in with e-mail and password, lands on next, and signs out",
  async (a) => {
    await withAssets();
    await makeUser(a.db, {
      role: "dispatcher",
      name: "Priya Dispatch",
      email: "priya@depot.example",
      passwordHash: await hashPin("dispatcher-demo-2468"),
    });
    const page = await a.app.request("/hq/sign-in?next=/hq/movements");
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type")!, /^text\/html/);
    assert.match(await page.text(), /name="next" value="\/hq\/movements"/);

    const res = await a.app.request(
      "/hq/sign-in",
      form({ email: "Priya@Depot.example ", password: "dispatcher-demo-2468", next: "/hq/movements" }),
    );
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/hq/movements");
    const cookie = res.headers.get("set-cookie")!;
    assert.match(cookie, /pm_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict/);
    const session = cookie.split(";")[0];

    const movements = await a.app.request("/hq/movements", { headers: { cookie: session } });
    const html = await movements.text();
    assert.equal(movements.status, 200);
    assert.equal(movements.headers.get("cache-control"), "no-store");
    assert.match(html, /Priya/);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)![1];

    const out = await a.app.request("/hq/sign-out", {
      ...form({ _csrf: csrf }),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: session },
    });
    assert.equal(out.status, 303);
    assert.equal(out.headers.get("location"), "/hq/sign-in?signed_out=1");
    const after = await a.app.request("/hq/movements", { headers: { cookie: session }, redirect: "manual" });
    assert.equal(after.status, 303);
    assert.equal(after.headers.get("location"), "/hq/sign-in?next=%2Fhq%2Fmovements");
  },
);

appTest(
  "hq sign-in: a wrong password says so, five lock the user (same words), and next cannot leave /hq",
  async (a) => {
    await withAssets();
    await makeUser(a.db, {
      role: "admin",
      email: "al@depot.example",
      passwordHash: await hashPin("admin-demo-9999"),
    });
    const wrong = await a.app.request("/hq/sign-in", form({ email: "al@depot.example", password: "1111" }));
    assert.match(await pageText(wrong, 401), /Wrong e-mail or password\./);
    for (let i = 0; i < 4; i++) {
      await a.app.request("/hq/sign-in", form({ email: "al@depot.example", password: "1111" }));
    }
    const right = await a.app.request(
      "/hq/sign-in",
      form({ email: "al@depot.example", password: "admin-demo-9999" }),
    );
    assert.match(await pageText(right, 401), /Wrong e-mail or password\./);

    a.clock.advance(5 * 60_000);
    const ok = await a.app.request(
      "/hq/sign-in",
      form({ email: "al@depot.example", password: "admin-demo-9999", next: "//evil.example/hq" }),
    );
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get("location"), "/hq");
  },
);

appTest(
  "hq access: drivers get 403 everywhere, dispatchers 403 on admin pages, anonymous is sent to sign-in",
  async (a) => {
    const driver = await signedIn(a, "driver");
    for (
      const path of ["/hq/parts", "/hq/movements", "/hq/trips", "/hq/announcements", "/hq/exports/parts.csv"]
    ) {
      const res = await driver.get(path);
      assert.equal(res.status, 403, path);
      assert.match(await res.text(), /for dispatcher and admin users\. You are signed in as a driver/);
    }
    const post = await driver.post("/hq/parts/1/status", { from: "Ordered", to: "Arrived" });
    assert.equal(post.status, 403);

    const dispatcher = await signedIn(a, "dispatcher");
    assert.equal((await dispatcher.get("/hq/parts")).status, 200);
    for (const path of ["/hq/admin/users", "/hq/admin/places", "/hq/admin/import", "/hq/%61dmin/users"]) {
      const res = await dispatcher.get(path);
      assert.ok(res.status === 403 || res.status === 404, `${path}: ${res.status}`);
      assert.notEqual(res.status, 200);
    }
    const add = await dispatcher.post("/hq/admin/users", {
      email: "x@depot.example",
      name: "X",
      role: "admin",
      pin: "1234",
    });
    assert.equal(add.status, 403);
    assert.equal(
      await a.db.selectFrom("users").select("id").where("email", "=", "x@depot.example").executeTakeFirst(),
      undefined,
    );

    const admin = await signedIn(a, "admin");
    assert.equal((await admin.get("/hq/admin/users")).status, 200);
    assert.equal((await admin.get("/hq/parts")).status, 200);

    const anon = anonymous(a);
    const res = await anon.get("/hq/admin/users");
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/hq/sign-in?next=%2Fhq%2Fadmin%2Fusers");
    assert.equal((await anon.post("/hq/parts/1/status", {})).status, 401);
  },
);

appTest("hq access: every form needs the session's CSRF token and this origin", async (a) => {
  const admin = await signedIn(a, "admin");
  const fields = { name: "Shop CSRF", address: "" };
  const missing = await admin.request("/hq/admin/places/repairers", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
  assert.equal(missing.status, 403);
  assert.match(await missing.text(), /This form has expired/);
  const wrong = await admin.post("/hq/admin/places/repairers", { ...fields, _csrf: "nope" });
  assert.equal(wrong.status, 403);
  const crossSite = await admin.post("/hq/admin/places/repairers", fields, {
    origin: "https://evil.example",
  });
  assert.equal(crossSite.status, 403);
  assert.match(await crossSite.text(), /Cross-site request refused/);
  assert.equal(
    await a.db.selectFrom("repairers").select("id").where("name", "=", "Shop CSRF").executeTakeFirst(),
    undefined,
  );
  const ok = await admin.post("/hq/admin/places/repairers", fields);
  assert.equal(ok.status, 303);
});

appTest("photos: need a signed-in session of any role", async (a) => {
  const anon = await a.app.request("/photos/1/thumb");
  assert.equal(anon.status, 401);
  const driver = await signedIn(a, "driver");
  assert.equal((await driver.get("/photos/999999")).status, 404);
});
