/**
 * The action queue (docs/action-queue.md) on both databases: every kind appears, longest waiting first;
 * late parts by the thresholds in force, at the boundary, grouped per shop; the header's count equals the
 * queue's length on every dashboard page; acting in place writes what the item's own page writes, sends the
 * dispatcher back, and the item leaves; bad input changes nothing; only staff see it; the change feed
 * announces problem reports.
 */
import assert from "node:assert/strict";
import type { ChangeTopic } from "@/db/queries/changes.ts";
import type { PartStatus, User } from "@/db/schema.ts";
import { actionQueue, actionQueueCount, LATE_WINDOW } from "@/lib/dashboard/action_queue.ts";
import { subscribeChanges } from "@/lib/live/feed.ts";
import { requestReturn } from "@/lib/return_requests.ts";
import { reportProblem, resolveProblemReport } from "@/lib/shops/problems.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeRepairer, makeUser } from "@/testkit/factories.ts";
import { anonymous, signedIn } from "@/tests/helpers/hq.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const AT_SHOP: PartStatus = "Delivered to Repair Shop directly";

/** A claim at `shop` (null: none on record) with parts in `status` that entered it at `since`. */
async function partsSince(a: TestApp, shop: number | null, status: PartStatus, since: Date, n = 1) {
  const made = await makeClaim(a.db, {
    management: shop,
    parts: Array.from({ length: n }, () => ({ status })),
  });
  await a.db.updateTable("parts_orders").set({ updated_at: since }).where("claim_id", "=", made.claim.id)
    .execute();
  return made;
}

const ago = (a: TestApp, ms: number) => new Date(a.clock.now().getTime() - ms);

/** A driver's open return request for a fresh claim at `shop`, asked now (the fake clock). */
async function askReturn(a: TestApp, driver: User, shop: number, rego: string) {
  const { parts } = await makeClaim(a.db, {
    management: shop,
    registration: rego,
    parts: [{ status: AT_SHOP }],
  });
  await a.db.updateTable("parts_orders").set({ updated_at: a.clock.now() }).where("id", "=", parts[0].id)
    .execute();
  const { request } = await requestReturn(a, driver, {
    rego,
    partIds: [parts[0].id],
    clientKey: crypto.randomUUID(),
  });
  return { request, part: parts[0] };
}

/** The items of the queue on a page, in order. */
const itemsOf = (html: string) => [...html.matchAll(/data-queue-item="([^"]+)"/g)].map((m) => m[1]);
/** The header's figure on a page. */
const headerCount = (html: string) => {
  const m = /data-testid="queue-count"[^>]*data-count="(\d+)"/.exec(html);
  return m ? Number(m[1]) : null;
};

/** One item of every kind, each waiting a known time, in this order oldest first. */
async function everyKind(a: TestApp) {
  const shop = await makeRepairer(a.db, "North Smash");
  const driver = await makeUser(a.db, { role: "driver", name: "Dana Driver" });
  // Held at the shop since 40 days ago: late since 10 days ago (threshold 30 days).
  const held = await partsSince(a, shop.id, AT_SHOP, ago(a, 40 * DAY), 2);
  // On a truck since 33 hours ago: late since 9 hours ago (24 hours).
  await partsSince(a, shop.id, "Picked Up from Repair Shop", ago(a, 33 * HOUR));
  // Arrived without a shop 8 hours ago.
  const noShop = await partsSince(a, null, "Arrived", ago(a, 8 * HOUR));
  // Flagged for return 3 days 7 hours ago: late since 7 hours ago (3 days).
  await partsSince(a, shop.id, "Pending Repair Shop Pick-Up", ago(a, 3 * DAY + 7 * HOUR));
  a.clock.advance(-6 * HOUR);
  const { request } = await askReturn(a, driver, shop.id, "RQ6H");
  // The request's announcement failed (written with it, 6 hours ago).
  await a.db.updateTable("announcements").set({ state: "failed", last_error: "chat answered 500" })
    .where("return_request_id", "=", request.id).execute();
  a.clock.advance(2 * HOUR);
  const report = await reportProblem(a, shop.id, {
    partId: held.parts[0].id,
    reason: "damaged",
    note: "Dented",
  });
  a.clock.advance(4 * HOUR);
  return { shop, driver, request, report, held, noShop };
}

