/**
 * GET /metrics (docs/operations.md "Metrics"): off without METRICS_TOKEN, bearer-protected,
 * and after a known sequence of requests the Prometheus text (parsed here, line by line) shows exact counts.
 */
import assert from "node:assert/strict";
import type { MovementStage } from "@/db/schema.ts";
import { runAnnouncementWorkerOnce } from "@/lib/announcements/worker.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { startChatReceiver } from "@/tests/helpers/chat_receiver.ts";
import { makeClaim, makeUser } from "@/testkit/factories.ts";
import { confirmed, dropOffPayload, flowSetup } from "@/testkit/movements.ts";
import { METRICS_TOKEN, observedApp } from "@/tests/helpers/observed.ts";
import { jpegPhoto, photoForm, pngPhoto } from "@/testkit/photos.ts";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y;

/**
 * The Prometheus text exposition format (version 0.0.4), strictly: `# HELP`/`# TYPE` lines, then samples
 * `name{label="value",…} value`, each sample of a family whose TYPE came before it.
 */
function parseExposition(text: string): Sample[] {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# HELP ")) continue;
    const type = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
    if (type) {
      types.set(type[1], type[2]);
      continue;
    }
    const m = SAMPLE.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const body = m[2] ?? "";
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < body.length) {
      const l = LABEL.exec(body);
      assert.ok(l, `bad labels in: ${line}`);
      labels[l[1]] = l[2].replace(/\\n/g, "\n").replace(/\\(["\\])/g, "$1");
    }
    const family = m[1].replace(/_(bucket|sum|count)$/, "");
    assert.ok(types.has(m[1]) || types.get(family) === "histogram", `no TYPE before ${m[1]}`);
    const value = m[3] === "+Inf" ? Infinity : m[3] === "-Inf" ? -Infinity : Number(m[3]);
    assert.ok(!Number.isNaN(value) || m[3] === "NaN", `bad value in: ${line}`);
    samples.push({ name: m[1], labels, value });
  }
  return samples;
}

/** The value of the one sample with exactly these labels; undefined when there is none. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const key = JSON.stringify(Object.entries(labels).sort());
  const found = samples.filter((s) =>
    s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === key
  );
  assert.ok(found.length <= 1, `${name} ${key} appears ${found.length} times`);
  return found[0]?.value;
}

async function scrape(a: TestApp, token = METRICS_TOKEN): Promise<Response> {
  return await a.app.request("/metrics", { headers: { authorization: `Bearer ${token}` } });
}

async function samplesOf(a: TestApp): Promise<Sample[]> {
  const res = await scrape(a);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  return parseExposition(await res.text());
}

/** Call 2a for a fresh part: a token and the staged record to upload to. */
async function mint(a: TestApp, stage: MovementStage = "direct_dropoff") {
  const user = await makeUser(a.db);
  const { claim, parts } = await makeClaim(a.db, { parts: [{ status: "Arrived" }] });
  const body = await a.call({
    event_type: "parts_movement_upload_token",
    Parts_Order: String(parts[0].id),
    Movement_Stage: stage,
    rego: claim.registration,
    user_email: user.email,
  });
  return body.result.data as { record_id: number; token: string; app_owner: string; app_name: string };
}

const UPLOAD_ROUTE = "/api/v2.1/data/:appOwner/:appName/report/:reportName/:recordId/:fieldName/upload";

function upload(a: TestApp, m: { record_id: number; token: string }, body: BodyInit) {
  const path = `/api/v2.1/data/${a.config.appOwner}/${a.config.appName}/report/` +
    `Parts_Movement_Uploaded_Images_Temp_Report/${m.record_id}/Parts_Image/upload`;
  return a.app.request(path, {
    method: "POST",
    headers: { authorization: `Zoho-oauthtoken ${m.token}` },
    body,
  });
}

appTest("metrics: /metrics is a 404 without METRICS_TOKEN and wants the bearer token with it", async (a) => {
  const off = await a.app.request("/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.equal(off.status, 404);
  assert.equal((await off.json()).code, 4040);

  const o = observedApp(a);
  for (const authorization of [undefined, "Bearer", `Bearer ${METRICS_TOKEN}x`, `Basic ${METRICS_TOKEN}`]) {
    const res = await o.app.request("/metrics", { headers: authorization ? { authorization } : {} });
    assert.equal(res.status, 401, String(authorization));
    assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="metrics"');
    assert.doesNotMatch(await res.text(), /parts_movement_/);
  }
  assert.equal((await scrape(o)).status, 200);
});

appTest("metrics: a known sequence of requests gives exact counts in the Prometheus text", async (a) => {
  await using chat = startChatReceiver();
  const o = observedApp(a, {
    chatWebhooks: { partsMovement: chat.url("/parts"), newRepairJobs: chat.url("/jobs") },
  });
  await chat.setMode({ kind: "error", status: 500 }, "/jobs");

  // 1. Two searches, one drop-off recorded, one refused (parts of another claim under this rego).
  const s = await flowSetup(o, { count: 2, status: "Arrived", stage: "direct_dropoff" });
  for (let i = 0; i < 2; i++) {
    const found = await o.call({
      event_type: "Parts_search_details",
      user_email: s.user.email,
      details: { rego: s.claim.registration, movement_type: "direct" },
    });
    assert.equal(found.result.status, "success");
  }
  const payload = dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs));
  assert.equal((await o.call(payload)).result.status, "success");
  const other = await flowSetup(o, { count: 1, status: "Arrived", stage: "direct_dropoff" });
  const refused = dropOffPayload(other.user.email, s.claim.registration, s.shop, confirmed(other.pairs));
  assert.equal((await o.call(refused)).result.status, "failure");
  // 2. Two tokens (2a, also handler calls), one photo stored, one refused for a used token.
  const m = await mint(o);
  const photo = await jpegPhoto();
  assert.equal((await upload(o, m, photoForm(photo))).status, 200);
  assert.equal((await upload(o, m, photoForm(photo))).status, 401);
  // 3. Three unknown paths.
  for (const path of ["/nope", "/api/nope/1", "/hq-not"]) {
    assert.equal((await o.app.request(path)).status, 404);
  }

  // The outbox: the drop-off's two announcements wait; 90 s later the oldest is 90 s old.
  o.clock.advance(90_000);
  let samples = await samplesOf(o);
  const handler = { method: "POST", route: "/api/handler", status: "200" };
  // 2 searches + 2 drop-offs + 1 token mint (flowSetup stages its photos in the database, not over HTTP).
  assert.equal(valueOf(samples, "parts_movement_http_requests_total", handler), 5);
  assert.equal(valueOf(samples, "parts_movement_http_request_duration_seconds_count", handler), 5);
  assert.equal(
    valueOf(samples, "parts_movement_http_request_duration_seconds_bucket", { ...handler, le: "+Inf" }),
    5,
  );
  const buckets = samples.filter((x) =>
    x.name === "parts_movement_http_request_duration_seconds_bucket" && x.labels.route === "/api/handler"
  ).map((x) => x.value);
  assert.deepEqual(buckets, [...buckets].sort((x, y) => x - y), "cumulative buckets never decrease");
  const up = (status: string) => ({ method: "POST", route: UPLOAD_ROUTE, status });
  assert.equal(valueOf(samples, "parts_movement_http_requests_total", up("200")), 1);
  assert.equal(valueOf(samples, "parts_movement_http_requests_total", up("401")), 1);
  assert.equal(
    valueOf(samples, "parts_movement_http_requests_total", {
      method: "GET",
      route: "unmatched",
      status: "404",
    }),
    3,
  );
  const drop = (outcome: string) => ({ event_type: "parts_drop_off", outcome });
  assert.equal(valueOf(samples, "parts_movement_submissions_total", drop("recorded")), 1);
  assert.equal(valueOf(samples, "parts_movement_submissions_total", drop("refused")), 1);
  assert.equal(valueOf(samples, "parts_movement_uploads_stored_total"), 1);
  assert.equal(valueOf(samples, "parts_movement_upload_bytes_total"), photo.length);
  assert.equal(valueOf(samples, "parts_movement_upload_refusals_total", { reason: "unauthorized" }), 1);
  assert.equal(valueOf(samples, "parts_movement_outbox_depth"), 2);
  assert.equal(valueOf(samples, "parts_movement_outbox_oldest_pending_age_seconds"), 90);
  // The pool is the server's; the embedded database has none, so no pool series at all.
  if (o.kind === "postgres") {
    assert.equal(valueOf(samples, "parts_movement_db_pool_max"), 10);
    assert.ok(valueOf(samples, "parts_movement_db_pool_total")! >= 1);
    assert.equal(valueOf(samples, "parts_movement_db_pool_waiting"), 0);
    assert.ok(
      valueOf(samples, "parts_movement_db_pool_idle")! <= valueOf(samples, "parts_movement_db_pool_total")!,
    );
  } else {
    assert.equal(samples.filter((x) => x.name.startsWith("parts_movement_db_pool_")).length, 0);
  }

  // 4. The worker posts both: the parts channel accepts, the jobs channel fails (500, retried later).
  const round = await runAnnouncementWorkerOnce(o);
  assert.deepEqual([round.delivered, round.retried], [1, 1]);
  samples = await samplesOf(o);
  const attempts = (channel: string, outcome: string) =>
    valueOf(samples, "parts_movement_announcement_attempts_total", { channel, outcome });
  assert.equal(attempts("parts_movement", "delivered"), 1);
  assert.equal(attempts("new_repair_jobs", "retry"), 1);
  assert.equal(valueOf(samples, "parts_movement_outbox_depth"), 1);
  // The scrapes themselves are requests too: the first one is counted by the second.
  assert.equal(
    valueOf(samples, "parts_movement_http_requests_total", {
      method: "GET",
      route: "/metrics",
      status: "200",
    }),
    1,
  );
});

