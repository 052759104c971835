import assert from "node:assert/strict";
import { sql } from "kysely";
import { HANDLER_BODY_LIMIT } from "@/routes/api/handler.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeUser } from "@/testkit/factories.ts";
import { captureLogs } from "@/tests/helpers/observed.ts";
import { confirmed, dropOffPayload, flowSetup, writtenCounts } from "@/testkit/movements.ts";
import { COUNTED_SUBMISSIONS } from "@/testkit/round_trips.ts";

const JSON_TYPE = /^application\/json/;

/** POSTs a raw body to the handler with the given query string. */
function post(a: TestApp, body: BodyInit, query = `?publickey=${encodeURIComponent(a.config.publicKey)}`) {
  return Promise.resolve(a.app.request(`/api/handler${query}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  }));
}

/** Asserts the D8 failure envelope: HTTP 200, JSON, `result.status` failure, the text, code 3000. */
async function expectFailure(res: Response, text: string) {
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, JSON_TYPE);
  assert.deepEqual(await res.json(), { result: { status: "failure", text }, code: 3000 });
}

const search = (user_email: unknown, details: unknown = { rego: "ABC123", movement_type: "direct" }) => ({
  event_type: "Parts_search_details",
  user_email,
  details,
});

const tokenPayload = (user_email: string, part: number, rego: string) => ({
  event_type: "parts_movement_upload_token",
  Parts_Order: part,
  Movement_Stage: "direct_dropoff",
  rego,
  user_email,
});

// ---------------------------------------------------------------------------------------------------------
// Transport (D7)

appTest("handler D7: a wrong public key answers 401 Invalid public key", async (a) => {
  const user = await makeUser(a.db);
  const res = await post(a, JSON.stringify({ payload: search(user.email) }), "?publickey=not-the-key");
  assert.equal(res.status, 401);
  assert.match(res.headers.get("content-type")!, JSON_TYPE);
  assert.deepEqual(await res.json(), { code: 9370, message: "Invalid public key." });
});

appTest("handler D7: a missing or empty public key answers 401 Invalid public key", async (a) => {
  for (const query of ["", "?publickey=", "?publicKey=dev-public-key"]) {
    const res = await post(a, JSON.stringify({ payload: search("x@depot.example") }), query);
    assert.equal(res.status, 401, query);
    assert.match(res.headers.get("content-type")!, JSON_TYPE);
    assert.deepEqual(await res.json(), { code: 9370, message: "Invalid public key." });
  }
});

appTest("handler D7: the configured public key is the one checked", async (a) => {
  const user = await makeUser(a.db);
  await makeClaim(a.db, { registration: "ABC123", parts: [{ status: "Arrived" }] });
  const wrong = await post(a, JSON.stringify({ payload: search(user.email) }), "?publickey=dev-public-key");
  assert.equal(wrong.status, 401);
  await wrong.body?.cancel();
  const right = await post(
    a,
    JSON.stringify({ payload: search(user.email) }),
    "?publickey=s3cr%C3%A9t%20key",
  );
  assert.equal(right.status, 200);
  assert.match(right.headers.get("content-type")!, JSON_TYPE);
  assert.equal((await right.json()).result.status, "success");
}, { config: { publicKey: "s3crét key" } });

appTest(
  "handler: while a key rotation runs, PUBLIC_KEY and PUBLIC_KEY_PREVIOUS are both accepted",
  async (a) => {
    const user = await makeUser(a.db);
    await makeClaim(a.db, { registration: "ABC123", parts: [{ status: "Arrived" }] });
    const body = JSON.stringify({ payload: search(user.email) });
    for (const key of ["new-key-0123456789", "old-key-0123456789"]) {
      const res = await post(a, body, `?publickey=${key}`);
      assert.equal(res.status, 200, key);
      assert.equal((await res.json()).result.status, "success", key);
    }
    for (const key of ["dev-public-key", "new-key-012345678", "old-key-0123456789x", ""]) {
      const res = await post(a, body, `?publickey=${key}`);
      assert.equal(res.status, 401, key);
      assert.deepEqual(await res.json(), { code: 9370, message: "Invalid public key." });
    }
  },
  { config: { publicKey: "new-key-0123456789", publicKeyPrevious: "old-key-0123456789" } },
);

appTest("handler D7: a body that is not JSON answers 400 with code 1000", async (a) => {
  for (const body of ["not json", '{"payload":', ""]) {
    const res = await post(a, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(res.headers.get("content-type")!, JSON_TYPE);
    assert.deepEqual(await res.json(), { code: 1000, message: "Request body must be JSON." });
  }
});

appTest("handler D7: a body over 64 KiB answers 413, with or without a Content-Length", async (a) => {
  const user = await makeUser(a.db);
  const big = JSON.stringify({ payload: { ...search(user.email), padding: "x".repeat(HANDLER_BODY_LIMIT) } });
  assert.equal(HANDLER_BODY_LIMIT, 64 * 1024);
  const sized = await Promise.resolve(a.app.request(`/api/handler?publickey=${a.config.publicKey}`, {
    method: "POST",
    headers: { "content-type": "application/json", "content-length": String(big.length) },
    body: big,
  }));
  assert.equal(sized.status, 413);
  assert.match(sized.headers.get("content-type")!, JSON_TYPE);
  assert.notEqual((await sized.json()).code, 3000);

  const streamed = await post(a, ReadableStream.from([new TextEncoder().encode(big)]));
  assert.equal(streamed.status, 413);
  assert.match(streamed.headers.get("content-type")!, JSON_TYPE);
  await streamed.body?.cancel();
});

appTest("handler D7: a body just under 64 KiB is read", async (a) => {
  const user = await makeUser(a.db);
  const base = JSON.stringify({ payload: { ...search(user.email), padding: "" } });
  const body = JSON.stringify({
    payload: { ...search(user.email), padding: "x".repeat(HANDLER_BODY_LIMIT - base.length) },
  });
  assert.equal(body.length, HANDLER_BODY_LIMIT);
  await expectFailure(await post(a, body), "Rego not found");
});

// ---------------------------------------------------------------------------------------------------------
// The envelope (D8) and the request checks (D9)

appTest(
  "handler D8: a rule failure answers HTTP 200, result.status failure, the text, code 3000",
  async (a) => {
    const user = await makeUser(a.db);
    const res = await post(
      a,
      JSON.stringify({ payload: search(user.email, { rego: "NONE99", movement_type: "direct" }) }),
    );
    await expectFailure(res, "Rego not found");
  },
);

appTest("handler D9: a body without payload answers Invalid request: payload is required.", async (a) => {
  await expectFailure(await post(a, JSON.stringify({})), "Invalid request: payload is required.");
  await expectFailure(
    await post(a, JSON.stringify({ event_type: "Parts_search_details" })),
    "Invalid request: payload is required.",
  );
});

appTest("handler D9: a payload or body of the wrong type answers Invalid request naming it", async (a) => {
  const res = await post(a, JSON.stringify({ payload: "Parts_search_details" }));
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.code, 3000);
  assert.equal(body.result.status, "failure");
  assert.match(body.result.text, /^Invalid request: payload must be .+\.$/);
  for (const raw of ["null", "[]", "42"]) {
    const r = await post(a, raw);
    assert.equal(r.status, 200, raw);
    const b = await r.json();
    assert.equal(b.result.status, "failure", raw);
    assert.match(b.result.text, /^Invalid request: .+\.$/, raw);
  }
});

appTest(
  "handler D9: a payload without event_type answers Invalid request: event_type is required.",
  async (a) => {
    const user = await makeUser(a.db);
    await expectFailure(
      await a.handler({ user_email: user.email, details: { rego: "ABC123", movement_type: "direct" } }),
      "Invalid request: event_type is required.",
    );
    await expectFailure(
      await a.handler({ ...search(user.email), event_type: 7 }),
      "Invalid request: event_type must be a string.",
    );
  },
);

appTest("handler D9: an unknown event_type answers Unknown event_type <value>.", async (a) => {
  const user = await makeUser(a.db);
  for (const eventType of ["X", "parts_search_details", "toString", "__proto__", "constructor", ""]) {
    await expectFailure(
      await a.handler({ ...search(user.email), event_type: eventType }),
      `Unknown event_type ${eventType}.`,
    );
  }
});

appTest(
  "handler D9: a search without details.rego answers Invalid request: details.rego is required.",
  async (a) => {
    const user = await makeUser(a.db);
    await expectFailure(
      await a.handler(search(user.email, { movement_type: "direct" })),
      "Invalid request: details.rego is required.",
    );
  },
);

appTest(
  "handler D9: a wrong movement_type answers Invalid request naming details.movement_type",
  async (a) => {
    const user = await makeUser(a.db);
    for (const movementType of ["sideways", "Direct", ""]) {
      await expectFailure(
        await a.handler(search(user.email, { rego: "ABC123", movement_type: movementType })),
        "Invalid request: details.movement_type must be one of direct, reverse.",
      );
    }
    await expectFailure(
      await a.handler(search(user.email, { rego: "ABC123" })),
      "Invalid request: details.movement_type is required.",
    );
  },
);

appTest("handler D9: fields of the wrong type answer Invalid request: <path> <problem>.", async (a) => {
  const user = await makeUser(a.db);
  await expectFailure(
    await a.handler(search(user.email, { rego: 123, movement_type: "direct" })),
    "Invalid request: details.rego must be a string.",
  );
  await expectFailure(
    await a.handler(search(user.email, "ABC123")),
    "Invalid request: details must be an object.",
  );
  await expectFailure(
    await a.handler({ event_type: "Parts_search_details", user_email: user.email }),
    "Invalid request: details is required.",
  );
  await expectFailure(
    await a.handler(search(user.email, { rego: "A".repeat(65), movement_type: "direct" })),
    "Invalid request: details.rego must be at most 64 characters.",
  );
});

appTest(
  "handler D9: a missing or malformed user_email answers Invalid request naming user_email",
  async (a) => {
    await expectFailure(
      await a.handler({
        event_type: "Parts_search_details",
        details: { rego: "ABC123", movement_type: "direct" },
      }),
      "Invalid request: user_email is required.",
    );
    await expectFailure(
      await a.handler(search("not-an-address")),
      "Invalid request: user_email must be an e-mail address.",
    );
    await expectFailure(await a.handler(search(42)), "Invalid request: user_email must be a string.");
  },
);

appTest("handler D9: validation is checked before the user", async (a) => {
  await expectFailure(
    await a.handler(search("nobody@depot.example", { movement_type: "direct" })),
    "Invalid request: details.rego is required.",
  );
});

appTest("handler D9: an unknown user_email answers User not found.", async (a) => {
  await makeClaim(a.db, { registration: "ABC123", parts: [{ status: "Arrived" }] });
  await expectFailure(await a.handler(search("nobody@depot.example")), "User not found.");
});

appTest("handler D9/D24: a deactivated user answers User not found.", async (a) => {
  await makeClaim(a.db, { registration: "ABC123", parts: [{ status: "Arrived" }] });
  const user = await makeUser(a.db, { active: false });
  await expectFailure(await a.handler(search(user.email)), "User not found.");
});

appTest(
  "handler D24: it acts only for HANDLER_ROLES (drivers by default); any other user gets the unknown e-mail's answer",
  async (a) => {
    const s = await flowSetup(a, { status: "Arrived", stage: "direct_dropoff" });
    const rego = s.claim.registration;
    const unknown = "nobody@depot.example";
    const calls = (email: string) => [
      search(email, { rego, movement_type: "direct" }),
      tokenPayload(email, s.parts[0].id, rego),
      dropOffPayload(email, rego, s.shop, confirmed(s.pairs)),
    ];
    const unknownAnswers = [];
    for (const payload of calls(unknown)) unknownAnswers.push(await (await a.handler(payload)).json());
    assert.deepEqual(unknownAnswers.map((b) => b.result.text), Array(3).fill("User not found."));
    for (const role of ["dispatcher", "admin"] as const) {
      const staff = await makeUser(a.db, { role });
      const before = await writtenCounts(a.db);
      const answers = [];
      for (const payload of calls(staff.email)) answers.push(await (await a.handler(payload)).json());
      // Byte for byte what an unknown e-mail gets: the handler is no oracle for who is staff.
      assert.deepEqual(answers, unknownAnswers, role);
      assert.deepEqual(await writtenCounts(a.db), before, role);
    }
    for (const payload of calls(s.user.email)) {
      assert.equal((await a.call(payload)).result.status, "success", payload.event_type);
    }
  },
);

appTest("handler D24: HANDLER_ROLES may let other roles use the app", async (a) => {
  await makeClaim(a.db, { registration: "ABC123", parts: [{ status: "Arrived" }] });
  const admin = await makeUser(a.db, { role: "admin" });
  const dispatcher = await makeUser(a.db, { role: "dispatcher" });
  assert.equal((await a.call(search(admin.email))).result.status, "success");
  assert.equal((await a.call(search(dispatcher.email))).result.text, "User not found.");
}, { config: { handlerRoles: ["driver", "admin"] } });

appTest("handler D9: user_email is matched without case and surrounding spaces", async (a) => {
  await makeClaim(a.db, { registration: "ABC123", parts: [{ status: "Arrived" }] });
  await makeUser(a.db, { email: "dana@depot.example" });
  for (const email of ["Dana@Depot.Example", "  DANA@DEPOT.EXAMPLE "]) {
    const res = await a.handler(search(email));
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, JSON_TYPE);
    const body = await res.json();
    assert.equal(body.result.status, "success", email);
    assert.equal(body.code, 3000);
  }
});

// ---------------------------------------------------------------------------------------------------------
// IDs (D10) and faults

appTest("handler D10: IDs in a success answer are JSON numbers", async (a) => {
  const user = await makeUser(a.db);
  await makeClaim(a.db, { registration: "ABC123", parts: [{ status: "Arrived" }, { status: "Arrived" }] });
  const res = await a.handler(search(user.email));
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, JSON_TYPE);
  const raw = await res.text();
  const body = JSON.parse(raw);
  assert.deepEqual(Object.keys(body).sort(), ["code", "result"]);
  assert.equal(body.result.status, "success");
  assert.equal(typeof body.result.data.repairer, "number");
  for (const p of body.result.data.parts_list) assert.equal(typeof p.parts_order_id, "number");
  // No ID is quoted anywhere in the raw text.
  assert.doesNotMatch(raw, /"(repairer|parts_order_id)":"/);
});

appTest("handler: a database fault answers 503 without internals", async (a) => {
  const user = await makeUser(a.db);
  await a.db.destroy();
  let res: Response;
  let logged: string[];
  {
    using logs = captureLogs({ format: "text", level: "error" });
    res = await a.handler(search(user.email));
    logged = logs.lines;
  }
  assert.equal(res.status, 503);
  assert.match(res.headers.get("content-type")!, JSON_TYPE);
  const raw = await res.text();
  const body = JSON.parse(raw);
  assert.equal(body.code, 5030);
  assert.match(body.message, /^Service temporarily unavailable\. Try again \(ref [0-9a-f-]{36}\)\.$/);
  assert.doesNotMatch(raw, /destroyed|kysely|pglite|pg|stack|Error|at /i);
  // The reference in the answer is the one logged with the details.
  const ref = body.message.match(/ref ([0-9a-f-]{36})/)[1];
  assert.ok(logged.some((line) => line.includes(ref)), "the fault is logged with its reference");
});

// ---------------------------------------------------------------------------------------------------------
// Source address (docs/handler.md "Who the handler acts for")

appTest(
  "handler: each action's log line and each recorded movement's audit entry carry the source address",
  async (a) => {
    using logs = captureLogs();
    const s = await flowSetup(a, { status: "Arrived", stage: "direct_dropoff" });
    await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, a.app.fetch);
    const url = `http://127.0.0.1:${server.addr.port}/api/handler?publickey=${a.config.publicKey}`;
    const call = async (payload: unknown, forwardedFor: string) => {
      const res = await fetch(url, {
        method: "POST",
        // The trusted proxy's entry is the last one; the client's own claim before it is not believed.
        headers: { "content-type": "application/json", "x-forwarded-for": `10.6.6.6, ${forwardedFor}` },
        body: JSON.stringify({ payload }),
      });
      assert.equal(res.status, 200);
      return { id: res.headers.get("x-request-id"), body: await res.json() };
    };
    const rego = s.claim.registration;
    const found = await call(search(s.user.email, { rego, movement_type: "direct" }), "203.0.113.7");
    assert.equal(found.body.result.status, "success");
    const dropped = await call(
      dropOffPayload(s.user.email, rego, s.shop, confirmed(s.pairs)),
      "198.51.100.4",
    );
    assert.equal(dropped.body.result.status, "success");
    const movementId = dropped.body.result.data.parts_movement_id;

    const lines = logs.records().filter((l) =>
      l.logger === "parts-movement.http" && l.route === "/api/handler"
    );
    const addressOf = (id: string | null) => lines.find((l) => l.request_id === id)?.source_address;
    assert.equal(addressOf(found.id), "203.0.113.7");
    assert.equal(addressOf(dropped.id), "198.51.100.4");

    const entries = await a.db.selectFrom("audit_log").selectAll().where("action", "=", "handler.movement")
      .execute();
    assert.equal(entries.length, 1);
    assert.equal(entries[0].subject, `movement:${movementId}`);
    assert.equal(entries[0].actor_id, s.user.id);
    assert.equal(entries[0].claim_id, s.claim.id);
    assert.deepEqual(entries[0].after, { stage: "direct_dropoff", source_address: "198.51.100.4" });
    // Written in the movement's own statement: a retry (D16) writes nothing, so no second entry.
    const again = await call(dropOffPayload(s.user.email, rego, s.shop, confirmed(s.pairs)), "192.0.2.1");
    assert.equal(again.body.result.data.parts_movement_id, movementId);
    assert.equal(
      (await a.db.selectFrom("audit_log").select("id").where("action", "=", "handler.movement").execute())
        .length,
      1,
    );
  },
  { config: { trustedProxies: ["127.0.0.1"] } },
);

appTest(
  "handler: every movement submission writes its audit entry with the movement, one per movement",
  async (a) => {
    const movements = [];
    for (const flow of COUNTED_SUBMISSIONS) {
      const answer = await (await flow.prepare(a, 2))();
      assert.equal(answer.result.status, "success", flow.name);
      movements.push(answer.result.data!.parts_movement_id as number);
    }
    const entries = await a.db.selectFrom("audit_log")
      .innerJoin("parts_movements as m", (j) => j.onRef(sql`'movement:' || m.id`, "=", "audit_log.subject"))
      .select(["m.id", "audit_log.claim_id", "m.claim_id as movement_claim", "audit_log.after"])
      .where("audit_log.action", "=", "handler.movement").orderBy("audit_log.id").execute();
    // Leg 1 of the leg-2 flow is a movement of its own: drop-off, pickup, (pickup, leg 2 of that trip).
    assert.deepEqual(
      entries.map((e) => [e.after, e.claim_id === e.movement_claim]),
      [
        [{ stage: "direct_dropoff", source_address: "local" }, true],
        [{ stage: "reverse_pickup", source_address: "local" }, true],
        [{ stage: "reverse_pickup", source_address: "local" }, true],
        [{ stage: "reverse_dropoff", source_address: "local" }, true],
      ],
    );
    assert.deepEqual(entries.map((e) => e.id).slice(-1), movements.slice(-1));
  },
);