appTest("action queue: every kind appears, longest waiting first", async (a) => {
  const { shop, request, report, noShop } = await everyKind(a);
  const failed = await a.db.selectFrom("announcements").select("id").where(
    "return_request_id",
    "=",
    request.id,
  )
    .executeTakeFirstOrThrow();
  const queue = await actionQueue(a.db, a.clock.now());
  assert.deepEqual(queue.items.map((i) => i.key), [
    `late-held-${shop.id}`,
    `late-truck-${shop.id}`,
    `no-shop-${noShop.claim.id}`,
    `late-return_waiting-${shop.id}`,
    `announcement-${failed.id}`,
    `return-request-${request.id}`,
    `problem-report-${report}`,
  ]);
  const held = queue.items[0];
  assert.ok(held.kind === "late" && held.parts === 2 && !held.atLeast);
  assert.equal(queue.total.n, 7);
  assert.equal(queue.total.more, false);

  const hq = await signedIn(a, "dispatcher");
  const page = await hq.get("/hq/queue");
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /data-testid="action-queue"/);
  assert.deepEqual(itemsOf(html), queue.items.map((i) => i.key));
  assert.match(html, /2 parts held at North Smash over 30 days/);
  assert.match(html, /aria-label="Action queue, 7 waiting"/);
  assert.match(html, new RegExp(`action="/hq/return-requests/${request.id}/approve"`));
  assert.match(html, new RegExp(`action="/hq/problem-reports/${report}/resolve"`));
  assert.match(html, new RegExp(`action="/hq/announcements/${failed.id}/retry"`));
  assert.match(html, new RegExp(`href="/hq/claims/${noShop.claim.claim_number}"`));
  assert.match(
    html,
    new RegExp(
      `href="/hq/parts\\?status=Delivered\\+to\\+Repair\\+Shop\\+directly&amp;sort=since&amp;dir=asc&amp;repairer=${shop.id}"`,
    ),
  );
});

appTest("action queue: late parts by the thresholds in force, exactly at the boundary", async (a) => {
  const shop = await makeRepairer(a.db, "Edge Panels");
  const other = await makeRepairer(a.db, "Far Panels");
  // Exactly at each threshold: not late ("longer than").
  await partsSince(a, shop.id, AT_SHOP, ago(a, 30 * DAY));
  await partsSince(a, shop.id, "Picked Up from Repair Shop", ago(a, 24 * HOUR));
  await partsSince(a, shop.id, "Pending Repair Shop Pick-Up", ago(a, 3 * DAY));
  assert.deepEqual((await actionQueue(a.db, a.clock.now())).items, []);
  assert.equal((await actionQueueCount(a.db, a.clock.now())).n, 0);
  // One millisecond later all three are late; two shops make two groups.
  a.clock.advance(1);
  await partsSince(a, other.id, AT_SHOP, ago(a, 31 * DAY), 3);
  const late = await actionQueue(a.db, a.clock.now());
  assert.deepEqual(
    late.items.map((i) => i.key).sort(),
    [
      `late-held-${other.id}`,
      `late-held-${shop.id}`,
      `late-return_waiting-${shop.id}`,
      `late-truck-${shop.id}`,
    ].sort(),
  );
  assert.deepEqual(late.items.map((i) => i.kind === "late" ? i.parts : 0).sort(), [1, 1, 1, 3]);
  assert.equal((await actionQueueCount(a.db, a.clock.now())).n, 4);
  // An admin's threshold replaces the default: 40 days, and the held parts are no longer late.
  const admin = await makeUser(a.db, { role: "admin" });
  await a.db.insertInto("ageing_thresholds").values({
    key: "held_band_3_days",
    value: 40,
    updated_by: admin.id,
    updated_at: a.clock.now(),
  }).execute();
  const after = await actionQueue(a.db, a.clock.now());
  assert.deepEqual(after.items.map((i) => i.key).sort(), [
    `late-return_waiting-${shop.id}`,
    `late-truck-${shop.id}`,
  ]);
  assert.match(
    await (await (await signedIn(a, "dispatcher")).get("/hq/queue")).text(),
    /1 part from Edge Panels on a truck over 24 hours/,
  );
});

