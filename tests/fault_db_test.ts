/**
 * Fault: the database drops the service's connections under load (PostgreSQL server). The real service
 * runs as a child process, its connections named by `application_name`; a separate admin connection
 * terminates those backends (`pg_terminate_backend`, only the service's: the test's own pool is left
 * alone) again and again while searches and submissions run, until at least TERMINATIONS rounds cut
 * something and the service answered at least one request 503: the test asserts the fault happened.
 *
 * What must hold: every answer is clean (the D8 envelope, or the 503 JSON answer `{"code":5030,…}`;
 * never a stack trace, never a hang: each request has a hard timeout); the same process answers
 * successfully again afterwards, without a restart (the pool replaces dead connections); a submission
 * answered 503 is retried by the phone and then succeeds (D16 replays it if it had committed after all);
 * no half-written movement; and the announcement worker recovers and delivers everything.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import pg from "pg";
import { systemClock } from "@/io/clock.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { startChatReceiver } from "@/tests/helpers/chat_receiver.ts";
import { serverTest, serverUrl } from "@/testkit/db.ts";
import { assertNoHalfMovement, runPool, seedSubmissionLoad } from "@/tests/helpers/fault_load.ts";
import {
  callHandler,
  type HandlerOutcome,
  type ServiceProcess,
  startService,
} from "@/tests/helpers/service_process.ts";

const SUBMISSIONS = 60;
const CONCURRENCY = 8;
/** At least this many termination rounds that cut a backend of the service ... */
const TERMINATIONS = 5;
/** ... and more (at most this many rounds) until the service has answered a request 503. */
const MAX_TERMINATIONS = 60;
/** The service's connections carry this name, so only they are terminated. */
const SERVICE_APP_NAME = "pm-fault-db-service";
const TERMINATION_GAP_MS = 250;
/** Per request: an answer later than this counts as a hang. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Bound on the calls of the load, whatever happens. */
const MAX_CALLS = 3000;

