/**
 * Structured logs (docs/operations.md "Logs"): one JSON line per request and per
 * announcement attempt, the request id in X-Request-Id and in a fault's reference, no secret in any line;
 * captured in-process through the logger's sink, and once from a spawned server's stdout.
 */
import assert from "node:assert/strict";
import { parseConfig } from "@/io/config.ts";
import { runAnnouncementWorkerOnce } from "@/lib/announcements/worker.ts";
import { appTest } from "@/testkit/app.ts";
import { startChatReceiver } from "@/tests/helpers/chat_receiver.ts";
import { makeUser } from "@/testkit/factories.ts";
import { confirmed, dropOffPayload, flowSetup } from "@/testkit/movements.ts";
import { captureLogs, METRICS_TOKEN, observedApp } from "@/tests/helpers/observed.ts";
import { jpegPhoto, photoForm } from "@/testkit/photos.ts";
import { startService } from "@/tests/helpers/service_process.ts";
import { makeDriver, Tablet, TEST_PIN } from "@/tests/helpers/tablet.ts";

type Line = Record<string, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const REQUEST_KEYS = [
  "@timestamp",
  "duration_ms",
  "level",
  "logger",
  "message",
  "method",
  "request_id",
  "route",
  "status",
];

/** The request records, by request id; asserts there is exactly one per id. */
function requestLines(lines: Line[]): Map<string, Line> {
  const byId = new Map<string, Line>();
  for (const l of lines.filter((l) => l.logger === "parts-movement.http" && l.level === "INFO")) {
    const id = l.request_id as string;
    assert.ok(!byId.has(id), `two request lines for ${id}`);
    byId.set(id, l);
  }
  return byId;
}

/** The id a response carries, checked to be a UUID. */
function idOf(res: Response): string {
  const id = res.headers.get("x-request-id");
  assert.match(id ?? "", UUID);
  return id!;
}

appTest(
  "logs: one JSON line per request with its id, route pattern, status, duration and user",
  async (a) => {
    using logs = captureLogs();
    const o = observedApp(a);
    const driver = await makeDriver(o);
    const tablet = new Tablet(o);
    const s = await flowSetup(o, { count: 1, status: "Arrived", stage: "direct_dropoff" });
    const answers: { res: Response; route: string; status: number; user?: number; source?: string }[] = [];
    const keep = (res: Response, route: string, status: number, user?: number, source?: string) => {
      answers.push({ res, route, status, user, source });
      return res;
    };

    await tablet.signIn(driver); // the sign-in POST (303) and the home page (200, signed in)
    const search = await tablet.postJson("/tablet/api/search", {
      job: "deliver",
      rego: s.claim.registration,
    });
    keep(search, "/tablet/api/search", 200, driver.id);
    const payload = dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs));
    // The app's requests say where they came from (`local`: in process, without a connection).
    keep(await o.handler(payload), "/api/handler", 200, undefined, "local");
    keep(await o.app.request("/photos/12345"), "/photos/:id{[1-9][0-9]{0,9}}", 401);
    keep(await o.app.request("/no/such/7"), "unmatched", 404);

    const lines = logs.records();
    const byId = requestLines(lines);
    // Two tablet requests before `search` (sign-in and home page), then the four above.
    assert.equal(byId.size, 2 + answers.length);
    for (const { res, route, status, user, source } of answers) {
      const line = byId.get(idOf(res));
      assert.ok(line, `a line for ${route}`);
      assert.equal(line.route, route);
      assert.equal(line.status, status);
      assert.equal(line.status, res.status);
      assert.equal(line.level, "INFO");
      assert.equal(typeof line.duration_ms, "number");
      assert.ok((line.duration_ms as number) >= 0);
      assert.ok(!Number.isNaN(Date.parse(line["@timestamp"] as string)));
      assert.equal(line.user_id, user);
      assert.equal(line.source_address, source);
      assert.deepEqual(
        Object.keys(line).sort(),
        [
          ...REQUEST_KEYS,
          ...(user === undefined ? [] : ["user_id"]),
          ...(source === undefined ? [] : ["source_address"]),
        ]
          .sort(),
      );
    }
  },
);