appTest("action queue: the header's count equals the queue's length on every dashboard page", async (a) => {
  await everyKind(a);
  const hq = await signedIn(a, "dispatcher");
  const admin = await signedIn(a, "admin");
  const expected = itemsOf(await (await hq.get("/hq/queue")).text()).length;
  assert.equal(expected, 7);
  const staffPages = [
    "/hq/queue",
    "/hq/parts",
    "/hq/movements",
    "/hq/trips",
    "/hq/runs",
    "/hq/return-requests",
    "/hq/problem-reports",
    "/hq/announcements",
    "/hq/exports",
    "/hq/search?q=RQ6H",
  ];
  for (const path of staffPages) {
    const res = await hq.get(path);
    assert.equal(res.status, 200, path);
    assert.equal(headerCount(await res.text()), expected, path);
  }
  for (const path of ["/hq/admin/users", "/hq/admin/places", "/hq/admin/audit", "/hq/parts/999999"]) {
    const html = await (await admin.get(path)).text();
    assert.equal(headerCount(html), expected, path);
  }
  // The header's region is live on the queue's topics, with one island per page.
  const parts = await (await hq.get("/hq/parts")).text();
  assert.match(parts, /data-live="return_requests problem_reports announcements parts movements"/);
  assert.equal(parts.match(/data-island="HqLive"/g)?.length, 1);
  // Not on the sign-in page (nobody signed in).
  assert.equal(headerCount(await (await anonymous(a).get("/hq/sign-in")).text()), null);
});

appTest(
  "action queue: acting in place writes what the item's page writes, and the item leaves",
  async (a) => {
    const { request, report } = await everyKind(a);
    const second = await askReturn(
      a,
      await makeUser(a.db, { role: "driver" }),
      (await makeRepairer(a.db)).id,
      "RQ2ND",
    );
    const failed = await a.db.selectFrom("announcements").select("id").where(
      "return_request_id",
      "=",
      request.id,
    )
      .executeTakeFirstOrThrow();
    const hq = await signedIn(a, "dispatcher");
    const before = (await actionQueue(a.db, a.clock.now())).total.n;

    // Bad input changes nothing: an empty decline reason, an unknown request.
    const empty = await hq.post(`/hq/return-requests/${request.id}/decline`, {
      reason: " ",
      back: "/hq/queue",
    });
    assert.equal(empty.status, 422);
    assert.equal((await hq.post("/hq/return-requests/999999/approve", { back: "/hq/queue" })).status, 404);
    assert.equal((await actionQueue(a.db, a.clock.now())).total.n, before);

    // Approve: the part is flagged (as on the requests page), back to the queue with the outcome.
    const approved = await hq.post(`/hq/return-requests/${request.id}/approve`, { back: "/hq/queue" });
    assert.equal(approved.status, 303);
    assert.equal(approved.headers.get("location"), "/hq/queue?done=approved#action-queue");
    const row = await a.db.selectFrom("return_requests").select(["state", "decided_by"]).where(
      "id",
      "=",
      request.id,
    )
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { state: "approved", decided_by: hq.user.id });
    assert.equal(
      (await a.db.selectFrom("parts_orders").select("status").where("id", "=", request.parts[0].id)
        .executeTakeFirstOrThrow()).status,
      "Pending Repair Shop Pick-Up",
    );
    const page = await (await hq.get("/hq/queue?done=approved")).text();
    assert.match(page, /Return request approved/);
    assert.ok(!itemsOf(page).includes(`return-request-${request.id}`));

    // Decline with a reason, from the overview's embed: back there.
    const declined = await hq.post(`/hq/return-requests/${second.request.id}/decline`, {
      reason: "Still being fitted",
      back: "/hq",
    });
    assert.equal(declined.headers.get("location"), "/hq?done=declined#action-queue");
    assert.equal(
      (await a.db.selectFrom("return_requests").select("decline_reason").where("id", "=", second.request.id)
        .executeTakeFirstOrThrow()).decline_reason,
      "Still being fitted",
    );

    // Resolve a problem report: resolved by this dispatcher, audited.
    const resolved = await hq.post(`/hq/problem-reports/${report}/resolve`, { back: "/hq/queue" });
    assert.equal(resolved.headers.get("location"), "/hq/queue?done=handled#action-queue");
    const pr = await a.db.selectFrom("shop_problem_reports").select(["state", "resolved_by"]).where(
      "id",
      "=",
      report,
    )
      .executeTakeFirstOrThrow();
    assert.deepEqual(pr, { state: "resolved", resolved_by: hq.user.id });
    assert.ok(
      await a.db.selectFrom("audit_log").select("id").where("action", "=", "shop.problem_resolved")
        .executeTakeFirst(),
    );

    // Retry a failed announcement: pending again, audited; a second retry is stale and changes nothing.
    const retried = await hq.post(`/hq/announcements/${failed.id}/retry`, { back: "/hq/queue" });
    assert.equal(retried.headers.get("location"), "/hq/queue?done=retried#action-queue");
    assert.equal(
      (await a.db.selectFrom("announcements").select("state").where("id", "=", failed.id)
        .executeTakeFirstOrThrow())
        .state,
      "pending",
    );
    const stale = await hq.post(`/hq/announcements/${failed.id}/retry`, { back: "/hq/queue" });
    assert.equal(stale.headers.get("location"), "/hq/queue?done=stale#action-queue");

    // A `back` that is not a queue page is ignored: the action's own page answers, as before.
    const third = await askReturn(
      a,
      await makeUser(a.db, { role: "driver" }),
      (await makeRepairer(a.db)).id,
      "RQ3RD",
    );
    const elsewhere = await hq.post(`/hq/return-requests/${third.request.id}/approve`, {
      back: "https://evil.example/",
    });
    assert.equal(elsewhere.headers.get("location"), `/hq/return-requests?done=${third.request.id}`);

    const left = (await actionQueue(a.db, a.clock.now())).items.map((i) => i.kind);
    assert.ok(!left.includes("return_request") && !left.includes("problem_report"), left.join());
    assert.ok(!left.includes("announcement_failed"));
  },
);

