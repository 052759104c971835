/**
 * Announcements (D21, D22): written to the outbox in the submission's transaction, posted by the worker
 * to a real loopback chat receiver, in order per channel, with backoff, Retry-After and throttles
 * honoured, given up after 24 h, and shown in the feed.
 */
import assert from "node:assert/strict";
import type { ChatFormat, Config } from "@/io/config.ts";
import { listAnnouncements, retryAnnouncement } from "@/lib/announcements/feed.ts";
import { formatChatBody } from "@/lib/announcements/formats.ts";
import type { Announcement } from "@/db/schema.ts";
import { runAnnouncementWorkerOnce, startAnnouncementWorker } from "@/lib/announcements/worker.ts";
import { appTest, buildTestApp, type TestApp } from "@/testkit/app.ts";
import { type ChatReceiver, startChatReceiver } from "@/tests/helpers/chat_receiver.ts";
import { type DbKind, dbTest } from "@/testkit/db.ts";
import {
  confirmed,
  dropOffPayload,
  dropOffReversePayload,
  flowSetup,
  pickUpPayload,
  stageFor,
} from "@/testkit/movements.ts";
import { makeUser } from "@/testkit/factories.ts";
import { waitFor } from "@/tests/helpers/races.ts";

const PM = "/parts-movement";
const NRJ = "/new-repair-jobs";

/** An app whose two channels post to a fresh loopback chat receiver. */
function chatTest(
  name: string,
  fn: (a: TestApp, chat: ChatReceiver) => Promise<void>,
  opts: { format?: ChatFormat; only?: DbKind; config?: Partial<Config> } = {},
) {
  dbTest(name, async (t) => {
    await using chat = startChatReceiver();
    const a = await buildTestApp(t, {
      chatFormat: opts.format ?? "json",
      chatWebhooks: { partsMovement: chat.url(PM), newRepairJobs: chat.url(NRJ) },
      ...opts.config,
    });
    try {
      await fn(a, chat);
    } finally {
      await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
    }
  }, { only: opts.only, poolSize: 8 });
}

async function ok(a: TestApp, payload: unknown) {
  const body = await a.call(payload);
  assert.equal(body.result.status, "success", JSON.stringify(body));
  return body.result.data!;
}

