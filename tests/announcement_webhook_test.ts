import assert from "node:assert/strict";
import { FakeClock } from "@/io/clock.ts";
import { formatChatBody } from "@/lib/announcements/formats.ts";
import { classifyResponse, parseRetryAfter, postAnnouncement, redact } from "@/lib/announcements/webhook.ts";
import {
  BASE_DELAY_MS,
  GIVE_UP_AFTER_MS,
  MAX_DELAY_MS,
  nextAttemptAt,
  shouldGiveUp,
} from "@/lib/announcements/backoff.ts";
import { startChatReceiver } from "@/tests/helpers/chat_receiver.ts";

const MESSAGE_ID = "0b6f3c5e-1d2a-4e8f-9c7b-5a4d3e2f1a0b";
const body = formatChatBody("json", {
  messageId: MESSAGE_ID,
  title: "Parts Delivered",
  rego: "ABC123",
  place: "Smith Panel Beaters",
  parts: [{ partNo: "PN-1001", description: "Front bumper" }],
  driver: "Jo Bloggs",
  at: "2026-11-21T09:30:00Z",
  link: "https://parts.example.com/hq/movements/42",
  movementId: 42,
}, "UTC");

function options(clock = new FakeClock(), timeoutMs?: number) {
  return { messageId: MESSAGE_ID, now: () => clock.now(), ...(timeoutMs ? { timeoutMs } : {}) };
}

// --- postAnnouncement against a real receiver ------------------------------------------------

Deno.test("webhook: a 200 is delivered; the body is JSON and the headers carry the message id", async () => {
  await using chat = startChatReceiver();
  const result = await postAnnouncement(chat.url("/parts-movement"), body, options());
  assert.deepEqual(result, { outcome: "delivered", status: 200 });
  assert.equal(chat.posts.length, 1);
  const post = chat.posts[0];
  assert.equal(post.path, "/parts-movement");
  assert.match(post.headers["content-type"], /^application\/json/);
  assert.equal(post.headers["idempotency-key"], MESSAGE_ID);
  assert.equal(post.headers["x-message-id"], MESSAGE_ID);
  assert.deepEqual(post.body, body);
});

Deno.test("webhook: a 204 (Cliq) and a 202 (Teams Workflows) are delivered", async () => {
  await using chat = startChatReceiver({ mode: { kind: "ok", status: 204 } });
  assert.deepEqual(await postAnnouncement(chat.url(), body, options()), {
    outcome: "delivered",
    status: 204,
  });
  await chat.setMode({ kind: "ok", status: 202, body: "" });
  assert.deepEqual(await postAnnouncement(chat.url(), body, options()), {
    outcome: "delivered",
    status: 202,
  });
});

Deno.test("webhook: a 500 is retried with the status and the start of the answer", async () => {
  await using chat = startChatReceiver({ mode: { kind: "error", body: "upstream exploded ".repeat(30) } });
  const result = await postAnnouncement(chat.url(), body, options());
  assert.equal(result.outcome, "retry");
  assert.ok(result.outcome === "retry");
  assert.equal(result.status, 500);
  assert.equal(result.throttled, false);
  assert.equal(result.retryAfterMs, undefined);
  assert.match(result.error, /^HTTP 500: upstream exploded/);
  assert.ok(result.error.length <= 220, "short enough for the dashboard");
});

Deno.test("webhook: a 429 with Retry-After in seconds waits that long", async () => {
  await using chat = startChatReceiver({ mode: { kind: "throttle", retryAfter: 30 } });
  const result = await postAnnouncement(chat.url(), body, options());
  assert.ok(result.outcome === "retry");
  assert.equal(result.status, 429);
  assert.equal(result.throttled, true);
  assert.equal(result.retryAfterMs, 30_000);
});

Deno.test("webhook: a 429 with Retry-After as an HTTP-date waits until then, by the injected clock", async () => {
  const clock = new FakeClock("2026-11-21T09:00:00Z");
  await using chat = startChatReceiver({
    mode: { kind: "throttle", retryAfter: "Sat, 21 Nov 2026 09:02:30 GMT" },
  });
  const result = await postAnnouncement(chat.url(), body, options(clock));
  assert.ok(result.outcome === "retry");
  assert.equal(result.retryAfterMs, 150_000);
});

Deno.test("webhook: a 429 without Retry-After still waits a throttle's minute", async () => {
  await using chat = startChatReceiver({ mode: { kind: "throttle" } });
  const result = await postAnnouncement(chat.url(), body, options());
  assert.ok(result.outcome === "retry" && result.throttled);
  assert.equal(result.retryAfterMs, 60_000);
});