serverTest("fault: database connections terminated under load, answers stay clean", async (t) => {
  const dataDir = await Deno.makeTempDir({ prefix: "pm-fault-db-" });
  await using chat = startChatReceiver();
  const storage = new DiskPhotoStore(join(dataDir, "photos"));
  const { jobs, initial } = await seedSubmissionLoad({ db: t.db, storage, clock: systemClock }, {
    count: SUBMISSIONS,
  });
  const database = new URL(t.url!).pathname.slice(1);
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  let service: ServiceProcess | undefined;
  try {
    service = await startService({
      DATABASE_URL: `${t.url!}?application_name=${SERVICE_APP_NAME}`,
      DATA_DIR: dataDir,
      APP_ENV: "development",
      PUBLIC_KEY: "fault-db-key",
      CHAT_FORMAT: "json",
      CHAT_WEBHOOK_PARTS_MOVEMENT: chat.url("/parts-movement"),
      CHAT_WEBHOOK_NEW_REPAIR_JOBS: chat.url("/new-repair-jobs"),
    });
    const svc = service;

    // The load: submissions (each once) interleaved with searches of the same claims, until the
    // terminations are over and every submission was sent once.
    const outcomes: { what: string; outcome: HandlerOutcome }[] = [];
    const firstTry = new Map<number, HandlerOutcome>();
    let terminating = true;
    let calls = 0;
    let nextJob = 0;
    const searchOf = (i: number) => {
      const job = jobs[i % jobs.length];
      const details = (job.payload as { details: { rego: string } }).details;
      return {
        event_type: "Parts_search_details",
        user_email: (job.payload as { user_email: string }).user_email,
        details: { rego: details.rego, movement_type: job.kind },
      };
    };
    const lane = async (n: number) => {
      while ((terminating || nextJob < jobs.length) && calls < MAX_CALLS) {
        calls++;
        if (n % 2 === 0 && nextJob < jobs.length) {
          const job = jobs[nextJob++];
          const outcome = await callHandler(svc, job.payload, REQUEST_TIMEOUT_MS);
          firstTry.set(job.index, outcome);
          outcomes.push({ what: `${job.kind} submission ${job.index}`, outcome });
        } else {
          const outcome = await callHandler(svc, searchOf(calls), REQUEST_TIMEOUT_MS);
          outcomes.push({ what: "search", outcome });
        }
      }
    };
    const unavailable = () => outcomes.filter((o) => o.outcome.kind === "unavailable").length;
    const killer = (async () => {
      const terminated: number[] = [];
      try {
        while (
          terminated.length < MAX_TERMINATIONS &&
          (terminated.filter((n) => n > 0).length < TERMINATIONS || unavailable() === 0)
        ) {
          await new Promise((r) => setTimeout(r, TERMINATION_GAP_MS));
          const r = await admin.query(
            `select pg_terminate_backend(pid) as done from pg_stat_activity
             where datname = $1 and application_name = $2`,
            [database, SERVICE_APP_NAME],
          );
          terminated.push(r.rows.filter((x) => x.done).length);
        }
      } finally {
        terminating = false;
      }
      return terminated;
    })();
    const [terminated] = await Promise.all([
      killer,
      ...Array.from({ length: CONCURRENCY }, (_, n) => lane(n)),
    ]);

    // Every answer was clean.
    const byKind = new Map<string, number>();
    for (const { what, outcome } of outcomes) {
      byKind.set(
        `${what.split(" ")[0]} ${outcome.kind}`,
        (byKind.get(`${what.split(" ")[0]} ${outcome.kind}`) ?? 0) + 1,
      );
      assert.ok(
        outcome.kind === "success" || outcome.kind === "unavailable",
        `${what}: ${JSON.stringify(outcome)}\nservice stderr:\n${svc.stderr()}`,
      );
    }
    assert.equal(firstTry.size, SUBMISSIONS, "every submission was sent");
    // The fault happened, and the service saw it: backends of its pool were cut, and requests caught
    // in the cut were answered 503 (not just idle connections replaced unnoticed).
    assert.ok(
      terminated.filter((n) => n > 0).length >= TERMINATIONS,
      `rounds that cut a service backend: ${terminated.join(", ")}`,
    );
    assert.ok(unavailable() > 0, `no request was answered 503 in ${terminated.length} termination rounds`);

    // The same process, without a restart, answers successfully again.
    let exitedEarly = false;
    svc.exited.then(() => exitedEarly = true);
    const health = await fetch(`${svc.url}/healthz`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    assert.equal(health.status, 200, await health.text());
    const search = await callHandler(svc, searchOf(0), REQUEST_TIMEOUT_MS);
    assert.equal(search.kind, "success", JSON.stringify(search));

    // Nothing half-written, whatever was cut.
    await assertNoHalfMovement(t.db, initial);

    // The phone retries each 503: it succeeds now (a replay when it had committed after all: the
    // connection was cut between COMMIT and its answer).
    const retry = jobs.filter((j) => firstTry.get(j.index)?.kind !== "success");
    const committedAnyway = (await t.db.selectFrom("deliver_parts").select("part_id")
      .where("part_id", "in", retry.flatMap((j) => j.partIds).concat(0)).execute()).length / 2;
    await runPool(retry, CONCURRENCY, async (job) => {
      const outcome = await callHandler(svc, job.payload, REQUEST_TIMEOUT_MS);
      assert.equal(outcome.kind, "success", `retry of submission ${job.index}: ${JSON.stringify(outcome)}`);
    });
    await assertNoHalfMovement(t.db, initial);
    const movements = await t.db.selectFrom("parts_movements").select("id").execute();
    assert.equal(movements.length, SUBMISSIONS, "one movement per submission");

    // The worker survived the terminations too: everything is delivered.
    const deadline = Date.now() + 30_000;
    while (true) {
      const left = await t.db.selectFrom("announcements").select((e) => e.fn.countAll<number>().as("n"))
        .where("state", "!=", "delivered").executeTakeFirstOrThrow();
      if (left.n === 0) break;
      if (Date.now() > deadline) throw new Error(`${left.n} announcements not delivered within 30 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Each announcement posted exactly once: an outcome whose recording lost its connection is recorded
    // on a new one rather than left to be posted again.
    const outbox = await t.db.selectFrom("announcements").select("message_id").execute();
    assert.deepEqual(
      chat.posts.map((p) => p.headers["x-message-id"]).sort(),
      outbox.map((o) => o.message_id).sort(),
    );
    assert.equal(exitedEarly, false, "the service process is still the same one");
    assert.equal(svc.stderr().includes("Uncaught"), false, svc.stderr());

    console.log(
      `${outcomes.length} calls under ${terminated.length} termination rounds (backends cut: ${
        terminated.join(", ")
      }): ` +
        [...byKind].map(([k, n]) => `${k} ${n}`).join(", ") +
        `; ${retry.length} submissions retried (${committedAnyway} had committed despite the 503); ` +
        `${outbox.length} announcements, ${chat.posts.length} posts.`,
    );
  } finally {
    await service?.kill();
    await admin.end().catch(() => {});
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
