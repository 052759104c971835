/**
 * Return requests (docs/return-requests.md) through both faces on both databases: the collect search's
 * offer when nothing is flagged, the driver's request (retries, a second driver, refusals by kind), the
 * dispatchers' queue with its count, approval (parts flagged, history, audit, the driver's search then finds
 * them), decline (reason required, shown to the driver) and the announcement in the outbox.
 */
import assert from "node:assert/strict";
import type { PartStatus } from "@/db/schema.ts";
import type { TestApp } from "@/testkit/app.ts";
import { appTest } from "@/testkit/app.ts";
import { makeClaim, makeRepairer } from "@/testkit/factories.ts";
import { subscribeChanges } from "@/lib/live/feed.ts";
import { signedIn } from "@/tests/helpers/hq.ts";
import { makeDriver, Tablet } from "@/tests/helpers/tablet.ts";

const AT_SHOP: PartStatus = "Delivered to Repair Shop directly";

async function setup(a: TestApp, statuses: PartStatus[] = [AT_SHOP, AT_SHOP, "Arrived"]) {
  const shop = await makeRepairer(a.db, "North Smash Repairs");
  const { claim, parts } = await makeClaim(a.db, {
    registration: "RET123",
    management: shop.id,
    parts: statuses.map((status, i) => ({ status, part_no: `PN-${i + 1}` })),
  });
  const driver = await makeDriver(a, { name: "Dana Driver" });
  const t = new Tablet(a);
  await t.signIn(driver);
  return { shop, claim, parts, driver, t };
}

async function json(res: Response, status = 200) {
  assert.equal(res.status, status, await res.clone().text());
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  return await res.json();
}

const ask = (t: Tablet, parts: number[], extra: Record<string, unknown> = {}) =>
  t.postJson("/tablet/api/return-requests", {
    rego: "RET123",
    parts,
    client_key: crypto.randomUUID(),
    ...extra,
  });

async function statuses(a: TestApp, ids: number[]): Promise<PartStatus[]> {
  const rows = await a.db.selectFrom("parts_orders").select(["id", "status"]).where("id", "in", ids).orderBy(
    "id",
  )
    .execute();
  return rows.map((r) => r.status);
}

appTest(
  "return requests: a collect search with nothing flagged offers the claim's parts at the shop, and no request yet",
  async (a) => {
    const { t, parts } = await setup(a);
    const body = await json(await t.postJson("/tablet/api/search", { job: "collect", rego: "ret 123" }), 422);
    assert.equal(body.message, "No parts flagged for return at a repair shop");
    assert.deepEqual(body.return_offer, {
      rego: "ret 123",
      claim_number: body.return_offer.claim_number,
      repairer_name: "North Smash Repairs",
      parts: [
        { id: parts[0].id, part_no: "PN-1", description: parts[0].description, qty: 1 },
        { id: parts[1].id, part_no: "PN-2", description: parts[1].description, qty: 1 },
      ],
      request: null,
    });
    // The other jobs' refusals offer nothing.
    const deliver = await json(
      await t.postJson("/tablet/api/search", { job: "return", rego: "RET123" }),
      422,
    );
    assert.equal(deliver.return_offer, undefined);
  },
);