Deno.test("webhook: Teams' 200 that says 'HTTP error 429' is a throttle, not a delivery", async () => {
  await using chat = startChatReceiver({ mode: { kind: "teams_throttle" } });
  const result = await postAnnouncement(chat.url(), body, options());
  assert.ok(result.outcome === "retry");
  assert.equal(result.status, 200);
  assert.equal(result.throttled, true);
  assert.equal(result.retryAfterMs, 60_000);
  assert.match(result.error, /^HTTP 200: Webhook message delivery failed .*HTTP error 429/);
});

Deno.test("webhook: Cliq's 400 request_limit_exceeded is a throttle", async () => {
  await using chat = startChatReceiver({ mode: { kind: "cliq_throttle" } });
  const result = await postAnnouncement(chat.url(), body, options());
  assert.ok(result.outcome === "retry");
  assert.equal(result.status, 400);
  assert.equal(result.throttled, true);
  assert.match(result.error, /URL throttle limits/);
});

Deno.test("webhook: a 404 (deleted webhook) is retried, for an operator to fix within the window", async () => {
  await using chat = startChatReceiver({ mode: { kind: "error", status: 404, body: "no_service" } });
  const result = await postAnnouncement(chat.url(), body, options());
  assert.ok(result.outcome === "retry");
  assert.equal(result.throttled, false);
  assert.equal(result.error, "HTTP 404: no_service");
});

Deno.test("webhook: a refused connection is retried, and the error does not reveal the URL", async () => {
  await using chat = startChatReceiver();
  const secretPath = "/services/T000/B000/XXXXsecretXXXXsecretXXXX";
  const url = chat.url(secretPath) + "?zapikey=1001.deadbeefcafebabe";
  await chat.setMode({ kind: "down" });
  const result = await postAnnouncement(url, body, options());
  assert.ok(result.outcome === "retry");
  assert.equal(result.status, undefined);
  assert.equal(result.throttled, false);
  assert.match(result.error, /^network error: .*refused/i);
  assert.ok(!result.error.includes("XXXXsecret"), result.error);
  assert.ok(!result.error.includes("deadbeef"), result.error);
  assert.ok(!result.error.includes("127.0.0.1"), result.error);

  // And it comes back on the same port: the same URL works again.
  await chat.setMode({ kind: "ok" });
  assert.equal((await postAnnouncement(url, body, options())).outcome, "delivered");
  assert.equal(chat.posts.length, 1);
});

Deno.test("webhook: an answer slower than the timeout is retried as a timeout", async () => {
  // Ordering, not speed: the chat answers only after a minute (ended when the receiver closes), so an
  // outcome before that can only be the client giving up at its 0.2 s timeout.
  await using chat = startChatReceiver({ mode: { kind: "slow", delayMs: 60_000 } });
  const result = await postAnnouncement(chat.url(), body, options(new FakeClock(), 200));
  assert.equal(chat.posts.length, 1, "the post reached the chat");
  assert.equal(chat.posts[0].status, 0, "gave up before the chat answered");
  assert.ok(result.outcome === "retry");
  assert.equal(result.error, "timed out after 0.2 s waiting for the chat");
  assert.equal(chat.accepted().length, 0);
});

Deno.test("webhook: one channel throttled while the other is well", async () => {
  await using chat = startChatReceiver();
  await chat.setMode({ kind: "throttle", retryAfter: 5 }, "/new-repair-jobs");
  assert.equal((await postAnnouncement(chat.url("/parts-movement"), body, options())).outcome, "delivered");
  assert.equal((await postAnnouncement(chat.url("/new-repair-jobs"), body, options())).outcome, "retry");
  chat.once({ kind: "error", status: 503 });
  assert.equal((await postAnnouncement(chat.url("/parts-movement"), body, options())).outcome, "retry");
  assert.equal((await postAnnouncement(chat.url("/parts-movement"), body, options())).outcome, "delivered");
  assert.equal(chat.accepted("/parts-movement").length, 2);
  assert.equal(chat.accepted("/new-repair-jobs").length, 0);
});

// --- classification details --------------------------------------------------------------------

Deno.test("classify: a 2xx echo that mentions a 'Throttle body' part is still delivered", () => {
  const echo = JSON.stringify({ text: "Parts Delivered: Throttle body, rate limit sensor" });
  assert.equal(classifyResponse(200, new Headers(), echo, new Date()).outcome, "delivered");
});

