/**
 * Error answers by face (routes/web/error_pages.tsx): styled HTML 403/404/503 on the dashboard and tablet
 * pages, JSON on the mobile API and the tablet's JSON endpoints.
 */
import assert from "node:assert/strict";
import { openDb } from "@/db/client.ts";
import { FakeClock } from "@/io/clock.ts";
import { testConfig } from "@/io/config.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { createApp } from "@/main.ts";
import { appTest } from "@/testkit/app.ts";
import { pageText, signedIn, withAssets } from "@/tests/helpers/hq.ts";

/** The marks of a styled page: the stylesheet, and the shell's banner. */
async function styledPage(res: Response, status: number, banner: RegExp): Promise<string> {
  const html = await res.clone().text();
  assert.match(html, /<link rel="stylesheet" href="\/static\/dist\/[^"]+\.css"/);
  const text = await pageText(res, status);
  assert.match(text, banner);
  return text;
}

const HQ_BANNER = /Parts Movement · HQ/;
const TABLET_BANNER = /Parts Movement/;

appTest(
  "error pages: a dispatcher opening an admin page gets the styled 403 page in the HQ shell",
  async (a) => {
    const dispatcher = await signedIn(a, "dispatcher");
    const text = await styledPage(await dispatcher.get("/hq/admin/users"), 403, HQ_BANNER);
    assert.match(text, /This page is for admin users\. You are signed in as a dispatcher\./);
    assert.match(text, /Back to parts/);
    // The shell shows who is signed in, without the admin links.
    assert.match(text, /Sign out/);
    assert.doesNotMatch(text, /Repair shops & HQ/);
  },
);

appTest("error pages: unknown dashboard and tablet pages answer a styled 404 page", async (a) => {
  const dispatcher = await signedIn(a, "dispatcher");
  assert.match(
    await styledPage(await dispatcher.get("/hq/nope"), 404, HQ_BANNER),
    /This page does not exist\./,
  );
  const driver = await signedIn(a, "driver");
  const text = await styledPage(await driver.get("/tablet/nope"), 404, TABLET_BANNER);
  assert.match(text, /This page does not exist\. Back to the jobs/);
  // A receipt that is not the driver's is a styled page too.
  assert.match(
    await styledPage(await driver.get("/tablet/movements/424242"), 404, TABLET_BANNER),
    /Movement not found\./,
  );
});

appTest("error pages: API paths and the tablet's JSON endpoints still answer JSON", async (a) => {
  const driver = await signedIn(a, "driver");
  for (const path of ["/api/nope", "/api/v2.1/nope", "/tablet/api/nope", "/photos/abc"]) {
    const res = await driver.get(path);
    assert.equal(res.status, 404, path);
    assert.match(res.headers.get("content-type")!, /^application\/json/, path);
    assert.deepEqual(await res.json(), { code: 4040, message: "Not found." }, path);
  }
  // A dispatcher on the tablet's JSON endpoints: the refusal is `{message}` for the island to show.
  const dispatcher = await signedIn(a, "dispatcher");
  const res = await dispatcher.post("/tablet/api/ping", {}, { "x-csrf-token": dispatcher.csrf });
  assert.equal(res.status, 403);
  assert.deepEqual(await res.json(), {
    message: "This page is for driver and admin users. You are signed in as a dispatcher.",
  });
});

Deno.test({
  name: "error pages: an unexpected fault is a styled 503 page on page paths, the 5030 JSON answer elsewhere",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await withAssets();
    // Nothing listens on port 1: loading the session fails, as when the database server is down.
    const db = openDb({ url: "postgres://postgres@127.0.0.1:1/none", poolSize: 1 });
    const app = createApp({
      db,
      config: testConfig(),
      clock: new FakeClock(),
      storage: new DiskPhotoStore("./test-output/none"),
    });
    const headers = { cookie: "pm_session=x" };
    const page = await app.request("/hq/parts", { headers });
    const text = await styledPage(page, 503, HQ_BANNER);
    assert.match(
      text,
      /^Service unavailable.*Service temporarily unavailable\. Try again \(ref [0-9a-f-]{36}\)\./,
    );
    assert.doesNotMatch(text, /ECONNREFUSED/);
    assert.equal((await app.request("/tablet", { headers })).status, 503);
    const api = await app.request("/tablet/api/ping", { method: "POST", headers });
    assert.equal(api.status, 503);
    assert.equal((await api.json()).code, 5030);
    await db.destroy();
  },
});
