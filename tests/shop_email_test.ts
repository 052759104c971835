/**
 * E-mail to the repair shops (docs/submissions-and-announcements.md "E-mail to the repair shops"): which
 * moments e-mail a shop, what the message holds, and what the outbox records when there is nobody to
 * send to or no SMTP server. A real SMTP server on loopback (tests/helpers/smtp_receiver.ts) receives
 * what the worker sends through nodemailer; both databases.
 */
import assert from "node:assert/strict";
import { runAnnouncementWorkerOnce } from "@/lib/announcements/worker.ts";
import { assignStop } from "@/lib/run_plan.ts";
import { replaceShopLink, revokeShopLink, shopLinkState } from "@/lib/shops/link.ts";
import { depotToday } from "@/lib/run_sheet.ts";
import { buildTestApp, type TestApp } from "@/testkit/app.ts";
import { dbTest } from "@/testkit/db.ts";
import { makeUser } from "@/testkit/factories.ts";
import { confirmed, dropOffPayload, flowSetup, pickUpPayload } from "@/testkit/movements.ts";
import { signedIn, textOf } from "@/tests/helpers/hq.ts";
import { type SmtpReceiver, startSmtpReceiver } from "@/tests/helpers/smtp_receiver.ts";

const FROM = "parts@depot.example";
const CONTACTS = ["front@north-smash.example", "parts@north-smash.example"];

function mailTest(name: string, fn: (a: TestApp, smtp: SmtpReceiver) => Promise<void>, smtp = true) {
  dbTest(name, async (t) => {
    await using receiver = await startSmtpReceiver();
    const a = await buildTestApp(t, {
      depotTimeZone: "Australia/Sydney",
      publicUrl: "https://parts.depot.example",
      mail: smtp ? { smtpUrl: receiver.url, from: FROM } : undefined,
    });
    try {
      await fn(a, receiver);
    } finally {
      await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
    }
  });
}

/** A direct drop-off of two parts to a shop with `emails`; answers the setup. */
async function dropOff(a: TestApp, emails: string[]) {
  const s = await flowSetup(a, { count: 2, status: "Arrived", stage: "direct_dropoff" });
  await a.db.updateTable("repairers").set({ emails, name: "North <Smash> & Co" }).where("id", "=", s.shop.id)
    .execute();
  const body = await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
  assert.equal(body.result.status, "success", JSON.stringify(body));
  return s;
}

const emailRows = (a: TestApp) =>
  a.db.selectFrom("announcements").selectAll().where("channel", "=", "shop_email").orderBy("id").execute();

mailTest("shop e-mail: a drop-off e-mails the shop's contacts 'Parts delivered', once", async (a, smtp) => {
  const s = await dropOff(a, CONTACTS);
  const [row] = await emailRows(a);
  assert.equal(row.title, "Parts Delivered");
  assert.equal(row.state, "pending");
  assert.equal(row.repairer_id, s.shop.id);
  const round = await runAnnouncementWorkerOnce(a);
  assert.equal(round.delivered, 1);
  const [mail] = await smtp.waitForAccepted(1);
  assert.equal(mail.from, FROM);
  assert.deepEqual(mail.to, CONTACTS);
  assert.equal(mail.messageId, `<${row.message_id}@parts.depot.example>`);
  assert.equal(mail.subject, `Parts delivered: ${s.claim.registration} (2 parts)`);
  assert.deepEqual(mail.contentTypes, ["text/plain", "text/html"]);
  assert.equal(mail.attachments, 0);
  for (const part of s.parts) {
    assert.ok(mail.text.includes(part.part_no), `text names ${part.part_no}`);
    assert.ok(mail.html.includes(part.part_no), `html names ${part.part_no}`);
  }
  assert.match(mail.text, /^Hello North <Smash> & Co,/);
  // The depot's zone, named (the test clock's instant in Sydney).
  assert.match(mail.text, /at \d{4}-\d{2}-\d{2} \d{2}:\d{2} AE[DS]T, for /);
  // Escaped in HTML, nothing fetched from anywhere: no images, no remote resources, no tracking.
  assert.match(mail.html, /Hello North &lt;Smash(&gt;|>) &amp; Co,/);
  assert.ok(!mail.html.includes("<Smash>"));
  assert.doesNotMatch(mail.html, /<img|src=|url\(|<link|<script/i);
  assert.doesNotMatch(mail.raw, /^Content-Type: image\//im);

  // The one link: the shop's private page, made at send time (its current link, as the admin sees it).
  const link = await shopLinkState(a, s.shop.id);
  assert.equal(link.state, "current");
  const url = (link as { url: string }).url;
  assert.match(url, /^https:\/\/parts\.depot\.example\/shop\/[A-Za-z0-9_-]{43}$/);
  assert.ok(mail.text.includes(`\n${url}\n`), mail.text);
  assert.deepEqual([...mail.html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]), [url]);
  const stored = await a.db.selectFrom("announcements").select("body").where("id", "=", row.id)
    .executeTakeFirstOrThrow();
  assert.ok(!JSON.stringify(stored.body).includes(url.slice(-43)), "no link is stored");

  // Recorded as delivered: later rounds send nothing more.
  const [after] = await emailRows(a);
  assert.equal(after.state, "delivered");
  assert.equal(after.attempts, 1);
  assert.equal((await runAnnouncementWorkerOnce(a)).delivered, 0);
  assert.equal(smtp.arrivals, 1);
});

mailTest("shop e-mail: a shop whose link an admin turned off is e-mailed without a link", async (a, smtp) => {
  const s = await flowSetup(a, { count: 1, status: "Arrived", stage: "direct_dropoff" });
  await a.db.updateTable("repairers").set({ emails: CONTACTS }).where("id", "=", s.shop.id).execute();
  const admin = await makeUser(a.db, { role: "admin" });
  await replaceShopLink(a, admin.id, s.shop.id);
  await revokeShopLink(a, admin.id, s.shop.id);
  const body = await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
  assert.equal(body.result.status, "success", JSON.stringify(body));
  await runAnnouncementWorkerOnce(a);
  const [mail] = await smtp.waitForAccepted(1);
  assert.doesNotMatch(mail.text, /\/shop\//);
  assert.doesNotMatch(mail.html, /href=/);
});

mailTest("shop e-mail: a reverse pickup e-mails 'Parts collected' to the claim's shop", async (a, smtp) => {
  const s = await flowSetup(a, { count: 1, status: "Pending Repair Shop Pick-Up", stage: "reverse_pickup" });
  await a.db.updateTable("repairers").set({ emails: [CONTACTS[0]] }).where("id", "=", s.shop.id).execute();
  const body = await a.call(pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs)));
  assert.equal(body.result.status, "success", JSON.stringify(body));
  const [row] = await emailRows(a);
  assert.equal(row.title, "Parts Picked Up From Repair Shop");
  assert.equal(row.repairer_id, s.shop.id);
  await runAnnouncementWorkerOnce(a);
  const [mail] = await smtp.waitForAccepted(1);
  assert.deepEqual(mail.to, [CONTACTS[0]]);
  assert.equal(mail.subject, `Parts collected: ${s.claim.registration} (1 part)`);
  assert.match(mail.text, /collected 1 part from you/);
});