Deno.test("classify: Teams' 200 for other failures (413 too large) is retried, not throttled", () => {
  const text =
    "Webhook message delivery failed with error: Microsoft Teams endpoint returned HTTP error 413 " +
    "with ContextId tcid=1..";
  const result = classifyResponse(200, new Headers(), text, new Date());
  assert.ok(result.outcome === "retry");
  assert.equal(result.throttled, false);
});

Deno.test("classify: 408 and 503 with Retry-After are retried after that wait", () => {
  const r408 = classifyResponse(408, new Headers(), "", new Date());
  assert.ok(r408.outcome === "retry" && r408.retryAfterMs === undefined);
  const r503 = classifyResponse(503, new Headers({ "retry-after": "120" }), "busy", new Date());
  assert.ok(r503.outcome === "retry" && r503.retryAfterMs === 120_000 && !r503.throttled);
});

Deno.test("retry-after: seconds, HTTP-date, a date already past, and garbage", () => {
  const now = new Date("2026-11-21T09:00:00Z");
  assert.equal(parseRetryAfter("0", now), 0);
  assert.equal(parseRetryAfter(" 45 ", now), 45_000);
  assert.equal(parseRetryAfter("Sat, 21 Nov 2026 09:00:10 GMT", now), 10_000);
  assert.equal(parseRetryAfter("Sat, 21 Nov 2026 08:00:00 GMT", now), 0);
  assert.equal(parseRetryAfter("-5", now), undefined);
  assert.equal(parseRetryAfter("soon", now), undefined);
  assert.equal(parseRetryAfter(null, now), undefined);
});

Deno.test("redact: the webhook URL and its secret parts never reach the dashboard", () => {
  const url = "https://hooks.slack.com/services/T0001/B0001/abcdefghijklmnopqrstuvwx";
  const text = `error sending request for url (${url}): dns error; token abcdefghijklmnopqrstuvwx`;
  const out = redact(text, url);
  assert.ok(!out.includes("abcdefghijklmnopqrstuvwx"), out);
  assert.ok(!out.includes("hooks.slack.com"), out);
});

// --- backoff -------------------------------------------------------------------------------------

Deno.test("backoff: doubles from 5 s, capped at 15 min", () => {
  const now = new Date("2026-11-21T09:00:00Z");
  const mid = () => 0.5; // no jitter
  const delay = (attempts: number) => nextAttemptAt(attempts, now, undefined, mid).getTime() - now.getTime();
  assert.equal(delay(1), BASE_DELAY_MS);
  assert.equal(delay(2), 10_000);
  assert.equal(delay(3), 20_000);
  assert.equal(delay(8), 640_000);
  assert.equal(delay(9), MAX_DELAY_MS);
  assert.equal(delay(500), MAX_DELAY_MS);
  assert.equal(delay(0), BASE_DELAY_MS, "nonsense attempt counts start at the base");
});

Deno.test("backoff: jitter stays within ±20 % and never passes the cap", () => {
  const now = new Date(0);
  assert.equal(nextAttemptAt(1, now, undefined, () => 0).getTime(), 4_000);
  assert.equal(nextAttemptAt(1, now, undefined, () => 0.999999).getTime(), 6_000);
  for (const r of [0, 0.25, 0.75, 0.999999]) {
    const t = nextAttemptAt(20, now, undefined, () => r).getTime();
    assert.ok(t >= MAX_DELAY_MS * 0.8 && t <= MAX_DELAY_MS, String(t));
  }
});

Deno.test("backoff: never earlier than Retry-After, even past the cap", () => {
  const now = new Date(0);
  assert.equal(nextAttemptAt(1, now, 60_000, () => 0.5).getTime(), 60_000);
  assert.equal(nextAttemptAt(1, now, 3_600_000, () => 0.5).getTime(), 3_600_000);
  assert.equal(
    nextAttemptAt(3, now, 1_000, () => 0.5).getTime(),
    20_000,
    "a shorter Retry-After is only a floor",
  );
});

Deno.test("backoff: gives up 24 hours after the announcement was written", () => {
  const created = new Date("2026-11-21T09:00:00Z");
  assert.equal(GIVE_UP_AFTER_MS, 86_400_000);
  assert.equal(shouldGiveUp(created, new Date("2026-11-22T08:59:59Z")), false);
  assert.equal(shouldGiveUp(created, new Date("2026-11-22T09:00:00Z")), true);
});
