/**
 * The cross-site check (routes/web/session.ts csrfProtect) and the session cookie: the check
 * never reads a body off the network (items 3), the JSON and photo endpoints take the token from the
 * header only, signing in works whatever other session the browser holds (item 8b), and outside
 * development the cookie is `__Host-pm_session` and HSTS is on (item 7).
 */
import assert from "node:assert/strict";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeStaff, signedIn, TEST_PASSWORD } from "@/tests/helpers/hq.ts";
import { hugeUpload } from "@/tests/helpers/multipart.ts";

const PRODUCTION = { appEnv: "production", publicKey: "production-public-key" } as const;

function streamed(a: TestApp, path: string, cookie: string, stream: ReadableStream<Uint8Array>) {
  return a.app.request(path, {
    method: "POST",
    headers: { cookie, "content-type": "multipart/form-data; boundary=b0undary" },
    body: stream,
    duplex: "half",
  } as RequestInit);
}

appTest("csrf: a photo streamed to the tablet without a token is refused unread", async (a) => {
  const driver = await signedIn(a, "driver");
  const upload = hugeUpload("b0undary", 50 * 1024 * 1024, 64 * 1024);
  const res = await streamed(
    a,
    "/tablet/api/photos?job=deliver&rego=ABC123&part_id=1",
    driver.cookie,
    upload.stream,
  );
  assert.equal(res.status, 403);
  assert.match((await res.json()).message, /This form has expired/);
  // The check took no form field from the body: at most the first piece was pulled, then it was cancelled.
  assert.ok(upload.stats.pulled < 1024 * 1024, `${upload.stats.pulled} bytes pulled`);
  assert.equal(upload.stats.cancelled, true);
});

appTest("csrf: the tablet's JSON endpoints take the token from the X-CSRF-Token header only", async (a) => {
  const driver = await signedIn(a, "driver");
  const form = await driver.request("/tablet/api/search", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: driver.csrf, job: "deliver", rego: "ABC123" }),
  });
  assert.equal(form.status, 403);
  assert.match((await form.json()).message, /This form has expired/);
  const header = await driver.request("/tablet/api/search", {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": driver.csrf },
    body: JSON.stringify({ job: "deliver", rego: "NOSUCH1" }),
  });
  assert.equal(header.status, 422, "past the check, to the search");
  assert.ok((await header.json()).message);
});

appTest("csrf: a page form's _csrf field still counts (read from the body the limit buffered)", async (a) => {
  const dispatcher = await signedIn(a, "dispatcher");
  const res = await dispatcher.post("/hq/sign-out");
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/hq/sign-in?signed_out=1");
  const without = await (await signedIn(a, "dispatcher")).post("/hq/sign-out", { _csrf: "" });
  assert.equal(without.status, 403);
});

appTest("csrf: signing in to HQ works while a driver's session is live in the same browser", async (a) => {
  const driver = await signedIn(a, "driver");
  const dispatcher = await makeStaff(a);
  const form = { email: dispatcher.email, password: TEST_PASSWORD, next: "/hq/movements" };
  // The sign-in page is rendered with no token for the driver's session, so the post carries none.
  const res = await driver.request("/hq/sign-in", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost" },
    body: new URLSearchParams(form),
  });
  assert.equal(res.status, 303, await res.clone().text());
  assert.equal(res.headers.get("location"), "/hq/movements");
  assert.match(res.headers.get("set-cookie") ?? "", /^pm_session=[^;]+;/);
  // The origin check still holds for sign-in.
  const crossSite = await driver.request("/hq/sign-in", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
    body: new URLSearchParams(form),
  });
  assert.equal(crossSite.status, 403);
  await crossSite.body?.cancel();
});

appTest(
  "session cookie: outside development it is __Host-pm_session (Secure, Path=/), and only that name counts",
  async (a) => {
    const dispatcher = await makeStaff(a);
    const res = await a.app.request("/hq/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: dispatcher.email, password: TEST_PASSWORD, next: "/hq/parts" }),
    });
    assert.equal(res.status, 303, await res.clone().text());
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-pm_session=")) ?? "";
    assert.match(cookie, /^__Host-pm_session=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    const token = /^__Host-pm_session=([^;]+)/.exec(cookie)![1];

    const page = await a.app.request("/hq/parts", { headers: { cookie: `__Host-pm_session=${token}` } });
    assert.equal(page.status, 200);
    await page.body?.cancel();
    const bare = await a.app.request("/hq/parts", { headers: { cookie: `pm_session=${token}` } });
    assert.equal(bare.status, 303, "the bare name is not the session cookie here");
    assert.match(bare.headers.get("location")!, /^\/hq\/sign-in/);

    const out = await a.app.request("/hq/sign-out", {
      method: "POST",
      headers: { cookie: `__Host-pm_session=${token}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: await csrfOf(a, token) }),
    });
    assert.equal(out.status, 303);
    assert.match(out.headers.get("set-cookie") ?? "", /^__Host-pm_session=; Max-Age=0; Path=\/; Secure/);
  },
  { config: PRODUCTION },
);

appTest(
  "security headers: Strict-Transport-Security for two years with subdomains outside development",
  async (a) => {
    for (const path of ["/healthz", "/hq/sign-in", "/no-such-page"]) {
      const res = await a.app.request(path);
      await res.body?.cancel();
      const hsts = res.headers.get("strict-transport-security") ?? "";
      const maxAge = Number(/max-age=(\d+)/.exec(hsts)?.[1]);
      assert.ok(maxAge >= 365 * 24 * 3600, `${path}: ${hsts}`);
      assert.match(hsts, /; includeSubDomains$/, path);
    }
  },
  { config: PRODUCTION },
);

appTest(
  "security headers: no Strict-Transport-Security in development (plain http://localhost)",
  async (a) => {
    const res = await a.app.request("/healthz");
    await res.body?.cancel();
    assert.equal(res.headers.get("strict-transport-security"), null);
  },
);

async function csrfOf(a: TestApp, token: string): Promise<string> {
  const { hashToken } = await import("@/io/tokens.ts");
  const row = await a.db.selectFrom("sessions").select("csrf_token").where(
    "token_hash",
    "=",
    hashToken(token),
  )
    .executeTakeFirstOrThrow();
  return row.csrf_token;
}