/** A direct drop-off of a fresh claim; returns the movement id and what the announcement names. */
async function deliver(a: TestApp, parts = 1) {
  const s = await flowSetup(a, { count: parts, status: "Arrived", stage: "direct_dropoff" });
  const data = await ok(a, dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
  return { ...s, movementId: data.parts_movement_id as number };
}

const rows = (a: TestApp) => a.db.selectFrom("announcements").selectAll().orderBy("id").execute();

/** Posts accepted on a path, as the message ids they carried, in arrival order. */
const acceptedIds = (chat: ChatReceiver, path: string) =>
  chat.accepted(path).map((p) => p.headers["x-message-id"]);

/** Message ids of a channel's rows in outbox (id) order. */
async function outboxIds(a: TestApp, channel: "parts_movement" | "new_repair_jobs") {
  return (await rows(a)).filter((r) => r.channel === channel).map((r) => r.message_id);
}

/** Runs worker rounds until nothing is left to do now. */
async function drain(a: TestApp) {
  for (let i = 0; i < 50; i++) {
    const r = await runAnnouncementWorkerOnce(a);
    if (r.delivered + r.retried + r.failed + r.feedOnly === 0) return;
  }
  throw new Error("worker did not settle");
}

for (const format of ["cliq", "slack", "teams", "json"] as const) {
  chatTest(
    `announcements (${format}): one post per announcement and channel, with the formatted body`,
    async (a, chat) => {
      const s = await flowSetup(a, { count: 2, status: "Arrived", stage: "direct_dropoff" });
      const direct = await ok(
        a,
        dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)),
      );
      const r = await flowSetup(a, {
        count: 1,
        status: "Pending Repair Shop Pick-Up",
        stage: "reverse_pickup",
      });
      a.clock.advance(90_000);
      const leg1 = await ok(a, pickUpPayload(r.user.email, r.claim.registration, confirmed(r.pairs)));
      const back = await stageFor(a, r.parts, "reverse_dropoff", r.user.id);
      a.clock.advance(90_000);
      await ok(
        a,
        dropOffReversePayload(
          r.user.email,
          r.claim.registration,
          leg1.parts_movement_id as number,
          confirmed([{ part: r.parts[0].id, image: back[0] }]),
        ),
      );
      assert.equal(chat.posts.length, 0, "submissions post nothing themselves");

      await drain(a);
      assert.equal(chat.posts.length, 4);
      const outbox = await rows(a);
      assert.deepEqual(outbox.map((o) => [o.title, o.channel, o.state, o.attempts]), [
        ["Parts Delivered", "parts_movement", "delivered", 1],
        ["Parts Delivered", "new_repair_jobs", "delivered", 1],
        ["Parts Picked Up From Repair Shop", "parts_movement", "delivered", 1],
        ["Parts Returned to HQ", "parts_movement", "delivered", 1],
      ]);
      const start = new Date("2026-11-21T09:00:00Z");
      const expected = (o: typeof outbox[number]): Announcement => {
        const at = o.title === "Parts Delivered"
          ? start
          : new Date(start.getTime() + (o.title === "Parts Returned to HQ" ? 180_000 : 90_000));
        const isDirect = o.title === "Parts Delivered";
        const movementId = isDirect ? direct.parts_movement_id as number : leg1.parts_movement_id as number;
        const setup = isDirect ? s : r;
        return {
          messageId: o.message_id,
          title: o.title,
          rego: setup.claim.registration,
          // The trip goes to the first HQ location (D15): the one the first setup made.
          place: o.title === "Parts Returned to HQ" ? s.hq.name : setup.shop.name,
          parts: setup.parts.map((p) => ({ partNo: p.part_no, description: p.description })),
          driver: setup.user.name,
          at: at.toISOString(),
          link: `${a.config.publicUrl}/hq/movements/${movementId}`,
          movementId,
        };
      };
      for (const o of outbox) {
        const post = chat.posts.find((p) => p.headers["x-message-id"] === o.message_id)!;
        assert.ok(post, `no post for ${o.title} on ${o.channel}`);
        assert.equal(post.path, o.channel === "parts_movement" ? PM : NRJ);
        assert.equal(post.headers["idempotency-key"], o.message_id);
        assert.match(post.headers["content-type"], /^application\/json/);
        // The worker writes the time in the configured depot zone (Sydney: 09:00 UTC is 20:00 AEDT).
        assert.deepEqual(
          post.body,
          JSON.parse(JSON.stringify(formatChatBody(format, expected(o), "Australia/Sydney"))),
        );
        assert.match(JSON.stringify(post.body), /2026-11-21 20:0[0-3] AEDT/);
        assert.equal(o.delivered_at!.getTime(), a.clock.now().getTime());
      }
      // Nothing is posted twice.
      await drain(a);
      assert.equal(chat.posts.length, 4);
    },
    { format, config: { depotTimeZone: "Australia/Sydney" } },
  );
}

chatTest(
  "announcements: a submission never touches the network (posts only come from the worker)",
  async (a, chat) => {
    for (let i = 0; i < 3; i++) await deliver(a);
    assert.equal(chat.posts.length, 0);
    assert.deepEqual((await rows(a)).map((r) => r.state), Array(6).fill("pending"));
    await drain(a);
    assert.equal(chat.accepted().length, 6);
  },
);

chatTest("announcements: a slow or unreachable chat does not hold up submissions", async (a, chat) => {
  // Ordering, not speed: the worker is stuck on a post the chat does not answer (for a minute, far past
  // the test), and submissions complete meanwhile. Then with the chat down, they still complete.
  await chat.setMode({ kind: "slow", delayMs: 60_000 });
  const worker = startAnnouncementWorker(a, { pollIntervalMs: 60_000, timeoutMs: 120_000 });
  try {
    await deliver(a);
    await chat.waitForPosts(2, 30_000); // the worker's first posts (one per channel) wait for their answers
    for (let i = 0; i < 4; i++) await deliver(a);
    assert.equal(chat.accepted().length, 0, "the submissions completed before the chat answered anything");
    assert.equal(chat.posts.length, 2, "the worker is still on its first posts (one per channel)");
    await chat.setMode({ kind: "down" });
    for (let i = 0; i < 4; i++) await deliver(a);
    const kept = await rows(a);
    assert.equal(kept.length, 18, "every submission wrote its announcements");
    // Going down ended the two slow answers; the worker records them in its own time (on PGlite, after the
    // submissions queued on the one connection): a state to wait for, not a moment.
    await waitFor(
      async () => (await rows(a)).filter((r) => r.state === "pending").length === 16,
      30_000,
      "only the first two were posted",
    );
  } finally {
    await chat.close();
    await worker.stop();
  }
});

