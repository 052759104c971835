/**
 * Fault: the service is SIGKILLed while it sends a shop's "Parts delivered" e-mail, and restarted on the same
 * database (PostgreSQL server). The real service runs as a child process (tasks/start.ts) and sends to a real
 * SMTP server on loopback, which holds the message unanswered until the kill: the dead process's SMTP
 * session never completes, so the server never takes that copy. The restarted worker takes the row over once
 * the dead one's lease ran out (docs/submissions-and-announcements.md "The worker's lease") and sends it
 * again, with the same Message-ID: the shop gets the e-mail once, and the outbox records it once.
 * (The other crash, between the server's 250 and the record, is tests/shop_email_outbox_test.ts.)
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { systemClock } from "@/io/clock.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { LEASE_MS } from "@/lib/announcements/lease.ts";
import { POLL_INTERVAL_MS } from "@/lib/announcements/worker.ts";
import { serverTest } from "@/testkit/db.ts";
import { seedSubmissionLoad } from "@/tests/helpers/fault_load.ts";
import { callHandler, type ServiceProcess, startService } from "@/tests/helpers/service_process.ts";
import { startSmtpReceiver } from "@/tests/helpers/smtp_receiver.ts";

/** Added to the takeover bound: the restart (a new process, migrations checked) on a shared machine. */
const TAKEOVER_SLACK_MS = 15_000;

serverTest(
  "fault: SIGKILL while a shop's e-mail is being sent; after the restart the shop gets it once",
  async (t) => {
    const dataDir = await Deno.makeTempDir({ prefix: "pm-mail-kill-" });
    await using smtp = await startSmtpReceiver();
    const storage = new DiskPhotoStore(join(dataDir, "photos"));
    const { jobs } = await seedSubmissionLoad({ db: t.db, storage, clock: systemClock }, { count: 1 });
    assert.equal(jobs[0].kind, "direct");
    await t.db.updateTable("repairers").set({ emails: ["parts@shop.example"] }).execute();
    const env = {
      DATABASE_URL: t.url!,
      DATA_DIR: dataDir,
      PUBLIC_URL: "https://parts.depot.example",
      SMTP_URL: smtp.url,
      MAIL_FROM: "parts@depot.example",
    };
    let service: ServiceProcess | undefined;
    try {
      service = await startService(env);
      smtp.setMode({ kind: "hold" });
      const answer = await callHandler(service, jobs[0].payload);
      assert.equal(answer.kind, "success", JSON.stringify(answer));
      await smtp.held();
      assert.equal((await service.kill("SIGKILL")).signal, "SIGKILL");
      const killedAt = Date.now();
      smtp.release("drop");

      service = await startService(env);
      const bound = LEASE_MS + POLL_INTERVAL_MS + TAKEOVER_SLACK_MS - (Date.now() - killedAt);
      const [mail] = await smtp.waitForAccepted(1, Math.max(bound, 1_000));
      const rows = await t.db.selectFrom("announcements").selectAll().where("channel", "=", "shop_email")
        .execute();
      assert.equal(rows.length, 1);
      assert.equal(mail.messageId, `<${rows[0].message_id}@parts.depot.example>`);
      assert.equal(mail.subject.startsWith("Parts delivered: "), true);
      assert.equal(smtp.arrivals, 2, "the dead process's copy reached the server's DATA and was never taken");
      // Recorded once; nothing more is sent.
      const deadline = Date.now() + 5_000;
      let row = rows[0];
      while (row.state !== "delivered" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        row = await t.db.selectFrom("announcements").selectAll().where("id", "=", row.id)
          .executeTakeFirstOrThrow();
      }
      assert.equal(row.state, "delivered");
      assert.equal(row.attempts, 1);
      assert.equal(smtp.accepted.length, 1);
      console.log(`e-mail taken over and sent ${Date.now() - killedAt} ms after the kill`);
    } finally {
      await service?.kill("SIGKILL");
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
);