appTest("metrics: labels stay bounded: route patterns, not paths; odd methods share one label", async (a) => {
  const o = observedApp(a);
  for (const id of [1, 2, 3]) assert.equal((await o.app.request(`/photos/${id}`)).status, 401);
  for (const id of [4, 5]) await o.app.request(`/photos/${id}/thumb`);
  const odd = await o.app.request("/nope", { method: "PROPFIND" });
  assert.equal(odd.status, 404);
  const samples = await samplesOf(o);
  const routes = new Set(
    samples.filter((x) => x.name === "parts_movement_http_requests_total").map((x) => x.labels.route),
  );
  assert.deepEqual([...routes].sort(), [
    "/photos/:id{[1-9][0-9]{0,9}}",
    "/photos/:id{[1-9][0-9]{0,9}}/thumb",
    "unmatched",
  ]);
  assert.equal(
    valueOf(samples, "parts_movement_http_requests_total", {
      method: "GET",
      route: "/photos/:id{[1-9][0-9]{0,9}}",
      status: "401",
    }),
    3,
  );
  assert.equal(
    valueOf(samples, "parts_movement_http_requests_total", {
      method: "OTHER",
      route: "unmatched",
      status: "404",
    }),
    1,
  );
});

appTest("metrics: the free bytes under DATA_DIR are measured at each scrape", async (a) => {
  let free = 7 * 1024 ** 3;
  const o = observedApp({ ...a, freeDiskBytes: () => Promise.resolve(free) });
  assert.equal(valueOf(await samplesOf(o), "parts_movement_free_disk_bytes"), free);
  free = 123_456_789;
  assert.equal(valueOf(await samplesOf(o), "parts_movement_free_disk_bytes"), free);
});

appTest("metrics: refusals for the staged-photo quotas are counted by reason", async (a) => {
  const o = observedApp(a, { stagedPhotosPerUser: 1 });
  const user = await makeUser(o.db);
  const { claim, parts } = await makeClaim(o.db, { parts: [{ status: "Arrived" }, { status: "Arrived" }] });
  const minted = [];
  for (const part of parts) {
    const body = await o.call({
      event_type: "parts_movement_upload_token",
      Parts_Order: String(part.id),
      Movement_Stage: "direct_dropoff",
      rego: claim.registration,
      user_email: user.email,
    });
    minted.push(body.result.data as { record_id: number; token: string });
  }
  assert.equal((await upload(o, minted[0], photoForm(await jpegPhoto()))).status, 200);
  const refused = await upload(o, minted[1], photoForm(await pngPhoto()));
  assert.equal(refused.status, 409);
  await refused.body?.cancel();
  const samples = await samplesOf(o);
  assert.equal(valueOf(samples, "parts_movement_upload_refusals_total", { reason: "too_many_staged" }), 1);
});
