/**
 * Two announcement workers in two real processes (D22): the service started twice on one PostgreSQL
 * server, each with its worker on, posting to one real loopback chat receiver. Submissions go to both
 * services in turn (each wakes its own worker; the other finds the rows by polling), so the two workers
 * compete for the same outbox. Each announcement must be posted exactly once, in order per channel.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { systemClock } from "@/io/clock.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { startChatReceiver } from "@/tests/helpers/chat_receiver.ts";
import { serverTest } from "@/testkit/db.ts";
import { assertNoHalfMovement, runPool, seedSubmissionLoad } from "@/tests/helpers/fault_load.ts";
import { callHandler, type ServiceProcess, startService } from "@/tests/helpers/service_process.ts";

const SUBMISSIONS = 24;
const PM = "/parts-movement";
const NRJ = "/new-repair-jobs";
/** Generous: the workers poll every 5 s; delivery normally takes well under a second after that. */
const DELIVERY_DEADLINE_MS = 60_000;

serverTest(
  "announcements: two workers (two service processes) on one server post each announcement once, in order",
  async (t) => {
    const dataDir = await Deno.makeTempDir({ prefix: "pm-two-workers-" });
    await using chat = startChatReceiver();
    // A little slow, so one worker's posts are still under way when the other looks for work.
    await chat.setMode({ kind: "slow", delayMs: 20 });
    const storage = new DiskPhotoStore(join(dataDir, "photos"));
    const { jobs, initial } = await seedSubmissionLoad({ db: t.db, storage, clock: systemClock }, {
      count: SUBMISSIONS,
    });
    const services: ServiceProcess[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        services.push(
          await startService({
            DATABASE_URL: t.url!,
            DATA_DIR: dataDir,
            APP_ENV: "stage",
            CHAT_FORMAT: "json",
            CHAT_WEBHOOK_PARTS_MOVEMENT: chat.url(PM),
            CHAT_WEBHOOK_NEW_REPAIR_JOBS: chat.url(NRJ),
          }),
        );
      }
      // One submission at a time (alternating services): outbox ids then follow commit order, which is
      // the order a worker can keep. (Concurrent submissions may commit in another order than their ids
      // were drawn; a worker cannot post a row before it is committed.)
      await runPool(jobs, 1, async (job) => {
        const outcome = await callHandler(services[job.index % 2], job.payload);
        assert.equal(outcome.kind, "success", JSON.stringify(outcome));
      });
      await assertNoHalfMovement(t.db, initial);

      const outbox = () =>
        t.db.selectFrom("announcements").select(["message_id", "channel", "state"]).orderBy("id").execute();
      const deadline = Date.now() + DELIVERY_DEADLINE_MS;
      while ((await outbox()).some((r) => r.state !== "delivered")) {
        assert.ok(Date.now() < deadline, `not all delivered within ${DELIVERY_DEADLINE_MS / 1000} s`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const rows = await outbox();
      // 24 submissions: 12 direct (two channels each), 12 reverse pickups (one).
      assert.equal(rows.length, 36);
      const posted = new Map<string, number>();
      for (const p of chat.posts) {
        posted.set(p.headers["x-message-id"], (posted.get(p.headers["x-message-id"]) ?? 0) + 1);
      }
      for (const r of rows) {
        assert.equal(posted.get(r.message_id), 1, `${r.message_id} posted ${posted.get(r.message_id)} times`);
      }
      assert.equal(chat.posts.length, rows.length, "no post of anything else, nothing twice");
      for (const [path, channel] of [[PM, "parts_movement"], [NRJ, "new_repair_jobs"]] as const) {
        assert.deepEqual(
          chat.accepted(path).map((p) => p.headers["x-message-id"]),
          rows.filter((r) => r.channel === channel).map((r) => r.message_id),
          `${channel}: posted in outbox order`,
        );
      }
      for (const s of services) assert.doesNotMatch(s.stderr(), /Uncaught|announcement worker:/, s.stderr());
    } finally {
      for (const s of services) await s.kill("SIGTERM");
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
);
