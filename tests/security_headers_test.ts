import assert from "node:assert/strict";
import { openDb } from "@/db/client.ts";
import { FakeClock } from "@/io/clock.ts";
import { testConfig } from "@/io/config.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { createApp } from "@/main.ts";
import { appTest } from "@/testkit/app.ts";

appTest(
  "security headers: every answer carries the CSP, nosniff, no framing and a referrer policy",
  async (a) => {
    for (const path of ["/healthz", "/no-such-page", "/api/handler"]) {
      const res = await a.app.request(path);
      await res.body?.cancel();
      const csp = res.headers.get("content-security-policy") ?? "";
      assert.match(csp, /script-src 'self'(;|$)/, path);
      assert.doesNotMatch(csp, /'unsafe-inline'[^;]*;?\s*(?=script)|script-src[^;]*unsafe/, path);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", path);
      assert.equal(res.headers.get("x-frame-options"), "DENY", path);
      assert.equal(res.headers.get("referrer-policy"), "same-origin", path);
    }
    // The tablet's pages may compile WebAssembly (the camera scan's QR decoder), and nothing else more.
    for (const path of ["/tablet", "/tablet/deliver", "/tablet/sign-in"]) {
      const res = await a.app.request(path);
      await res.body?.cancel();
      const csp = res.headers.get("content-security-policy") ?? "";
      const scripts = csp.split(";").map((d) => d.trim()).filter((d) => d.startsWith("script-src"));
      assert.deepEqual(scripts, ["script-src 'self' 'wasm-unsafe-eval'"], path);
    }
    const hq = await a.app.request("/tablets");
    await hq.body?.cancel();
    assert.doesNotMatch(
      hq.headers.get("content-security-policy") ?? "",
      /wasm/,
      "/tablets is not the tablet's",
    );
  },
);

Deno.test({
  name: "unexpected faults (database unreachable) answer 503 with a reference, without internals",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    // Nothing listens on port 1: every query fails to connect, as when the database server is down.
    const db = openDb({ url: "postgres://postgres@127.0.0.1:1/none", poolSize: 1 });
    const config = testConfig();
    const app = createApp({
      db,
      config,
      clock: new FakeClock(),
      storage: new DiskPhotoStore("./test-output/none"),
    });
    const res = await app.request(`/api/handler?publickey=${config.publicKey}`, {
      method: "POST",
      body: JSON.stringify({
        payload: {
          event_type: "Parts_search_details",
          user_email: "x@depot.example",
          details: { rego: "ABC123", movement_type: "direct" },
        },
      }),
    });
    assert.equal(res.status, 503);
    assert.match(res.headers.get("content-type")!, /^application\/json/);
    const body = await res.json();
    assert.equal(body.code, 5030);
    assert.match(body.message, /^Service temporarily unavailable\. Try again \(ref [0-9a-f-]{36}\)\.$/);
    const health = await app.request("/healthz");
    assert.equal(health.status, 503);
    assert.deepEqual(await health.json(), { status: "unavailable" });
    await db.destroy();
  },
});

appTest("body limits: tablet forms and JSON endpoints refuse bodies over 64 KiB with 413", async (a) => {
  for (const path of ["/tablet/sign-in", "/tablet/api/search", "/tablet/api/movements"]) {
    const res = await a.app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://localhost" },
      body: JSON.stringify({ rego: "x".repeat(70 * 1024) }),
    });
    assert.equal(res.status, 413, path);
    await res.body?.cancel();
  }
});
