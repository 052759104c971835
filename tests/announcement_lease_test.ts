/**
 * The announcement worker's lease (docs/submissions-and-announcements.md "The worker's lease", D22): short,
 * renewed while a round posts, owned by the round's token. A worker that stops renewing (dead, or stalled)
 * loses its rows LEASE_MS after its last renewal and the next poll of another worker takes them over; the
 * one post that was in flight repeats with the same Idempotency-Key; the stalled worker, when it wakes,
 * neither records over the new owner nor posts the rows behind. A live worker's heartbeat keeps its rows
 * however long a post takes.
 *
 * Two workers in one process on one database (PGlite; the PostgreSQL server too with TEST_DATABASE_URL),
 * the injected clock for the lease's time, and a real loopback webhook that can hold a post unanswered.
 */
import assert from "node:assert/strict";
import type { AnnouncementRow } from "@/db/schema.ts";
import { HEARTBEAT_MS, LEASE_MS } from "@/lib/announcements/lease.ts";
import { POLL_INTERVAL_MS, runAnnouncementWorkerOnce } from "@/lib/announcements/worker.ts";
import { buildTestApp, type TestApp } from "@/testkit/app.ts";
import { dbTest } from "@/testkit/db.ts";
import { confirmed, dropOffPayload, flowSetup } from "@/testkit/movements.ts";

/** A chat webhook on loopback that records each post's Idempotency-Key and can hold the next one. */
function heldWebhook() {
  const keys: string[] = [];
  let holdNext = false;
  let release: () => void = () => {};
  let arrived: () => void = () => {};
  let held = Promise.resolve();
  let heldArrived = Promise.resolve();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.text();
    keys.push(req.headers.get("idempotency-key") ?? "(none)");
    if (holdNext) {
      holdNext = false;
      arrived();
      await held;
    }
    return new Response("ok");
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/hook`,
    keys,
    /** The next post waits unanswered until `release()`; `arrived` resolves when it came in. */
    holdNext() {
      holdNext = true;
      held = new Promise((r) => release = r);
      heldArrived = new Promise((r) => arrived = r);
      return { arrived: heldArrived, release: () => release() };
    },
    async [Symbol.asyncDispose]() {
      release();
      await server.shutdown();
    },
  };
}

/** Three direct drop-offs: three parts_movement rows to post (the other channel has no webhook). */
async function threeAnnouncements(a: TestApp): Promise<AnnouncementRow[]> {
  for (let i = 0; i < 3; i++) {
    const s = await flowSetup(a, { count: 1, status: "Arrived", stage: "direct_dropoff" });
    const body = await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
    assert.equal(body.result.status, "success", JSON.stringify(body));
  }
  const rows = await a.db.selectFrom("announcements").selectAll().where("state", "=", "pending")
    .orderBy("id").execute();
  assert.equal(rows.length, 3);
  return rows;
}

const outbox = (a: TestApp) =>
  a.db.selectFrom("announcements").select(["id", "message_id", "state", "attempts", "next_attempt_at"])
    .where("channel", "=", "parts_movement").orderBy("id").execute();

/** Waits (bounded) until `ok` holds; state, not time. */
async function until(ok: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`not within 5 s: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function leaseTest(
  name: string,
  fn: (a: TestApp, hook: ReturnType<typeof heldWebhook>) => Promise<void>,
) {
  dbTest(name, async (t) => {
    await using hook = heldWebhook();
    const a = await buildTestApp(t, {
      chatFormat: "json",
      chatWebhooks: { partsMovement: hook.url, newRepairJobs: undefined },
    });
    try {
      await fn(a, hook);
    } finally {
      await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
    }
  }, { poolSize: 4 });
}

leaseTest(
  "announcements: a worker that stops renewing is taken over LEASE_MS later; it then records and posts nothing more",
  async (a, hook) => {
    // The bound the service promises: a dead worker's rows are posted again within about 15 s.
    assert.ok(LEASE_MS + POLL_INTERVAL_MS <= 15_000);
    assert.ok(HEARTBEAT_MS * 3 <= LEASE_MS, "a few renewals fit in one lease");
    const rows = await threeAnnouncements(a);
    // Worker A claims the channel and posts its head; the chat holds that post. A's heartbeat never beats
    // in this test (as if its process stopped): its last renewal is the one before the post.
    const held = hook.holdNext();
    const stalled = runAnnouncementWorkerOnce(a, { heartbeatMs: 3_600_000 });
    await held.arrived;

    // Just before the lease runs out, worker B finds nothing due.
    a.clock.advance(LEASE_MS - 1);
    const early = await runAnnouncementWorkerOnce(a);
    assert.equal(early.delivered, 0, "taken over before the lease ran out");
    assert.deepEqual(hook.keys, [rows[0].message_id]);

    // At LEASE_MS, B takes the channel over and posts all three, the in-flight head again, with its key.
    a.clock.advance(1);
    const takeover = await runAnnouncementWorkerOnce(a);
    assert.equal(takeover.delivered, 3, "a worker's poll takes the rows over once the lease ran out");
    assert.deepEqual(hook.keys, [rows[0].message_id, ...rows.map((r) => r.message_id)]);

    // A wakes: its held post is answered. It must neither record over B nor post the rows behind.
    held.release();
    const late = await stalled;
    assert.deepEqual(late, { delivered: 0, retried: 0, failed: 0, feedOnly: 0 });
    const counts = new Map<string, number>();
    for (const k of hook.keys) counts.set(k, (counts.get(k) ?? 0) + 1);
    assert.deepEqual(
      rows.map((r) => counts.get(r.message_id)),
      [2, 1, 1],
      "only the post in flight repeated (same Idempotency-Key); nothing after it went twice",
    );
    const after = await outbox(a);
    assert.deepEqual(after.map((r) => [r.state, r.attempts]), [["delivered", 1], ["delivered", 1], [
      "delivered",
      1,
    ]]);
    assert.equal(
      (await a.db.selectFrom("announcements").select("lease_owner").where("lease_owner", "is not", null)
        .execute()).length,
      0,
      "no lease left behind",
    );
  },
);

leaseTest(
  "announcements: a live worker's heartbeat keeps its lease while a post takes longer than LEASE_MS",
  async (a, hook) => {
    const rows = await threeAnnouncements(a);
    const held = hook.holdNext();
    const slow = runAnnouncementWorkerOnce(a, { heartbeatMs: 5 });
    await held.arrived;
    const renewed = () =>
      until(
        async () =>
          (await outbox(a)).every((r) => r.next_attempt_at.getTime() === a.clock.now().getTime() + LEASE_MS),
        "renewed",
      );
    // Time passes in steps shorter than the lease; after each, the heartbeat renews.
    for (let i = 0; i < 3; i++) {
      a.clock.advance(LEASE_MS - 1_000);
      await renewed();
      assert.equal((await runAnnouncementWorkerOnce(a)).delivered, 0, "another worker took a live lease");
    }
    held.release();
    assert.equal((await slow).delivered, 3);
    assert.deepEqual(hook.keys, rows.map((r) => r.message_id), "each posted once, in order");
  },
);
