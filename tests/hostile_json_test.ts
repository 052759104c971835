/**
 * JSON built to hurt the parser or the objects it makes (docs/security.md "Controls and their tests"): nesting
 * as deep as the body cap allows, and `__proto__` / `constructor` keys, on the mobile handler and the
 * tablet's JSON API. Each gets the face's validation answer, never a fault, and no object's prototype changes.
 */
import assert from "node:assert/strict";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeUser } from "@/testkit/factories.ts";
import { makeDriver, Tablet } from "@/tests/helpers/tablet.ts";

/** An array nested as deep as a 64 KiB body holds. */
const deepArray = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

function postHandler(a: TestApp, body: string) {
  return Promise.resolve(a.app.request(`/api/handler?publickey=${encodeURIComponent(a.config.publicKey)}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  }));
}

appTest("hostile JSON: the handler answers deep nesting and __proto__ keys with D9 failures", async (a) => {
  const user = await makeUser(a.db);
  const bodies = [
    `{"payload":${deepArray(30_000)}}`,
    `{"payload":{"event_type":"Parts_search_details","user_email":"${user.email}","details":${
      deepArray(30_000)
    }}}`,
    `{"payload":{"event_type":"Parts_search_details","user_email":"${user.email}",` +
    `"details":{"__proto__":{"rego":"ABC123","movement_type":"direct"}}}}`,
    `{"__proto__":{"payload":{"event_type":"Parts_search_details"}}}`,
    `{"payload":{"constructor":{"prototype":{"polluted":true}},"event_type":"Parts_search_details"}}`,
  ];
  for (const body of bodies) {
    const res = await postHandler(a, body);
    assert.equal(res.status, 200, body.slice(0, 80));
    const answer = await res.json();
    assert.equal(answer.code, 3000, body.slice(0, 80));
    assert.equal(answer.result.status, "failure");
    assert.match(answer.result.text, /^Invalid request: /);
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(({} as Record<string, unknown>).rego, undefined);
});

appTest("hostile JSON: the tablet API answers deep nesting and __proto__ keys with 422", async (a) => {
  const driver = await makeDriver(a);
  const tablet = new Tablet(a);
  await tablet.signIn(driver);
  const post = (body: string) =>
    tablet.request("/tablet/api/search", {
      method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": tablet.csrf },
      body,
    });
  for (
    const body of [
      deepArray(30_000),
      `{"job":"deliver","rego":${deepArray(30_000)}}`,
      `{"__proto__":{"job":"deliver","rego":"ABC123"}}`,
    ]
  ) {
    const res = await post(body);
    assert.ok([400, 422].includes(res.status), `${body.slice(0, 40)}: ${res.status}`);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(typeof (await res.json()).message, "string");
  }
  assert.equal(({} as Record<string, unknown>).job, undefined);
});