chatTest(
  "announcements: receiver down, then up: everything is delivered after recovery, in order, once",
  async (a, chat) => {
    await chat.setMode({ kind: "down" });
    for (let i = 0; i < 4; i++) {
      await deliver(a, i + 1);
      a.clock.advance(1000);
    }
    const first = await runAnnouncementWorkerOnce(a);
    // Only each channel's oldest is tried; the rest wait behind it.
    assert.deepEqual(first, { delivered: 0, retried: 2, failed: 0, feedOnly: 0 });
    const after = await rows(a);
    assert.deepEqual(after.map((r) => r.attempts), [1, 1, 0, 0, 0, 0, 0, 0]);
    assert.match(after[0].last_error!, /^network error: /);
    assert.ok(!after[0].last_error!.includes("http://127.0.0.1"), "the webhook URL is never stored");
    // Not due yet: a second round does nothing.
    assert.deepEqual(await runAnnouncementWorkerOnce(a), {
      delivered: 0,
      retried: 0,
      failed: 0,
      feedOnly: 0,
    });

    // Down for a while: backoff grows.
    for (let i = 0; i < 3; i++) {
      a.clock.advance(10 * 60_000);
      await runAnnouncementWorkerOnce(a);
    }
    assert.deepEqual((await rows(a)).slice(0, 2).map((r) => r.attempts), [4, 4]);

    await chat.setMode({ kind: "ok" });
    a.clock.advance(15 * 60_000);
    await drain(a);
    assert.deepEqual((await rows(a)).map((r) => r.state), Array(8).fill("delivered"));
    assert.deepEqual(acceptedIds(chat, PM), await outboxIds(a, "parts_movement"));
    assert.deepEqual(acceptedIds(chat, NRJ), await outboxIds(a, "new_repair_jobs"));
  },
);

chatTest(
  "announcements: a 429 with Retry-After holds the channel back at least that long (FakeClock)",
  async (a, chat) => {
    chat.once({ kind: "throttle", retryAfter: 120 }, PM);
    await deliver(a);
    await deliver(a);
    const now = a.clock.now().getTime();
    const r = await runAnnouncementWorkerOnce(a, { random: () => 0 });
    // The other channel is not held back by this one.
    assert.deepEqual(r, { delivered: 2, retried: 1, failed: 0, feedOnly: 0 });
    const pm = (await rows(a)).filter((x) => x.channel === "parts_movement");
    assert.equal(pm[0].state, "pending");
    assert.match(pm[0].last_error!, /^HTTP 429/);
    assert.ok(pm[0].next_attempt_at.getTime() >= now + 120_000, "not before now + Retry-After");
    assert.ok(pm[1].next_attempt_at.getTime() >= now + 120_000, "the channel's other rows wait too");
    a.clock.advance(119_000);
    await runAnnouncementWorkerOnce(a);
    assert.equal(chat.posts.filter((p) => p.path === PM).length, 1, "nothing posted before Retry-After");
    a.clock.advance(2_000);
    await drain(a);
    assert.deepEqual(acceptedIds(chat, PM), await outboxIds(a, "parts_movement"));
  },
);

chatTest(
  "announcements: a Retry-After HTTP-date and the chats' own throttle answers are honoured",
  async (a, chat) => {
    await deliver(a);
    const now = a.clock.now();
    chat.once({ kind: "throttle", retryAfter: new Date(now.getTime() + 300_000).toUTCString() }, PM);
    await runAnnouncementWorkerOnce(a, { random: () => 0 });
    let head = (await rows(a))[0];
    assert.ok(head.next_attempt_at.getTime() >= now.getTime() + 300_000 - 1000);

    for (const kind of ["cliq_throttle", "teams_throttle"] as const) {
      a.clock.advance(400_000);
      chat.once({ kind }, PM);
      const at = a.clock.now().getTime();
      const r = await runAnnouncementWorkerOnce(a, { random: () => 0 });
      assert.equal(r.retried, 1, kind);
      head = (await rows(a))[0];
      assert.equal(head.state, "pending", `${kind} is no delivery`);
      assert.ok(head.next_attempt_at.getTime() >= at + 60_000, `${kind}: held back a minute`);
    }
    a.clock.advance(120_000);
    await drain(a);
    assert.equal((await rows(a))[0].state, "delivered");
    assert.equal(chat.accepted(PM).length, 1);
  },
);