appTest(
  "return requests: the driver asks, the queue lists it with a count, one click approves: parts flagged " +
    "with history and audit, and the driver's next search finds them collectable",
  async (a) => {
    const { t, parts, driver } = await setup(a);
    const asked = await json(
      await ask(t, [parts[0].id, parts[1].id], { note: "  Shop says\nthey are done " }),
    );
    assert.equal(asked.state, "open");
    assert.equal(asked.requested_by, "Dana Driver");
    assert.equal(asked.note, "Shop says\nthey are done");
    assert.equal(asked.joined, false);
    assert.deepEqual(asked.parts.map((p: { part_no: string }) => p.part_no), ["PN-1", "PN-2"]);

    // The announcement waits in the outbox, about the request (no movement).
    const outbox = await a.db.selectFrom("announcements").selectAll().execute();
    assert.equal(outbox.length, 1);
    assert.equal(outbox[0].title, "Return Requested");
    assert.equal(outbox[0].movement_id, null);
    assert.equal(outbox[0].return_request_id, asked.id);

    const hq = await signedIn(a, "dispatcher");
    const page = await hq.get("/hq/return-requests");
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    const html = await page.text();
    assert.match(html, new RegExp(`id="request-${asked.id}"`));
    assert.match(html, /Shop says/);
    assert.match(html, /data-testid="nav-count">1 <span class="sr-only">open</);
    // The announcement feed shows it, linked to the queue.
    const feed = await (await hq.get("/hq/announcements")).text();
    assert.match(feed, new RegExp(`/hq/return-requests#request-${asked.id}`));
    // No chat configured here: the row is feed-only, and the state filter finds it as one announcement.
    const feedOnly = await (await hq.get("/hq/announcements?state=feed_only")).text();
    assert.match(feedOnly, new RegExp(`/hq/return-requests#request-${asked.id}`));

    const approved = await hq.post(`/hq/return-requests/${asked.id}/approve`);
    assert.equal(approved.status, 303);
    assert.equal(approved.headers.get("location"), `/hq/return-requests?done=${asked.id}`);
    assert.deepEqual(await statuses(a, [parts[0].id, parts[1].id, parts[2].id]), [
      "Pending Repair Shop Pick-Up",
      "Pending Repair Shop Pick-Up",
      "Arrived",
    ]);
    const history = await a.db.selectFrom("part_status_history").selectAll().orderBy("id").execute();
    assert.deepEqual(history.map((h) => [h.part_id, h.from_status, h.to_status, h.via, h.changed_by]), [
      [parts[0].id, AT_SHOP, "Pending Repair Shop Pick-Up", "dashboard", hq.user.id],
      [parts[1].id, AT_SHOP, "Pending Repair Shop Pick-Up", "dashboard", hq.user.id],
    ]);
    const audit = await a.db.selectFrom("audit_log").selectAll().where("action", "in", [
      "return_request.approve",
      "return_request.decline",
    ]).execute();
    assert.deepEqual(audit.map((e) => [e.action, e.subject]), [[
      "return_request.approve",
      `return_request:${asked.id}`,
    ]]);
    const done = await (await hq.get(`/hq/return-requests?done=${asked.id}`)).text();
    assert.match(done, new RegExp(`Return request #${asked.id} approved: PN-1, PN-2 flagged for pick-up\\.`));
    assert.doesNotMatch(done, /data-testid="nav-count"/);

    // The driver's poll and search.
    const polled = await json(await t.request(`/tablet/api/return-requests/${asked.id}`));
    assert.equal(polled.state, "approved");
    assert.deepEqual(polled.parts.map((p: { flagged: boolean }) => p.flagged), [true, true]);
    const found = await json(await t.postJson("/tablet/api/search", { job: "collect", rego: "RET123" }));
    assert.deepEqual(found.parts.map((p: { part_no: string }) => p.part_no), ["PN-1", "PN-2"]);
    assert.ok(driver.id > 0);
  },
);

appTest(
  "return requests: a retry with the same key answers the same request; a second driver joins the open one",
  async (a) => {
    const { t, parts } = await setup(a);
    const key = crypto.randomUUID();
    const first = await json(await ask(t, [parts[0].id], { client_key: key }));
    const again = await json(await ask(t, [parts[0].id], { client_key: key }));
    assert.equal(again.id, first.id);
    assert.equal(again.joined, false);

    const other = new Tablet(a);
    await other.signIn(await makeDriver(a, { name: "Sam Second" }));
    const joined = await json(
      await other.postJson("/tablet/api/return-requests", {
        rego: "RET123",
        parts: [parts[1].id],
        client_key: crypto.randomUUID(),
      }),
    );
    assert.equal(joined.id, first.id);
    assert.equal(joined.joined, true);
    assert.equal(await a.db.selectFrom("return_requests").select("id").execute().then((r) => r.length), 1);
    assert.equal(await a.db.selectFrom("announcements").select("id").execute().then((r) => r.length), 1);
    // The collect search shows the open request.
    const body = await json(await t.postJson("/tablet/api/search", { job: "collect", rego: "RET123" }), 422);
    assert.equal(body.return_offer.request.id, first.id);
    assert.equal(body.return_offer.request.state, "open");
  },
);