appTest("logs: no token, PIN, key, cookie or webhook URL appears in any line", async (a) => {
  using logs = captureLogs({ level: "debug" });
  await using chat = startChatReceiver({ mode: { kind: "error", status: 500 } });
  // A closed port: the fetch error names the URL, secret path and all.
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = (closed.addr as Deno.NetAddr).port;
  closed.close();
  const secretHook = `http://127.0.0.1:${closedPort}/services/T0SECRET/B0SECRET/xoxSecretWebhookPart`;
  const o = observedApp(a, {
    publicKey: "public-key-that-is-secret",
    chatWebhooks: { partsMovement: secretHook, newRepairJobs: chat.url("/jobs/zapikeySecretValue123") },
  });
  const driver = await makeDriver(o);
  const tablet = new Tablet(o);
  await tablet.signIn(driver);
  const cookie = tablet.cookie.split("=")[1];
  const s = await flowSetup(o, { count: 1, status: "Arrived", stage: "direct_dropoff" });
  // A PIN sign-in that fails, then the tablet API with the session cookie and CSRF token.
  await tablet.signInForm({ user_id: String(driver.id), pin: "9999", next: "/tablet" });
  await tablet.postJson("/tablet/api/search", { job: "deliver", rego: s.claim.registration });
  const minted = await o.call({
    event_type: "parts_movement_upload_token",
    Parts_Order: String(s.parts[0].id),
    Movement_Stage: "direct_dropoff",
    rego: s.claim.registration,
    user_email: s.user.email,
  });
  const token = (minted.result.data as { token: string }).token;
  const record = (minted.result.data as { record_id: number }).record_id;
  await o.app.request(
    `/api/v2.1/data/${o.config.appOwner}/${o.config.appName}/report/Parts_Movement_Uploaded_Images_Temp_Report/` +
      `${record}/Parts_Image/upload`,
    {
      method: "POST",
      headers: { authorization: `Zoho-oauthtoken ${token}` },
      body: photoForm(await jpegPhoto()),
    },
  );
  // The upload is a retake of the part's staged photo (docs/photos.md "Retakes"): the submission names it.
  const dropped = await o.call(
    dropOffPayload(
      s.user.email,
      s.claim.registration,
      s.shop,
      confirmed([{ part: s.parts[0].id, image: record }]),
    ),
  );
  assert.equal(dropped.result.status, "success", JSON.stringify(dropped));
  await o.app.request("/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const round = await runAnnouncementWorkerOnce(o);
  assert.equal(round.retried, 2, "both channels failed once: the closed port and the 500");

  const text = logs.lines.join("\n");
  assert.ok(logs.lines.length >= 10, `lines: ${logs.lines.length}`);
  const secrets = {
    cookie,
    csrf: tablet.csrf,
    pin: TEST_PIN,
    wrongPin: "9999",
    token,
    publicKey: "public-key-that-is-secret",
    metricsToken: METRICS_TOKEN,
    webhook: secretHook,
    webhookPart: "xoxSecretWebhookPart",
    otherWebhook: chat.url("/jobs/zapikeySecretValue123"),
    otherPart: "zapikeySecretValue123",
  };
  for (const [what, secret] of Object.entries(secrets)) {
    assert.ok(secret.length >= 4, what);
    // A 4-digit PIN also turns up inside request ids (a UUID's 4-digit groups), ports and durations by
    // chance: a PIN counts only where it stands alone, not as a piece of a hex, UUID or decimal run.
    const found = /^\d+$/.test(secret)
      ? new RegExp(`(?<![0-9a-fA-F.-])${secret}(?![0-9a-fA-F-])`).test(text)
      : text.includes(secret);
    assert.ok(!found, `${what} appears in the logs`);
  }
});

appTest(
  "logs: one line per announcement attempt: id, channel, outcome, status and attempt number",
  async (a) => {
    using logs = captureLogs();
    await using chat = startChatReceiver();
    const o = observedApp(a, {
      chatWebhooks: { partsMovement: chat.url("/pm"), newRepairJobs: chat.url("/nrj") },
    });
    await chat.setMode({ kind: "error", status: 503 }, "/nrj");
    const s = await flowSetup(o, { count: 1, status: "Arrived", stage: "direct_dropoff" });
    assert.equal(
      (await o.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs))))
        .result.status,
      "success",
    );
    await runAnnouncementWorkerOnce(o);
    o.clock.advance(10 * 60_000); // past the first backoff step
    await chat.setMode({ kind: "ok" }, "/nrj");
    await runAnnouncementWorkerOnce(o);

    const rows = await o.db.selectFrom("announcements").select(["id", "channel"]).orderBy("id").execute();
    const attempts = logs.records().filter((l) => l.logger === "parts-movement.announcements");
    const pick = (l: Line) => [l.announcement_id, l.channel, l.outcome, l.status, l.attempt, l.level];
    const pm = rows.find((r) => r.channel === "parts_movement")!.id;
    const nrj = rows.find((r) => r.channel === "new_repair_jobs")!.id;
    assert.deepEqual(
      attempts.map(pick).sort((x, y) => String(x).localeCompare(String(y))),
      [
        [pm, "parts_movement", "delivered", 200, 1, "INFO"],
        [nrj, "new_repair_jobs", "retry", 503, 1, "WARN"],
        [nrj, "new_repair_jobs", "delivered", 200, 2, "INFO"],
      ].sort((x, y) => String(x).localeCompare(String(y))),
    );
    for (const l of attempts) assert.ok(!JSON.stringify(l).includes(chat.url("")), "no webhook URL");
  },
);