chatTest(
  "announcements: a newer one is never posted while an older one of its channel waits",
  async (a, chat) => {
    chat.once({ kind: "error", status: 503 }, PM);
    for (let i = 0; i < 3; i++) await deliver(a);
    await runAnnouncementWorkerOnce(a);
    assert.equal(chat.posts.filter((p) => p.path === PM).length, 1);
    assert.equal(chat.accepted(NRJ).length, 3);
    a.clock.advance(60_000);
    await drain(a);
    assert.deepEqual(acceptedIds(chat, PM), await outboxIds(a, "parts_movement"));
    assert.deepEqual(chat.posts.filter((p) => p.path === PM).map((p) => p.headers["x-message-id"]), [
      (await outboxIds(a, "parts_movement"))[0],
      ...await outboxIds(a, "parts_movement"),
    ]);
  },
);

chatTest(
  "announcements: given up after 24 h with the last error, shown in the feed, retried by the button",
  async (a, chat) => {
    await chat.setMode({ kind: "error", status: 500 }, PM);
    const { movementId } = await deliver(a);
    const created = a.clock.now().getTime();
    await runAnnouncementWorkerOnce(a);
    while (a.clock.now().getTime() - created < 24 * 3_600_000) {
      a.clock.advance(15 * 60_000);
      await runAnnouncementWorkerOnce(a);
    }
    const [pm] = (await rows(a)).filter((r) => r.channel === "parts_movement");
    assert.equal(pm.state, "failed");
    assert.equal(pm.last_error, "HTTP 500: Internal Server Error");
    assert.ok(pm.attempts > 90);

    // The channel moves on: a newer announcement is delivered.
    await chat.setMode({ kind: "ok" }, PM);
    await deliver(a);
    await drain(a);
    const feed = await listAnnouncements(a.db, { limit: 10, state: "failed", timeZone: "UTC" });
    assert.deepEqual(feed.map((f) => [f.movementId, f.channel, f.lastError]), [
      [movementId, "parts_movement", "HTTP 500: Internal Server Error"],
    ]);
    assert.match(feed[0].text, /^Parts Delivered: /);

    const dispatcher = await makeUser(a.db, { role: "dispatcher" });
    assert.equal(await retryAnnouncement(a.db, pm.id, dispatcher.id), true);
    assert.equal(
      await retryAnnouncement(a.db, pm.id, dispatcher.id),
      false,
      "only a failed one can be retried",
    );
    // The drop-off that made the announcement has its own entry (`handler.movement`); the staff's are these.
    const audit = await a.db.selectFrom("audit_log").select(["actor_id", "action", "subject"])
      .where("action", "!=", "handler.movement").execute();
    assert.deepEqual(audit, [
      { actor_id: dispatcher.id, action: "announcement.retry", subject: `announcement:${pm.id}` },
    ], "the retry that happened is audited, once");
    await drain(a);
    const again = (await rows(a)).find((r) => r.id === pm.id)!;
    assert.equal(again.state, "delivered");
    assert.equal(chat.accepted(PM).filter((p) => p.headers["x-message-id"] === pm.message_id).length, 1);
  },
);

chatTest(
  "announcements: a submission wakes the worker, so delivery does not wait for the poll",
  async (a, chat) => {
    // The poll comes only after an hour: a delivery within the test can only come from a wake-up. The
    // first delivery lets the worker finish its first round (and go to sleep); the second proves the wake.
    const worker = startAnnouncementWorker(a, { pollIntervalMs: 3_600_000 });
    try {
      await deliver(a);
      await chat.waitForPosts(2, 30_000);
      await deliver(a);
      await chat.waitForPosts(4, 30_000); // a generous bound on a wait, not a speed claim
      assert.equal(chat.accepted().length, 4);
    } finally {
      await worker.stop();
    }
  },
);

