/**
 * Every route that takes a body has a body limit in front of its handler: the routes are read from the
 * built app (Hono's `app.routes`), so a route mounted later without one fails this test.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { signedIn } from "@/tests/helpers/hq.ts";

/** A declared length over every limit of the app (the largest, the CSV import's, is about 5 MB). */
const HUGE = String(1024 ** 3);

/**
 * The routes of `app` (method and path) that do not answer 413 to a declared oversized body sent with an
 * admin's session, CSRF token and public key, so only a size check can refuse it.
 */
async function routesWithoutLimit(a: TestApp, app: Hono): Promise<string[]> {
  const admin = await signedIn(a, "admin");
  const routes = new Set(
    app.routes.filter((r) => !["GET", "HEAD", "OPTIONS", "ALL"].includes(r.method))
      .map((r) => `${r.method} ${r.path}`),
  );
  const missing: string[] = [];
  for (const route of routes) {
    const [method, pattern] = route.split(" ");
    // Every parameter as "1": a number fits each pattern of ids, and names are not checked before the limit.
    const path = pattern.split("/").map((s) => s.startsWith(":") ? "1" : s).join("/");
    const res = await app.request(`${path}?publickey=${encodeURIComponent(a.config.publicKey)}`, {
      method,
      headers: {
        cookie: admin.cookie,
        "x-csrf-token": admin.csrf,
        origin: "http://localhost",
        "content-type": "application/x-www-form-urlencoded",
        "content-length": HUGE,
      },
      body: `_csrf=${admin.csrf}`,
    });
    await res.body?.cancel();
    if (res.status !== 413) missing.push(`${route} answered ${res.status}`);
  }
  return missing;
}

appTest("body limits: every POST route of the app refuses an oversized body with 413", async (a) => {
  const posts = a.app.routes.filter((r) => r.method === "POST").map((r) => r.path);
  // The handler, 2b, the two sign-in areas, the tablet API, the dashboard forms.
  for (const path of ["/api/handler", "/tablet/api/photos", "/hq/admin/import", "/hq/parts/:id/status"]) {
    assert.ok(posts.includes(path), `${path} among ${posts.join(", ")}`);
  }
  assert.deepEqual(await routesWithoutLimit(a, a.app), []);
});

appTest("body limits: the walk finds a POST route mounted without a limit", async (a) => {
  const withStray = new Hono().route("/", a.app);
  // Outside every area (a route under /hq/ would get the staff area's limit by being there).
  withStray.post("/stray", (c) => c.text("read it all"));
  assert.deepEqual(await routesWithoutLimit(a, withStray), ["POST /stray answered 200"]);
});
