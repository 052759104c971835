import assert from "node:assert/strict";
import { clientAddressOf, LIMITS } from "@/routes/web/rate_limits.ts";
import { appTest } from "@/testkit/app.ts";
import { makeUser } from "@/testkit/factories.ts";

const search = (email: string) => ({
  event_type: "Parts_search_details",
  user_email: email,
  details: { rego: "NOPE99", movement_type: "direct" },
});

appTest(
  "rate limits: a user over the handler limit gets 429 with Retry-After, and may go on after a minute",
  async (a) => {
    const user = await makeUser(a.db);
    for (let i = 0; i < LIMITS.handlerPerUser; i++) {
      const res = await a.handler(search(user.email));
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    const refused = await a.handler(search(user.email));
    assert.equal(refused.status, 429);
    assert.match(refused.headers.get("content-type")!, /^application\/json/);
    const retryAfter = Number(refused.headers.get("retry-after"));
    assert.ok(retryAfter >= 1 && retryAfter <= 60);
    const body = await refused.json();
    assert.equal(body.code, 1429);
    assert.match(body.message, /^Too many requests\. Try again in \d+ s\.$/);

    // Another user is not held back by the first one's limit.
    const other = await makeUser(a.db);
    assert.equal((await a.call(search(other.email))).result.status, "failure");

    a.clock.advance(60_000);
    const res = await a.handler(search(user.email));
    assert.equal(res.status, 200);
    await res.body?.cancel();
  },
  { config: { rateLimits: true } },
);

appTest(
  "rate limits: the handler's per-user quota is per (address, e-mail): a flood from elsewhere leaves the driver's own address working",
  async (a) => {
    const driver = await makeUser(a.db);
    await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, a.app.fetch);
    const url = `http://127.0.0.1:${server.addr.port}/api/handler?publickey=${a.config.publicKey}`;
    // TRUSTED_PROXIES names the loopback peer, so X-Forwarded-For's last entry is the client's address.
    const from = (address: string) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": address },
        body: JSON.stringify({ payload: search(driver.email) }),
      });
    for (let i = 0; i < LIMITS.handlerPerUser; i++) {
      const res = await from("198.51.100.9");
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    const flooded = await from("198.51.100.9");
    assert.equal(flooded.status, 429);
    await flooded.body?.cancel();
    // The driver's phone, from its own address, is answered as usual.
    const own = await from("203.0.113.7");
    assert.equal(own.status, 200);
    assert.equal((await own.json()).result.text, "Rego not found");
  },
  { config: { rateLimits: true, trustedProxies: ["127.0.0.1"] }, only: "pglite" },
);

appTest("rate limits: the sign-in forms allow a bounded number of attempts per address", async (a) => {
  let last: Response | undefined;
  for (let i = 0; i <= LIMITS.signInPerAddress; i++) {
    last = await a.app.request("/hq/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=nobody%40depot.example&password=0000",
    });
    if (i < LIMITS.signInPerAddress) {
      assert.notEqual(last.status, 429);
      await last.body?.cancel();
    }
  }
  assert.equal(last!.status, 429);
  assert.ok(Number(last!.headers.get("retry-after")) >= 1);
}, { config: { rateLimits: true } });

appTest("rate limits: the tablet's sign-in form is limited per address like the dashboard's", async (a) => {
  const attempt = () =>
    a.app.request("/tablet/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=nobody%40depot.example&pin=0000",
    });
  for (let i = 0; i < LIMITS.signInPerAddress; i++) {
    const res = await attempt();
    assert.notEqual(res.status, 429);
    await res.body?.cancel();
  }
  const refused = await attempt();
  assert.equal(refused.status, 429);
  assert.match(await refused.text(), /^Too many requests\. Try again in \d+ s\.$/);
  // The sign-in page itself is not counted.
  const page = await a.app.request("/tablet/sign-in");
  assert.notEqual(page.status, 429);
  await page.body?.cancel();
}, { config: { rateLimits: true } });

appTest("rate limits: the upload path is limited per address, answered in the protocol's JSON", async (a) => {
  for (let i = 0; i < LIMITS.uploadPerAddress; i++) {
    const res = await a.app.request("/api/v2.1/nope", { method: "POST" });
    assert.equal(res.status, 404);
    await res.body?.cancel();
  }
  const refused = await a.app.request("/api/v2.1/nope", { method: "POST" });
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers.get("retry-after")) >= 1);
  assert.equal((await refused.json()).code, 1429);
}, { config: { rateLimits: true }, only: "pglite" });

Deno.test("rate limits: behind a trusted proxy the client is X-Forwarded-For's last entry, else the peer", () => {
  const trusted = ["127.0.0.1"];
  // deploy/nginx.conf replaces the header with the client's address.
  assert.equal(clientAddressOf("127.0.0.1", "203.0.113.7", trusted), "203.0.113.7");
  // Entries a client wrote before the proxy's own are not believed.
  assert.equal(clientAddressOf("127.0.0.1", "10.9.9.9, 203.0.113.7", trusted), "203.0.113.7");
  // From any other peer the header is the client's own claim: ignored.
  assert.equal(clientAddressOf("198.51.100.2", "203.0.113.7", trusted), "198.51.100.2");
  assert.equal(clientAddressOf("198.51.100.2", "203.0.113.7", []), "198.51.100.2");
  assert.equal(clientAddressOf("127.0.0.1", undefined, trusted), "127.0.0.1");
  assert.equal(clientAddressOf("127.0.0.1", " ", trusted), "127.0.0.1");
});