appTest("action queue: only staff see it; a driver's session and nobody are refused", async (a) => {
  await everyKind(a);
  const nobody = await anonymous(a).get("/hq/queue");
  assert.equal(nobody.status, 303);
  assert.match(nobody.headers.get("location") ?? "", /\/hq\/sign-in/);
  const driver = await signedIn(a, "driver");
  const refused = await driver.get("/hq/queue");
  assert.ok([303, 403].includes(refused.status), String(refused.status));
  assert.doesNotMatch(await refused.text(), /action-queue|North Smash/);
  const driverPost = await driver.post("/hq/problem-reports/1/resolve", { back: "/hq/queue" });
  assert.ok([303, 403].includes(driverPost.status));
  assert.equal(
    (await a.db.selectFrom("shop_problem_reports").select("state").executeTakeFirstOrThrow()).state,
    "open",
  );
});

appTest("action queue: a problem report sent or handled is announced on the change feed", async (a) => {
  const shop = await makeRepairer(a.db);
  const { parts } = await makeClaim(a.db, { management: shop.id, parts: [{ status: AT_SHOP }] });
  const heard: ChangeTopic[] = [];
  const stop = await subscribeChanges(a.db, (t) => t !== "all" && t !== "closed" && heard.push(t));
  try {
    const id = await reportProblem(a, shop.id, { partId: parts[0].id, reason: "wrong_part", note: null });
    const user = await makeUser(a.db, { role: "dispatcher" });
    await resolveProblemReport(a, user.id, id);
    const until = Date.now() + 5000;
    while (heard.filter((t) => t === "problem_reports").length < 2 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(heard.filter((t) => t === "problem_reports"), ["problem_reports", "problem_reports"]);
  } finally {
    await stop();
  }
});

appTest("action queue: hundreds of late parts make one item per shop, not a row per part", async (a) => {
  const north = await makeRepairer(a.db, "North Bulk");
  const south = await makeRepairer(a.db, "South Bulk");
  const since = ago(a, 45 * DAY);
  for (const [shop, n] of [[north.id, 200], [south.id, 100]] as const) {
    const { claim } = await makeClaim(a.db, { management: shop });
    await a.db.insertInto("parts_orders").values(
      Array.from({ length: n }, (_, i) => ({
        claim_id: claim.id,
        part_no: `BULK-${shop}-${i}`,
        description: "Bulk part",
        qty_ordered: 1,
        status: AT_SHOP,
        updated_at: new Date(since.getTime() + (shop === north.id ? 0 : 1) + i * 2),
      })),
    ).execute();
  }
  const queue = await actionQueue(a.db, a.clock.now());
  assert.deepEqual(queue.items.map((i) => i.key), [`late-held-${north.id}`, `late-held-${south.id}`]);
  // 300 late parts: the window read the oldest LATE_WINDOW, so each group says "at least".
  const parts = queue.items.map((i) => i.kind === "late" ? [i.parts, i.atLeast] : []);
  assert.equal(parts.reduce((s, p) => s + (p[0] as number), 0), LATE_WINDOW);
  assert.ok(parts.every((p) => p[1] === true));
  assert.equal((await actionQueueCount(a.db, a.clock.now())).n, 2);
  const html = await (await (await signedIn(a, "dispatcher")).get("/hq/queue")).text();
  assert.equal(itemsOf(html).length, 2);
  assert.match(html, /at least \d+ parts held at North Bulk over 30 days/);
});
