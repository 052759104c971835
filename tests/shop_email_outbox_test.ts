/**
 * The outbox's guarantees for e-mail to the repair shops (docs/submissions-and-announcements.md "E-mail to
 * the repair shops"): an SMTP server that refuses (a 5xx to the recipient or the message: failed at once,
 * the shops' other e-mails go on), fails for a while (4xx), hangs (the timeout) or is down (connection
 * refused) is retried with the chats' backoff and given up after 24 h; a worker that dies mid-send is
 * taken over after its lease, and the message goes to the server once as far as the outbox can tell: the
 * same Message-ID on every attempt, recorded delivered once.
 *
 * A real SMTP server on loopback (tests/helpers/smtp_receiver.ts), the injected clock, both databases.
 */
import assert from "node:assert/strict";
import { LEASE_MS } from "@/lib/announcements/lease.ts";
import { runAnnouncementWorkerOnce } from "@/lib/announcements/worker.ts";
import { buildTestApp, type TestApp } from "@/testkit/app.ts";
import { dbTest } from "@/testkit/db.ts";
import { confirmed, dropOffPayload, flowSetup } from "@/testkit/movements.ts";
import { closedSmtpUrl, type SmtpReceiver, startSmtpReceiver } from "@/tests/helpers/smtp_receiver.ts";

function outboxTest(
  name: string,
  fn: (a: TestApp, smtp: SmtpReceiver) => Promise<void>,
  opts: { down?: boolean } = {},
) {
  dbTest(name, async (t) => {
    await using smtp = await startSmtpReceiver();
    const smtpUrl = opts.down ? await closedSmtpUrl() : smtp.url;
    const a = await buildTestApp(t, { mail: { smtpUrl, from: "parts@depot.example" } });
    try {
      await fn(a, smtp);
    } finally {
      await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
    }
  }, { poolSize: 4 });
}

/** A drop-off to a shop with one contact address: one `shop_email` row. */
async function delivered(a: TestApp, email = "parts@shop.example"): Promise<void> {
  const s = await flowSetup(a, { count: 1, status: "Arrived", stage: "direct_dropoff" });
  await a.db.updateTable("repairers").set({ emails: [email] }).where("id", "=", s.shop.id).execute();
  const body = await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
  assert.equal(body.result.status, "success", JSON.stringify(body));
}

const emails = (a: TestApp) =>
  a.db.selectFrom("announcements")
    .select(["id", "message_id", "state", "attempts", "last_error", "next_attempt_at", "delivered_at"])
    .where("channel", "=", "shop_email").orderBy("id").execute();

outboxTest(
  "shop e-mail outbox: a refused recipient fails at once; the next shop's e-mail still goes",
  async (a, smtp) => {
    await delivered(a, "nobody@shop.example");
    await delivered(a, "parts@other.example");
    smtp.setMode({ kind: "refuse_recipient" });
    const first = await runAnnouncementWorkerOnce(a);
    assert.equal(first.failed, 1);
    smtp.setMode({ kind: "ok" });
    const second = await runAnnouncementWorkerOnce(a);
    assert.equal(second.delivered, 1, "the channel moved on at once");
    const [refused, sent] = await emails(a);
    assert.equal(refused.state, "failed");
    assert.equal(refused.attempts, 1);
    assert.match(refused.last_error ?? "", /^SMTP 550: /);
    assert.equal(sent.state, "delivered");
    assert.deepEqual(smtp.accepted.map((m) => m.to), [["parts@other.example"]]);
  },
);

outboxTest("shop e-mail outbox: a refused message (5xx after DATA) fails at once", async (a, smtp) => {
  await delivered(a);
  smtp.setMode({ kind: "refuse_message" });
  assert.equal((await runAnnouncementWorkerOnce(a)).failed, 1);
  const [row] = await emails(a);
  assert.equal(row.state, "failed");
  assert.match(row.last_error ?? "", /^SMTP 554: /);
});

