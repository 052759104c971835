/**
 * Fault: the service is SIGKILLed in the middle of a load of submissions and restarted on the same
 * database (PostgreSQL server). The real service runs as a child process (tasks/start.ts), posting to a real
 * loopback chat receiver.
 *
 * What must hold afterwards: every submission answered before the kill is committed (durability); a
 * submission whose answer was lost is either wholly there or wholly absent, and its retry answers success
 * (D16 replays the original when it was committed); no half movement; statuses, Deliver_Parts, histories
 * and announcement rows agree; and once the restarted worker drained the outbox, every announcement was
 * accepted by the chat, in causal order per channel.
 *
 * Exactly once? The worker posts a row and records the outcome afterwards (lib/announcements/worker.ts),
 * so a kill between a post and its recording posts that row again after the restart: delivery is
 * at-least-once, with the row's message id sent as Idempotency-Key / X-Message-Id on every attempt so a
 * chat (or a proxy) can drop the repeat. Each channel is posted one row at a time, so one kill can repeat at
 * most the one post per channel that was in flight. The test asserts exactly that bound (and, after
 * deduplication by message id, exactly one post per announcement) and prints how many repeats occurred.
 *
 * The kill is sent while a submission is in flight, as the database shows it (a statement of a submission
 * running, or its transaction open, on one of the service's own connections, told by application_name),
 * and the test asserts that the kill cut at least one request. Posts are told apart by their sender: the
 * restarted service is given the same channels under URLs with a query, so no wait decides which process
 * sent what.
 *
 * The restart's delay: rows the killed worker had claimed stay leased until LEASE_MS after its last renewal
 * (docs/submissions-and-announcements.md "The worker's lease"), then the restarted worker's next poll
 * takes them over. The test waits for them with the bound LEASE_MS + POLL_INTERVAL_MS (15 s) from the
 * kill, plus TAKEOVER_SLACK_MS for the restart on a shared machine, and prints how long it took.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sql } from "kysely";
import { systemClock } from "@/io/clock.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { startChatReceiver } from "@/tests/helpers/chat_receiver.ts";
import { LEASE_MS } from "@/lib/announcements/lease.ts";
import { POLL_INTERVAL_MS } from "@/lib/announcements/worker.ts";
import { serverTest } from "@/testkit/db.ts";
import {
  assertNoHalfMovement,
  runPool,
  seedSubmissionLoad,
  type SubmissionJob,
} from "@/tests/helpers/fault_load.ts";
import {
  callHandler,
  type HandlerOutcome,
  type ServiceProcess,
  startService,
} from "@/tests/helpers/service_process.ts";
import { waitFor } from "@/tests/helpers/races.ts";

const SUBMISSIONS = 120;
const CONCURRENCY = 8;
/** The kill comes once this many submissions were answered. */
const KILL_AFTER = 50;
const PM = "/parts-movement";
const NRJ = "/new-repair-jobs";
/** Added to the takeover bound: the restart (a new process, migrations checked) on a shared 2-core machine. */
const TAKEOVER_SLACK_MS = 10_000;
/** The first service's connections carry this application_name (pg_stat_activity). */
const SERVICE_APP_NAME = "pm-fault-kill-service";
/** The restarted service's webhook URLs end with this: its posts are told from the dead process's. */
const RESTARTED = "?sender=restarted";

interface Sent {
  job: SubmissionJob;
  sentAt: number;
  answeredAt?: number;
  outcome?: HandlerOutcome;
}