appTest(
  "logs: a fault's reference is its request id, in X-Request-Id, the answer and the error line",
  async (a) => {
    using logs = captureLogs();
    const o = observedApp(a);
    const user = await makeUser(o.db);
    await o.db.destroy();
    const res = await o.handler({
      event_type: "Parts_search_details",
      user_email: user.email,
      details: { rego: "ABC123", movement_type: "direct" },
    });
    assert.equal(res.status, 503);
    const id = idOf(res);
    assert.equal((await res.json()).message, `Service temporarily unavailable. Try again (ref ${id}).`);
    const lines = logs.records();
    const fault = lines.find((l) => l.level === "ERROR");
    assert.ok(fault, "the fault is logged");
    assert.equal(fault.request_id, id);
    assert.equal(fault.route, "/api/handler");
    assert.equal(typeof fault.error, "string");
    const request = requestLines(lines).get(id);
    assert.equal(request?.status, 503);
  },
);

appTest("logs: LOG_FORMAT=text writes one readable line per request", async (a) => {
  using logs = captureLogs({ format: "text" });
  const o = observedApp(a);
  const res = await o.app.request("/photos/7");
  assert.equal(logs.lines.length, 1);
  assert.match(
    logs.lines[0],
    /\[INF\] parts-movement·http: GET \/photos\/:id\{\[1-9\]\[0-9\]\{0,9\}\} 401 in [\d.]+ ms$/,
  );
  assert.ok(idOf(res));
  // An app request's line says where it came from.
  await (await o.handler({ event_type: "nope" })).body?.cancel();
  assert.match(logs.lines[1], /parts-movement·http: POST \/api\/handler 200 in [\d.]+ ms from local$/);
});

Deno.test("logs: LOG_FORMAT defaults to text in development and json elsewhere; METRICS_TOKEN is long", () => {
  assert.equal(parseConfig({}).logFormat, "text");
  assert.equal(parseConfig({ APP_ENV: "stage" }).logFormat, "json");
  assert.equal(
    parseConfig({ APP_ENV: "production", PUBLIC_KEY: "a-production-public-key" }).logFormat,
    "json",
  );
  assert.equal(parseConfig({ LOG_FORMAT: "json" }).logFormat, "json");
  assert.equal(parseConfig({}).logLevel, "info");
  assert.equal(parseConfig({}).metricsToken, undefined);
  assert.throws(() => parseConfig({ LOG_FORMAT: "xml" }), /LOG_FORMAT/);
  assert.throws(() => parseConfig({ METRICS_TOKEN: "short" }), /METRICS_TOKEN/);
});

Deno.test({
  name: "logs: a spawned server (APP_ENV=stage) writes the same JSON lines on stdout",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "pm-logs-" });
    const service = await startService({ APP_ENV: "stage", DATA_DIR: dataDir, METRICS_TOKEN });
    try {
      const url = (path: string) => `${service.url}${path}`;
      const sent: { id: string; route: string; status: number }[] = [];
      const send = async (path: string, init: RequestInit, route: string) => {
        const res = await fetch(url(path), init);
        await res.body?.cancel();
        sent.push({ id: idOf(res), route, status: res.status });
      };
      const search = JSON.stringify({
        payload: { event_type: "Parts_search_details", user_email: "nobody@example.com", details: {} },
      });
      await send(
        `/api/handler?publickey=${service.publicKey}`,
        { method: "POST", body: search },
        "/api/handler",
      );
      await send("/nowhere", {}, "unmatched");
      await send("/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }, "/metrics");
      // The lines are written before each answer leaves; give the pipe a moment to carry them.
      let byId = new Map<string, Line>();
      for (let i = 0; i < 50 && !sent.every((s) => byId.has(s.id)); i++) {
        await new Promise((r) => setTimeout(r, 100));
        const lines = service.stdout().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Line);
        byId = requestLines(lines);
      }
      for (const s of sent) {
        const line = byId.get(s.id);
        assert.ok(line, `stdout has the line of ${s.route}:\n${service.stdout()}`);
        assert.deepEqual([line.route, line.status], [s.route, s.status]);
      }
      assert.ok(!service.stdout().includes(service.publicKey), "no public key");
      assert.ok(!service.stdout().includes(METRICS_TOKEN), "no metrics token");
    } finally {
      await service.kill("SIGTERM");
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