mailTest("shop e-mail: a shop without a contact address is e-mailed nothing", async (a, smtp) => {
  await dropOff(a, []);
  assert.deepEqual(await emailRows(a), []);
  const chats = await a.db.selectFrom("announcements").select("channel").execute();
  assert.equal(chats.length, 2, "the chats' rows are written as always");
  assert.equal((await runAnnouncementWorkerOnce(a)).delivered, 0);
  assert.equal(smtp.arrivals, 0);
});

mailTest(
  "shop e-mail: without SMTP_URL the e-mail is recorded as not configured",
  async (a) => {
    await dropOff(a, CONTACTS);
    const [row] = await emailRows(a);
    assert.equal(row.state, "feed_only");
    assert.equal(row.last_error, null);
    assert.deepEqual((row.body as { to: string[] }).to, CONTACTS);
  },
  false,
);

mailTest(
  "shop e-mail: 'Parts on the way' when the stop is given to a driver for today, once a day",
  async (a, smtp) => {
    const s = await flowSetup(a, { count: 2, status: "Arrived" });
    await a.db.updateTable("repairers").set({ emails: CONTACTS }).where("id", "=", s.shop.id).execute();
    const dispatcher = await makeUser(a.db, { role: "dispatcher" });
    const other = await makeUser(a.db, { role: "driver", name: "Other Driver" });
    const date = depotToday(a);
    const assign = (driverId: number | null, seenDriverId: number | null) =>
      assignStop(a, dispatcher.id, { date, repairerId: s.shop.id, driverId, seenDriverId });
    await assign(s.user.id, null);
    // Reassigned and given back the same day: still the one e-mail.
    await assign(other.id, s.user.id);
    await assign(null, other.id);
    await assign(s.user.id, null);
    const rows = await emailRows(a);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].title, "Parts On The Way");
    assert.equal(rows[0].movement_id, null);
    await runAnnouncementWorkerOnce(a);
    const [mail] = await smtp.waitForAccepted(1);
    assert.equal(mail.subject, `Parts on the way: ${s.claim.registration} (2 parts)`);
    assert.match(mail.text, new RegExp(`${s.user.name} is bringing you 2 parts today`));

    // A stop planned for another day e-mails nobody.
    const later = await flowSetup(a, { count: 1, status: "Arrived" });
    await a.db.updateTable("repairers").set({ emails: CONTACTS }).where("id", "=", later.shop.id).execute();
    const tomorrow = new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    await assignStop(a, dispatcher.id, {
      date: tomorrow,
      repairerId: later.shop.id,
      driverId: later.user.id,
      seenDriverId: null,
    });
    assert.equal((await emailRows(a)).length, 1);
  },
);

mailTest("shop e-mail: the feed shows the e-mail beside the chats, with its recipients", async (a) => {
  await dropOff(a, CONTACTS);
  const hq = await signedIn(a, "dispatcher");
  const res = await hq.get("/hq/announcements");
  assert.equal(res.status, 200);
  const text = textOf(await res.text());
  assert.match(text, /Parts Movement: Not configured/);
  assert.match(text, /E-mail to the shop: Waiting/);
  assert.ok(text.includes(`To ${CONTACTS.join(", ")}.`), text);
});