chatTest("announcements: stopping the worker hands back the rows it had not posted yet", async (a, chat) => {
  await chat.setMode({ kind: "slow", delayMs: 300 }, PM);
  for (let i = 0; i < 3; i++) await deliver(a);
  const worker = startAnnouncementWorker(a, { pollIntervalMs: 60_000 });
  await chat.waitForPosts(1, 30_000);
  await worker.stop();
  const pm = (await rows(a)).filter((r) => r.channel === "parts_movement");
  assert.equal(pm[0].state, "delivered");
  for (const r of pm.slice(1)) {
    if (r.state === "pending") {
      assert.ok(r.next_attempt_at.getTime() <= a.clock.now().getTime(), "due at once");
    }
  }
  await drain(a);
  assert.deepEqual(acceptedIds(chat, PM), await outboxIds(a, "parts_movement"));
});

chatTest(
  "announcements: a channel whose webhook was removed after writing moves to the feed",
  async (a, chat) => {
    await deliver(a);
    const config = {
      ...a.config,
      chatWebhooks: { partsMovement: a.config.chatWebhooks.partsMovement, newRepairJobs: undefined },
    };
    const r = await runAnnouncementWorkerOnce({ ...a, config });
    assert.deepEqual(r, { delivered: 1, retried: 0, failed: 0, feedOnly: 1 });
    assert.deepEqual((await rows(a)).map((x) => [x.channel, x.state]), [
      ["parts_movement", "delivered"],
      ["new_repair_jobs", "feed_only"],
    ]);
    assert.equal(chat.posts.length, 1);
  },
);

appTest("announcements: without webhook URLs they are feed only and still listed in the feed", async (a) => {
  const first = await deliver(a);
  a.clock.advance(1000);
  const r = await flowSetup(a, { status: "Pending Repair Shop Pick-Up", stage: "reverse_pickup" });
  const leg1 = await ok(a, pickUpPayload(r.user.email, r.claim.registration, confirmed(r.pairs)));
  assert.deepEqual(await runAnnouncementWorkerOnce(a), { delivered: 0, retried: 0, failed: 0, feedOnly: 0 });
  const feed = await listAnnouncements(a.db, { limit: 10, timeZone: "UTC" });
  assert.deepEqual(feed.map((f) => [f.title, f.channel, f.state, f.movementId]), [
    ["Parts Picked Up From Repair Shop", "parts_movement", "feed_only", leg1.parts_movement_id],
    ["Parts Delivered", "new_repair_jobs", "feed_only", first.movementId],
    ["Parts Delivered", "parts_movement", "feed_only", first.movementId],
  ]);
  assert.equal(feed[0].announcement.place, r.shop.name);
  assert.equal(feed[0].announcement.driver, r.user.name);
  assert.ok(feed[0].text.includes(`Picked up from: ${r.shop.name}`));
  assert.equal((await listAnnouncements(a.db, { limit: 1, timeZone: "UTC" })).length, 1);
  assert.equal((await listAnnouncements(a.db, { limit: 10, state: "pending", timeZone: "UTC" })).length, 0);
});

appTest("announcements: a refused submission leaves no outbox row", async (a) => {
  const s = await flowSetup(a, { count: 2, status: "Arrived", stage: "direct_dropoff" });
  await a.db.updateTable("parts_orders").set({ status: "Ordered" }).where("id", "=", s.parts[1].id).execute();
  const body = await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
  assert.equal(body.result.status, "failure");
  assert.equal((await rows(a)).length, 0);
});

chatTest(
  "announcements: a row committed late becomes the head behind rows another worker leased: those are not posted again",
  async (a, chat) => {
    // Two submissions draw ids 1 and 2 but commit 2 first; another worker leased row 2 (and is posting it)
    // before row 1 committed. Row 1 is now its channel's due head, with a leased row behind it.
    await deliver(a);
    await deliver(a);
    const [first, second] = (await rows(a)).filter((r) => r.channel === "parts_movement");
    const leasedUntil = new Date(a.clock.now().getTime() + 60_000);
    await a.db.updateTable("announcements").set({ next_attempt_at: leasedUntil })
      .where("id", "=", second.id).execute();
    await runAnnouncementWorkerOnce(a);
    // This worker posts row 1 only: row 2 belongs to the worker that leased it.
    assert.deepEqual(acceptedIds(chat, PM), [first.message_id]);
    const after = await a.db.selectFrom("announcements").select(["state", "next_attempt_at"])
      .where("id", "=", second.id).executeTakeFirstOrThrow();
    assert.equal(after.state, "pending");
    assert.equal(after.next_attempt_at.getTime(), leasedUntil.getTime());
  },
);
