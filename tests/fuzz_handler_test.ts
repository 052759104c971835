/**
 * Fuzzing the mobile handler with fast-check: random and mutated payloads, headers and bodies. Whatever
 * arrives, the answer is never a 5xx, never a stack trace, and always one of the envelopes of D7/D8.
 */
import assert from "node:assert/strict";
import fc from "@/tests/helpers/fast_check.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeUser } from "@/testkit/factories.ts";

const EVENT_TYPES = [
  "Parts_search_details",
  "parts_movement_upload_token",
  "parts_drop_off",
  "parts_pick_up_reverse",
  "parts_drop_off_reverse",
];

/** Checks one answer against D7/D8: the only shapes the handler may answer with. */
async function assertEnvelope(res: Response, context: unknown): Promise<void> {
  const text = await res.text();
  const where = `${res.status} ${text.slice(0, 300)} for ${JSON.stringify(context).slice(0, 300)}`;
  assert.ok(res.status < 500, `5xx: ${where}`);
  assert.ok(!/\bat .+\.(ts|js):\d+/.test(text), `stack trace: ${where}`);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/, where);
  const body = JSON.parse(text);
  if (res.status === 200) {
    assert.equal(body.code, 3000, where);
    assert.ok(
      body.result?.status === "success"
        ? typeof body.result.data === "object"
        : typeof body.result?.text === "string",
      where,
    );
  } else {
    assert.ok([400, 401, 413, 429].includes(res.status), where);
    assert.equal(typeof body.code, "number", where);
    assert.notEqual(body.code, 3000, where);
    assert.equal(typeof body.message, "string", where);
  }
}

/** A payload that is valid-looking at the top and random below: the mutations the app could send. */
function payloadArbitrary(email: string, rego: string, partIds: number[]) {
  const anyValue = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(fc.anything(), { maxLength: 3 }),
    fc.object({ maxDepth: 2 }),
  );
  const id = fc.oneof(fc.constantFrom(...partIds), fc.constantFrom(...partIds.map(String)), anyValue);
  const part = fc.record(
    { parts_order_id: id, confirm: fc.oneof(fc.boolean(), anyValue), image_id: fc.oneof(id, anyValue) },
    { requiredKeys: [] },
  );
  const details = fc.record({
    rego: fc.oneof(fc.constant(rego), fc.string({ maxLength: 12 }), anyValue),
    movement_type: fc.oneof(fc.constantFrom("direct", "reverse"), anyValue),
    delivery_location: fc.oneof(fc.record({ id: id, name: fc.string() }), fc.constant(""), anyValue),
    parts: fc.oneof(fc.array(part, { maxLength: 5 }), anyValue),
    parts_movement_id: fc.oneof(id, anyValue),
  }, { requiredKeys: [] });
  return fc.record({
    event_type: fc.oneof(fc.constantFrom(...EVENT_TYPES), fc.string(), anyValue),
    user_email: fc.oneof(fc.constant(email), fc.emailAddress(), anyValue),
    details: fc.oneof(details, anyValue),
    Parts_Order: fc.oneof(id, anyValue),
    Movement_Stage: fc.oneof(
      fc.constantFrom("direct_dropoff", "reverse_pickup", "reverse_dropoff"),
      anyValue,
    ),
    rego: fc.oneof(fc.constant(rego), anyValue),
  }, { requiredKeys: [] });
}

async function seed(a: TestApp) {
  const user = await makeUser(a.db);
  const { parts } = await makeClaim(a.db, {
    registration: "FUZ 123",
    parts: [{ status: "Arrived" }, { status: "Pending Repair Shop Pick-Up" }],
  });
  return { email: user.email, partIds: parts.map((p) => p.id) };
}

appTest("handler fuzz: random payloads always get a D8 envelope, never a 5xx or a stack trace", async (a) => {
  const { email, partIds } = await seed(a);
  await fc.assert(
    fc.asyncProperty(payloadArbitrary(email, "FUZ123", partIds), async (payload) => {
      await assertEnvelope(await a.handler(payload), payload);
    }),
    { numRuns: 400 },
  );
});

appTest("handler fuzz: random bodies, content types and keys get D7 answers", async (a) => {
  const key = a.config.publicKey;
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ payload: v }))),
      fc.oneof(fc.constant(key), fc.string(), fc.constant(undefined)),
      fc.constantFrom(
        "application/json",
        "text/plain",
        "multipart/form-data",
        "application/x-www-form-urlencoded",
      ),
      async (body, publickey, contentType) => {
        const query = publickey === undefined ? "" : `?publickey=${encodeURIComponent(publickey)}`;
        const res = await a.app.request(`/api/handler${query}`, {
          method: "POST",
          headers: { "content-type": contentType },
          body,
        });
        await assertEnvelope(res, { body, publickey, contentType });
      },
    ),
    { numRuns: 400 },
  );
});

appTest("handler fuzz: oversized bodies are refused with 413 before they are parsed", async (a) => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 64 * 1024 + 1, max: 512 * 1024 }), async (size) => {
      const res = await a.app.request(`/api/handler?publickey=${a.config.publicKey}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: `{"payload":"${"x".repeat(size)}"}`,
      });
      assert.equal(res.status, 413);
      await assertEnvelope(res, size);
    }),
    { numRuns: 20 },
  );
});