outboxTest("shop e-mail outbox: a 4xx is retried with backoff, then delivered", async (a, smtp) => {
  await delivered(a);
  smtp.setMode({ kind: "tempfail" });
  assert.equal((await runAnnouncementWorkerOnce(a, { random: () => 0.5 })).retried, 1);
  const [waiting] = await emails(a);
  assert.equal(waiting.state, "pending");
  assert.equal(waiting.attempts, 1);
  assert.match(waiting.last_error ?? "", /^SMTP 451: /);
  assert.equal(waiting.next_attempt_at.getTime() - a.clock.now().getTime(), 5_000, "the first backoff step");
  smtp.setMode({ kind: "ok" });
  assert.equal((await runAnnouncementWorkerOnce(a)).delivered, 0, "not before its time");
  a.clock.advance(5_000);
  assert.equal((await runAnnouncementWorkerOnce(a)).delivered, 1);
  const [sent] = await emails(a);
  assert.equal(sent.state, "delivered");
  assert.equal(sent.attempts, 2);
  assert.equal(smtp.accepted.length, 1);
  assert.equal(smtp.accepted[0].messageId, `<${sent.message_id}@localhost>`, "the same Message-ID as before");
});

outboxTest("shop e-mail outbox: a server that hangs is timed out and retried", async (a, smtp) => {
  await delivered(a);
  smtp.setMode({ kind: "hang" });
  assert.equal((await runAnnouncementWorkerOnce(a, { timeoutMs: 300 })).retried, 1);
  const [row] = await emails(a);
  assert.equal(row.state, "pending");
  assert.match(row.last_error ?? "", /ETIMEDOUT/);
  assert.equal(smtp.accepted.length, 0);
});

outboxTest(
  "shop e-mail outbox: a server that is down is retried, and given up after 24 h",
  async (a) => {
    await delivered(a);
    assert.equal((await runAnnouncementWorkerOnce(a)).retried, 1);
    const [row] = await emails(a);
    assert.equal(row.state, "pending");
    assert.match(row.last_error ?? "", /ECONNECTION|ESOCKET/);
    assert.doesNotMatch(row.last_error ?? "", /smtp:\/\//, "no URL in the error");
    a.clock.advance(24 * 60 * 60_000);
    assert.equal((await runAnnouncementWorkerOnce(a)).failed, 1);
    assert.equal((await emails(a))[0].state, "failed");
  },
  { down: true },
);

/**
 * Worker A sends, the server holds the message unanswered, and A stops renewing its lease (as if its
 * process died). After LEASE_MS worker B takes the row over and sends it; then the held session ends.
 */
async function restartMidSend(a: TestApp, smtp: SmtpReceiver, held: "drop" | "accept") {
  await delivered(a);
  const [row] = await emails(a);
  smtp.setMode({ kind: "hold" });
  const dead = runAnnouncementWorkerOnce(a, { heartbeatMs: 3_600_000 });
  await smtp.held();
  a.clock.advance(LEASE_MS);
  const takeover = await runAnnouncementWorkerOnce(a);
  assert.equal(takeover.delivered, 1);
  smtp.release(held);
  assert.deepEqual(await dead, { delivered: 0, retried: 0, failed: 0, feedOnly: 0 }, "A records nothing");
  const [after] = await emails(a);
  assert.equal(after.state, "delivered");
  assert.equal(after.attempts, 1, "recorded once");
  return row;
}

outboxTest(
  "shop e-mail outbox: a worker that dies before the server's 250 is taken over; the shop gets it once",
  async (a, smtp) => {
    const row = await restartMidSend(a, smtp, "drop");
    assert.equal(smtp.arrivals, 2, "sent twice");
    assert.deepEqual(smtp.accepted.map((m) => m.messageId), [`<${row.message_id}@localhost>`], "taken once");
  },
);

outboxTest(
  "shop e-mail outbox: a worker that dies between the 250 and its record repeats it with the same Message-ID",
  async (a, smtp) => {
    const row = await restartMidSend(a, smtp, "accept");
    // SMTP has no idempotency key: the server took both; the one Message-ID lets a reader's client drop one.
    const ids = smtp.accepted.map((m) => m.messageId);
    assert.deepEqual(ids, [`<${row.message_id}@localhost>`, `<${row.message_id}@localhost>`]);
  },
);