serverTest("fault: SIGKILL during a submission load, restart on the same database", async (t) => {
  const dataDir = await Deno.makeTempDir({ prefix: "pm-fault-kill-" });
  await using chat = startChatReceiver();
  const storage = new DiskPhotoStore(join(dataDir, "photos"));
  const { jobs, initial } = await seedSubmissionLoad({ db: t.db, storage, clock: systemClock }, {
    count: SUBMISSIONS,
  });
  const env = {
    DATABASE_URL: t.url!,
    DATA_DIR: dataDir,
    APP_ENV: "development",
    PUBLIC_KEY: "fault-kill-key",
    CHAT_FORMAT: "json",
    CHAT_WEBHOOK_PARTS_MOVEMENT: chat.url(PM),
    CHAT_WEBHOOK_NEW_REPAIR_JOBS: chat.url(NRJ),
  };
  let service: ServiceProcess | undefined;
  try {
    // Phase 1: the load, killed in the middle.
    service = await startService({ ...env, DATABASE_URL: `${t.url!}?application_name=${SERVICE_APP_NAME}` });
    const first = service;
    const sent: Sent[] = [];
    let answered = 0;
    let killing: Promise<Deno.CommandStatus> | undefined;
    let killSent = false;
    let inFlightAtKill = 0;
    // A submission of the load in the middle of its work, on one of the service's connections.
    const submissionsInFlight = async () => {
      const r = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and application_name = ${SERVICE_APP_NAME}
          and state in ('active', 'idle in transaction')
          and (query ilike '%parts_movements%' or query ilike '%deliver_parts%')`.execute(t.db);
      return r.rows[0].n;
    };
    const killMidRequest = async () => {
      await waitFor(
        async () => (inFlightAtKill = await submissionsInFlight()) > 0,
        30_000,
        "a submission in flight",
      );
      killSent = true;
      return await first.kill("SIGKILL");
    };
    await runPool(jobs, CONCURRENCY, async (job) => {
      const s: Sent = { job, sentAt: performance.now() };
      sent.push(s);
      s.outcome = await callHandler(first, job.payload);
      s.answeredAt = performance.now();
      if (s.outcome.kind === "success" && ++answered >= KILL_AFTER) killing ??= killMidRequest();
    }, () => killSent);
    const status = await killing!;
    const killedAt = Date.now();
    assert.equal(status.signal, "SIGKILL");
    assert.ok(inFlightAtKill > 0, "the database showed a submission in flight when the kill was sent");

    const answeredOk = sent.filter((s) => s.outcome?.kind === "success");
    const lost = sent.filter((s) => s.outcome?.kind !== "success");
    assert.ok(lost.length > 0, "the kill cut at least one request in flight");
    for (const s of lost) {
      assert.equal(
        s.outcome?.kind,
        "network",
        `only the kill may cut an answer: ${JSON.stringify(s.outcome)}`,
      );
    }

    // What the dead worker held when it was killed: taken over once its lease ran out (see the header).
    const leased = await t.db.selectFrom("announcements").select("id")
      .where("state", "=", "pending").where("lease_owner", "is not", null).execute();

    // Phase 2: restart on the same database, its posts told by the query of its webhook URLs.
    service = await startService({
      ...env,
      CHAT_WEBHOOK_PARTS_MOVEMENT: chat.url(PM) + RESTARTED,
      CHAT_WEBHOOK_NEW_REPAIR_JOBS: chat.url(NRJ) + RESTARTED,
    });
    const second = service;

    // The dead worker's rows are taken over and posted within the bound.
    const takeoverBound = killedAt + LEASE_MS + POLL_INTERVAL_MS + TAKEOVER_SLACK_MS;
    let takenOverMs = 0;
    while (leased.length > 0) {
      const left = await t.db.selectFrom("announcements").select("id").where("state", "=", "pending")
        .where("id", "in", leased.map((r) => r.id)).execute();
      takenOverMs = Date.now() - killedAt;
      if (left.length === 0) break;
      assert.ok(
        Date.now() < takeoverBound,
        `the dead worker's rows not posted ${takenOverMs} ms after the kill`,
      );
      await new Promise((r) => setTimeout(r, 100));
    }

    // Durability: every answered success is committed, with exactly the Deliver_Parts it answered.
    for (const s of answeredOk) {
      const data = (s.outcome as { data: Record<string, unknown> }).data;
      const rows = await t.db.selectFrom("deliver_parts").select(["id", "part_id"])
        .where("movement_id", "=", data.parts_movement_id as number).orderBy("id").execute();
      const answeredParts = data.delivery_parts as { parts_order_id: number; delivery_id: number }[];
      assert.deepEqual(
        rows.map((r) => [r.part_id, r.id]).sort(),
        answeredParts.map((d) => [d.parts_order_id, d.delivery_id]).sort(),
        `job ${s.job.index}: answered before the kill, not committed as answered`,
      );
    }
    // A lost answer: the submission is wholly there or wholly absent.
    const committedButLost = new Set<number>();
    for (const s of lost) {
      const moved = await t.db.selectFrom("deliver_parts").select("part_id")
        .where("part_id", "in", s.job.partIds).execute();
      assert.ok(
        moved.length === 0 || moved.length === s.job.partIds.length,
        `job ${s.job.index}: half written`,
      );
      if (moved.length) committedButLost.add(s.job.index);
    }
    await assertNoHalfMovement(t.db, initial);

    // The phone retries what it got no answer for, and the rest of the load runs.
    const retried = new Map<number, HandlerOutcome>();
    const phase2 = jobs.filter((j) => !answeredOk.some((s) => s.job.index === j.index));
    // Also retry a few answered ones: D16 answers the original success again.
    const replays = answeredOk.slice(0, 5).map((s) => s.job);
    const phase2Sent: Sent[] = [];
    await runPool([...phase2, ...replays], CONCURRENCY, async (job) => {
      const s: Sent = { job, sentAt: performance.now() };
      phase2Sent.push(s);
      s.outcome = await callHandler(second, job.payload);
      s.answeredAt = performance.now();
      retried.set(job.index, s.outcome);
    });
    for (const [index, outcome] of retried) {
      assert.equal(outcome.kind, "success", `job ${index} after the restart: ${JSON.stringify(outcome)}`);
    }
    for (const s of answeredOk.slice(0, 5)) {
      assert.deepEqual(
        retried.get(s.job.index),
        s.outcome,
        `job ${s.job.index}: the replay answers the same`,
      );
    }
    for (const index of committedButLost) {
      const data = (retried.get(index) as { data: Record<string, unknown> }).data;
      const committed = await t.db.selectFrom("deliver_parts").select("movement_id")
        .where("part_id", "=", jobs[index].partIds[0]).executeTakeFirstOrThrow();
      assert.equal(data.parts_movement_id, committed.movement_id, `job ${index}: the retry replays`);
    }

    // The restarted worker drains the outbox.
    const deadline = Date.now() + 30_000;
    while (true) {
      const pending = await t.db.selectFrom("announcements").select((e) => e.fn.countAll<number>().as("n"))
        .where("state", "!=", "delivered").executeTakeFirstOrThrow();
      if (pending.n === 0) break;
      if (Date.now() > deadline) throw new Error(`${pending.n} announcements not delivered within 30 s`);
      await new Promise((r) => setTimeout(r, 100));
    }

    // Whole database: every job moved its two parts exactly once, the unconfirmed part stayed.
    await assertNoHalfMovement(t.db, initial);
    const parts = new Map(
      (await t.db.selectFrom("parts_orders").select(["id", "status"]).execute()).map((p) => [p.id, p.status]),
    );
    for (const job of jobs) {
      const to = job.kind === "direct" ? "Delivered to Repair Shop directly" : "Picked Up from Repair Shop";
      for (const id of job.partIds) assert.equal(parts.get(id), to, `job ${job.index}: part ${id}`);
      assert.equal(parts.get(job.untouchedId), initial.get(job.untouchedId));
    }
    const movements = await t.db.selectFrom("parts_movements").select(["id", "movement_type"]).execute();
    assert.equal(movements.length, SUBMISSIONS, "one movement per submission");

    // The chat: after deduplication by message id, each announcement exactly once, in causal order.
    const outbox = await t.db.selectFrom("announcements").select([
      "id",
      "message_id",
      "channel",
      "movement_id",
    ])
      .orderBy("id").execute();
    assert.ok(chat.posts.every((p) => p.accepted), "the receiver accepted every post");
    const postsOf = new Map<string, number[]>();
    for (const [i, p] of chat.posts.entries()) {
      const id = p.headers["x-message-id"];
      postsOf.set(id, [...postsOf.get(id) ?? [], i]);
    }
    assert.deepEqual(
      [...postsOf.keys()].sort(),
      outbox.map((o) => o.message_id).sort(),
      "each announcement posted, and nothing else",
    );
    for (const o of outbox) {
      const path = o.channel === "parts_movement" ? PM : NRJ;
      for (const i of postsOf.get(o.message_id)!) assert.equal(chat.posts[i].path, path, "its channel");
    }
    assert.ok(chat.posts.every((p) => p.search === "" || p.search === RESTARTED), "only the two senders");
    // Repeats: only a post in flight at the kill (the dead process's last one of its channel), once.
    const repeats = [...postsOf].filter(([, at]) => at.length > 1);
    for (const [id, at] of repeats) {
      assert.equal(at.length, 2, `${id} posted ${at.length} times`);
      assert.ok(
        chat.posts[at[0]].search === "" && chat.posts[at[1]].search === RESTARTED,
        `${id}: repeated, but not across the kill`,
      );
      const path = chat.posts[at[0]].path;
      const lastOfChannel = chat.posts.findLastIndex((p) => p.path === path && p.search === "");
      assert.equal(at[0], lastOfChannel, `${id}: repeated, but was not the post in flight at the kill`);
    }
    assert.ok(new Set(repeats.map(([, at]) => chat.posts[at[0]].path)).size === repeats.length);
    // Causal order per channel: a submission answered before another was sent is announced before it.
    const firstPost = new Map([...postsOf].map(([id, at]) => [id, at[0]]));
    const movementOf = (s: Sent) => ((s.outcome as { data: Record<string, unknown> }).data.parts_movement_id);
    // Only the submissions that wrote (a replay's answer is about an earlier commit).
    const wrote = (s: Sent) =>
      !answeredOk.some((o) => o.job.index === s.job.index) && !committedButLost.has(s.job.index);
    const done = [...answeredOk, ...phase2Sent.filter((s) => s.outcome?.kind === "success" && wrote(s))];
    const rowsOf = (movementId: unknown) => outbox.filter((o) => o.movement_id === movementId);
    let pairs = 0;
    for (const a of done) {
      for (const b of done) {
        if (a.answeredAt! >= b.sentAt || movementOf(a) === movementOf(b)) continue;
        for (const ra of rowsOf(movementOf(a))) {
          for (const rb of rowsOf(movementOf(b))) {
            if (ra.channel !== rb.channel) continue;
            pairs++;
            assert.ok(
              firstPost.get(ra.message_id)! < firstPost.get(rb.message_id)!,
              `movement ${movementOf(a)} answered before ${movementOf(b)} was sent, announced after it`,
            );
          }
        }
      }
    }

    console.log(
      `${SUBMISSIONS} submissions (concurrency ${CONCURRENCY}); SIGKILL after ${answeredOk.length} answered ` +
        `successes with ${lost.length} in flight (${committedButLost.size} of them committed, replayed on ` +
        `retry), ${jobs.length - sent.length} not yet sent; all ${answeredOk.length} answered survived. ` +
        `${leased.length} rows leased by the dead worker, posted ${takenOverMs} ms after the kill; ${outbox.length} ` +
        `announcements, ${chat.posts.length} posts, ${repeats.length} repeated across the kill; ` +
        `${pairs} ordered pairs checked.`,
    );
    assert.equal(second.stderr().includes("Uncaught"), false, second.stderr());
  } finally {
    await service?.kill();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