appTest("return requests: refusals by kind, never a 500", async (a) => {
  const { t, parts } = await setup(a);
  const other = await makeClaim(a.db, { parts: [{ status: AT_SHOP }] });
  const cases: [unknown, RegExp][] = [
    [{ rego: "RET123", parts: [], client_key: crypto.randomUUID() }, /^Invalid request: parts/],
    [{ rego: "RET123", parts: [parts[0].id], client_key: "not-a-uuid" }, /^Invalid request: client_key/],
    [
      { rego: "RET123", parts: ["x"], client_key: crypto.randomUUID() },
      /^Invalid request: parts\[0\] must be an ID\.$/,
    ],
    [
      { rego: "RET123", parts: [parts[2].id], client_key: crypto.randomUUID() },
      /^PN-3 is not at the repair shop now: Arrived\.$/,
    ],
    [{ rego: "RET123", parts: [other.parts[0].id], client_key: crypto.randomUUID() }, /^Part not found\.$/],
    [{ rego: "NOPE99", parts: [parts[0].id], client_key: crypto.randomUUID() }, /^Rego not found$/],
    [
      { rego: "RET123", parts: [parts[0].id], note: "bad\u0007", client_key: crypto.randomUUID() },
      /^The note must not contain control characters\.$/,
    ],
    [
      { rego: "RET123", parts: [parts[0].id], note: "x".repeat(501), client_key: crypto.randomUUID() },
      /^Keep the note under 500 characters\.$/,
    ],
  ];
  for (const [body, message] of cases) {
    const answer = await json(await t.postJson("/tablet/api/return-requests", body), 422);
    assert.match(answer.message, message, JSON.stringify(body));
  }
  const notJson = await t.request("/tablet/api/return-requests", {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": t.csrf },
    body: "{",
  });
  assert.equal((await json(notJson, 422)).message, "Request body must be JSON.");
  assert.equal(
    (await json(await t.request("/tablet/api/return-requests/999999"), 404)).message,
    "Return request not found.",
  );
  assert.equal(
    (await json(await t.request("/tablet/api/return-requests/abc"), 404)).message,
    "Return request not found.",
  );
  assert.equal(await a.db.selectFrom("return_requests").select("id").execute().then((r) => r.length), 0);
});

appTest(
  "return requests: declining needs a reason, which the driver then reads; a decided request is not decided again",
  async (a) => {
    const { t, parts } = await setup(a);
    const asked = await json(await ask(t, [parts[0].id]));
    const hq = await signedIn(a, "dispatcher");
    const empty = await hq.post(`/hq/return-requests/${asked.id}/decline`, { reason: "   " });
    assert.equal(empty.status, 422);
    assert.match(await empty.text(), /Give the driver a reason for declining\./);

    const declined = await hq.post(`/hq/return-requests/${asked.id}/decline`, {
      reason: "Still being fitted",
    });
    assert.equal(declined.status, 303);
    assert.deepEqual(await statuses(a, [parts[0].id]), [AT_SHOP]);
    const polled = await json(await t.request(`/tablet/api/return-requests/${asked.id}`));
    assert.equal(polled.state, "declined");
    assert.equal(polled.decline_reason, "Still being fitted");
    assert.equal(polled.decided_by, hq.user.name);

    const late = await hq.post(`/hq/return-requests/${asked.id}/approve`);
    assert.equal(late.status, 422);
    assert.match(
      await late.text(),
      new RegExp(
        `Return request #${asked.id} was already declined by ${hq.user.name}; nothing was changed\\.`,
      ),
    );
    assert.deepEqual(await statuses(a, [parts[0].id]), [AT_SHOP]);
    assert.equal((await hq.post("/hq/return-requests/999999/approve")).status, 404);

    // A new request may be made once the last one is decided; the search shows the newest.
    const again = await json(await ask(t, [parts[0].id]));
    assert.notEqual(again.id, asked.id);
  },
);

appTest(
  "return requests: an approval flags what is still at the shop and leaves a part moved since; with none left " +
    "it refuses and writes nothing",
  async (a) => {
    const { t, parts } = await setup(a, [AT_SHOP, AT_SHOP]);
    const asked = await json(await ask(t, [parts[0].id, parts[1].id]));
    // A dispatcher corrects PN-2 meanwhile (it never left HQ).
    await a.db.updateTable("parts_orders").set({ status: "Arrived" }).where("id", "=", parts[1].id).execute();
    const hq = await signedIn(a, "dispatcher");
    assert.equal((await hq.post(`/hq/return-requests/${asked.id}/approve`)).status, 303);
    assert.deepEqual(await statuses(a, [parts[0].id, parts[1].id]), [
      "Pending Repair Shop Pick-Up",
      "Arrived",
    ]);
    const done = await (await hq.get(`/hq/return-requests?done=${asked.id}`)).text();
    assert.match(done, /PN-1 flagged for pick-up; not flagged by this approval: PN-2 \(Arrived\)\./);

    const { parts: lone } = await makeClaim(a.db, {
      registration: "ONE111",
      parts: [{ status: AT_SHOP, part_no: "PN-L" }],
    });
    const second = await json(
      await t.postJson("/tablet/api/return-requests", {
        rego: "ONE111",
        parts: [lone[0].id],
        client_key: crypto.randomUUID(),
      }),
    );
    await a.db.updateTable("parts_orders").set({ status: "Arrived" }).where("id", "=", lone[0].id).execute();
    const refused = await hq.post(`/hq/return-requests/${second.id}/approve`);
    assert.equal(refused.status, 422);
    assert.match(
      await refused.text(),
      /None of the parts of return request #\d+ is at the repair shop any more \(PN-L: Arrived\)/,
    );
    const still = await json(await t.request(`/tablet/api/return-requests/${second.id}`));
    assert.equal(still.state, "open");
  },
);

appTest("return requests: drivers cannot reach the queue; staff without CSRF cannot decide", async (a) => {
  const { t, parts } = await setup(a);
  const asked = await json(await ask(t, [parts[0].id]));
  const driver = await signedIn(a, "driver");
  assert.notEqual((await driver.get("/hq/return-requests")).status, 200);
  const hq = await signedIn(a, "dispatcher");
  const forged = await hq.post(`/hq/return-requests/${asked.id}/approve`, { _csrf: "wrong" });
  assert.equal(forged.status, 403);
  assert.equal((await json(await t.request(`/tablet/api/return-requests/${asked.id}`))).state, "open");
});

appTest(
  "return requests: asking and deciding each reach the live dashboard's change feed when they commit",
  async (a) => {
    const { t, parts } = await setup(a);
    const heard: string[] = [];
    let wake = () => {};
    const unsubscribe = await subscribeChanges(a.db, (change) => {
      heard.push(change);
      wake();
    });
    const until = async (topic: string) => {
      for (let i = 0; i < 100 && !heard.includes(topic); i++) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 50);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      assert.ok(heard.includes(topic), `heard ${topic}: ${heard}`);
    };
    try {
      const asked = await json(await ask(t, [parts[0].id]));
      await until("return_requests");
      heard.length = 0;
      const hq = await signedIn(a, "dispatcher");
      assert.equal((await hq.post(`/hq/return-requests/${asked.id}/approve`)).status, 303);
      await until("return_requests");
      await until("parts");
      // The queue page listens for both.
      const html = await (await hq.get("/hq/return-requests")).text();
      assert.match(html, /data-live="return_requests parts"/);
    } finally {
      await unsubscribe();
    }
  },
);
