/**
 * Many dashboard screens open (docs/live-streams.md "Measured"): STREAMS live streams (`GET /hq/live`, each
 * its own HTTP connection and its own dispatcher session) on one service child, then dispatcher status
 * changes through the dashboard's own form (`POST /hq/parts/:id/status`, one NOTIFY each). Per round:
 * - the time from sending each change to its `change` event on every stream (p50, p99) against 1 s;
 * - the child's RSS with the streams open and settled minus just before opening them, per stream, against
 *   50 KB; and its RSS beside a child with no stream open (interleaved rounds, bench/pairs.ts);
 * - its CPU (utime + stime, /proc) per change, less its idle CPU over the same span, and its idle CPU per
 *   second with the streams open (the session re-checks, the heartbeats), each beside the same service with
 *   no stream open doing the same changes.
 * The streams' sessions are STREAMS distinct rows, all valid (seeded just before the round: passive streams
 * do not keep them alive): the most rows the session re-check can have to read. The changes come from one
 * more session (an active one, as a dispatcher's click is).
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { BENCH_DISPATCHER } from "@/bench/generate_scale.ts";
import { percentile } from "@/bench/load.ts";
import { compare, interleave, sized, spreadOf } from "@/bench/pairs.ts";
import { type ChildServer, readCpuMs, startChild } from "@/bench/process.ts";
import type { BenchRow } from "@/bench/report.ts";
import { type BenchTarget, serviceEnv } from "@/bench/target.ts";
import { mintToken, randomToken } from "@/io/tokens.ts";

const STREAMS = sized(500, 50);
/** Timed changes per round, after WARM_CHANGES untimed ones. */
const CHANGES = sized(10, 3);
const WARM_CHANGES = 2;
/** The idle window: two session re-checks at the service's 5 s (config.liveSessionCheckMs). */
const IDLE_MS = sized(10_000, 5_000);
/** Waited after the last stream's `ready` before reading RSS: the opening's garbage is collected by then. */
const SETTLE_MS = 2_000;
/** Streams opened at once: a connect storm of 500 would time out the bench's own connects, not the server's. */
const OPEN_AT_ONCE = 50;
/** Every wait of the bench is bounded by this. */
const WAIT_MS = 60_000;
const LATENCY_BUDGET_MS = 1000;
const MEMORY_BUDGET_KB = 50;
const KB = 1e3;
const BARE_STREAMS = "bench/baseline_streams_server.ts";

const encoder = new TextEncoder();
const READY = encoder.encode("event: ready\n");
const PARTS_CHANGE = encoder.encode("event: change\ndata: parts\n");

/** Occurrences of `pattern` in `bytes` (indexOf on its first byte: natively, not a loop per byte). */
function occurrences(bytes: Uint8Array, pattern: Uint8Array): number {
  let n = 0;
  for (let i = bytes.indexOf(pattern[0]); i !== -1; i = bytes.indexOf(pattern[0], i + 1)) {
    let j = 1;
    while (j < pattern.length && bytes[i + j] === pattern[j]) j++;
    if (j === pattern.length) n++;
  }
  return n;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** One open stream as the bench reads it: when it got `ready`, and when each `parts` change arrived. */
interface Reader {
  ready: boolean;
  arrivals: number[];
  done: Promise<void>;
  cancel(): void;
}

function openStream(url: string, cookie: string): Reader {
  const abort = new AbortController();
  let body: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const reader: Reader = {
    ready: false,
    arrivals: [],
    done: Promise.resolve(),
    // Aborting the request alone did not end a body being read (the connection stayed open): the body's
    // reader is cancelled too.
    cancel: () => {
      abort.abort();
      body?.cancel().catch(() => {});
    },
  };
  reader.done = (async () => {
    const res = await fetch(`${url}/hq/live`, {
      headers: { cookie, accept: "text/event-stream" },
      signal: abort.signal,
    });
    if (res.status !== 200) throw new Error(`bench: /hq/live answered ${res.status}`);
    body = res.body!.getReader();
    if (abort.signal.aborted) await body.cancel();
    // An event split over two chunks is found in the carried tail plus the next chunk: the tail is one byte
    // shorter than the longer pattern, so no `change` is counted twice (a `ready` may be: it is a flag).
    let tail = new Uint8Array(0);
    try {
      while (true) {
        const { value: chunk, done } = await body.read();
        if (done) break;
        const at = performance.now();
        const bytes = tail.length ? concat(tail, chunk) : chunk;
        if (!reader.ready && occurrences(bytes, READY) > 0) reader.ready = true;
        for (let n = occurrences(bytes, PARTS_CHANGE); n > 0; n--) reader.arrivals.push(at);
        tail = bytes.slice(Math.max(0, bytes.length - PARTS_CHANGE.length + 1));
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  })();
  return reader;
}

/** Polls `done` every 5 ms for at most WAIT_MS; fails naming `what`. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + WAIT_MS;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`bench: ${what}: not within ${WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const progress = (line: string) => console.error(`bench: streams: ${line}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A dispatcher session row (valid now: last seen now), as `Cookie` and its CSRF token. */
interface Session {
  cookie: string;
  csrf: string;
}

/** What one round needs, written before its child starts (the embedded database has one opener at a time). */
interface Seed {
  streams: Session[];
  actor: Session;
  /** Ordered parts, one per change (`Mark arrived at HQ`). */
  parts: number[];
}

async function seedRound(db: Db, streams: number, tag: string): Promise<Seed> {
  await sql`insert into users (email, name, role) values (${BENCH_DISPATCHER}, 'Bench Dispatcher', 'dispatcher')
    on conflict do nothing`.execute(db);
  const user = await db.selectFrom("users").select("id").where("email", "=", BENCH_DISPATCHER)
    .executeTakeFirstOrThrow();
  const sessions = Array.from({ length: streams + 1 }, () => ({ ...mintToken(), csrf: randomToken() }));
  const now = new Date();
  await db.insertInto("sessions").values(sessions.map((s) => ({
    token_hash: s.hash,
    user_id: user.id,
    csrf_token: s.csrf,
    created_at: now,
    last_seen_at: now,
  }))).execute();
  const count = WARM_CHANGES + CHANGES;
  await sql`insert into claims (claim_number, registration)
    values (${tag}, ${tag.slice(-8)})`.execute(db);
  await sql`insert into parts_orders (claim_id, part_no, description, qty_ordered, status)
    select c.id, ${tag} || '-' || k, 'Bench part', 1, 'Ordered'
    from claims c, generate_series(1, ${count}::int) k where c.claim_number = ${tag}`.execute(db);
  const parts = await sql<{ id: number }>`select p.id from parts_orders p join claims c on c.id = p.claim_id
    where c.claim_number = ${tag} order by p.id`.execute(db);
  const asSession = (s: (typeof sessions)[number]) => ({ cookie: `pm_session=${s.token}`, csrf: s.csrf });
  return {
    streams: sessions.slice(1).map(asSession),
    actor: asSession(sessions[0]),
    parts: parts.rows.map((r) => r.id),
  };
}

/** `Mark arrived at HQ` on the dashboard, as a dispatcher's click sends it. */
async function changeStatus(child: ChildServer, actor: Session, part: number): Promise<void> {
  const res = await fetch(`${child.url}/hq/parts/${part}/status`, {
    method: "POST",
    headers: { cookie: actor.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ from: "Ordered", to: "Arrived", reason: "", _csrf: actor.csrf }),
    redirect: "manual",
  });
  await res.body?.cancel();
  if (res.status !== 303) throw new Error(`bench: the status change answered ${res.status}`);
}

interface Sample {
  /** RSS just before opening the streams (none: at the same point), and with them open and settled. */
  rssBefore: number;
  rssOpen: number;
  /** CPU ms per second over IDLE_MS. */
  idleCpuPerS: number;
  /** CPU ms per change, less the idle CPU over the same span. */
  cpuPerChange: number;
  /** Send to arrival, every stream and change (ms); empty without streams. */
  latencies: number[];
  /** Milliseconds to open every stream to its `ready`. */
  openMs: number;
}

/** One round: a fresh child, `streams` streams opened (0: the baseline), idle, then the changes. */
async function sample(target: BenchTarget, streams: number, tag: string): Promise<Sample> {
  const db = target.open();
  const seed = await seedRound(db, streams, tag);
  await db.destroy();
  const child = await startChild("tasks/start.ts", serviceEnv(target));
  const readers: Reader[] = [];
  try {
    // Warm-up: the form's route and the stream's, compiled before anything is measured.
    for (const part of seed.parts.slice(0, WARM_CHANGES)) await changeStatus(child, seed.actor, part);
    const warm = openStream(child.url, seed.actor.cookie);
    await until(() => warm.ready, "the warm-up stream's ready");
    warm.cancel();
    await warm.done;
    await sleep(SETTLE_MS);
    const rssBefore = await child.rss();
    const t0 = performance.now();
    for (let i = 0; i < streams; i += OPEN_AT_ONCE) {
      const batch = seed.streams.slice(i, Math.min(streams, i + OPEN_AT_ONCE))
        .map((s) => openStream(child.url, s.cookie));
      readers.push(...batch);
      await until(() => batch.every((r) => r.ready), `${streams} streams' ready`);
    }
    const openMs = performance.now() - t0;
    progress(`${streams} streams ready in ${Math.round(openMs)} ms`);
    await sleep(SETTLE_MS);
    const rssOpen = await child.rss();

    const idle0 = await readCpuMs(child.pid);
    const idleT0 = performance.now();
    await sleep(IDLE_MS);
    const idleCpuPerMs = (await readCpuMs(child.pid) - idle0) / (performance.now() - idleT0);

    progress(`idle CPU ${(idleCpuPerMs * 1000).toFixed(0)} ms/s`);
    const latencies: number[] = [];
    const cpu0 = await readCpuMs(child.pid);
    const span0 = performance.now();
    for (const [i, part] of seed.parts.slice(WARM_CHANGES).entries()) {
      const sent = performance.now();
      await changeStatus(child, seed.actor, part);
      await until(() => readers.every((r) => r.arrivals.length > i), `change ${i} on every stream`);
      for (const r of readers) latencies.push(r.arrivals[i] - sent);
      progress(`change ${i + 1}/${CHANGES} on every stream after ${Math.round(performance.now() - sent)} ms`);
    }
    const span = performance.now() - span0;
    const cpuPerChange = (await readCpuMs(child.pid) - cpu0 - idleCpuPerMs * span) / CHANGES;
    return { rssBefore, rssOpen, idleCpuPerS: idleCpuPerMs * 1000, cpuPerChange, latencies, openMs };
  } finally {
    for (const r of readers) r.cancel();
    // Bounded: a stream that does not close must not hold the bench (the child's stop closes it).
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled(readers.map((r) => r.done)),
      new Promise((r) => timer = setTimeout(r, WAIT_MS)),
    ]);
    clearTimeout(timer);
    await child.stop();
  }
}

/** The bare floor (bench/baseline_streams_server.ts): RSS per open stream of a bare Deno.serve, in bytes. */
async function bareSample(): Promise<number> {
  const child = await startChild(BARE_STREAMS, {});
  const readers: Reader[] = [];
  try {
    await sleep(SETTLE_MS);
    const before = await child.rss();
    for (let i = 0; i < STREAMS; i += OPEN_AT_ONCE) {
      const batch = Array.from(
        { length: Math.min(OPEN_AT_ONCE, STREAMS - i) },
        () => openStream(child.url, ""),
      );
      readers.push(...batch);
      await until(() => batch.every((r) => r.ready), "the bare streams' ready");
    }
    await sleep(SETTLE_MS);
    return (await child.rss() - before) / STREAMS;
  } finally {
    for (const r of readers) r.cancel();
    await child.stop();
  }
}

export async function benchDashboardStreams(target: BenchTarget): Promise<BenchRow[]> {
  // The baseline side of a round: the service with no stream open, then the bare floor.
  const paired = await interleave(
    (r) => sample(target, STREAMS, `STREAMS-${r}-${Date.now()}`),
    async (r) => ({ none: await sample(target, 0, `NOSTREAM-${r}-${Date.now()}`), bare: await bareSample() }),
  );
  const samples = { service: paired.service, baseline: paired.baseline.map((b) => b.none) };
  const bare = compare(
    { service: paired.service, baseline: paired.baseline.map((b) => b.bare) },
    (x) => (x.rssOpen - x.rssBefore) / STREAMS / KB,
    (b) => b / KB,
  );
  const s = samples.service;
  const p = (q: number) => spreadOf(s.map((x) => percentile([...x.latencies].sort((a, b) => a - b), q)));
  const p50 = p(50);
  const p99 = p(99);
  const perStream = spreadOf(s.map((x) => (x.rssOpen - x.rssBefore) / STREAMS / KB));
  const rss = compare(samples, (x) => x.rssOpen / 1e6, (b) => b.rssOpen / 1e6);
  const pairedPerStream = spreadOf(s.map((x, i) => (x.rssOpen - samples.baseline[i].rssOpen) / STREAMS / KB));
  const idle = compare(samples, (x) => x.idleCpuPerS, (b) => b.idleCpuPerS);
  // /proc counts CPU in 10 ms ticks: an idle child often used none over the window, and x/0 is no ratio.
  const idleRatio = samples.baseline.some((b) => b.idleCpuPerS === 0) ? "— (baseline 0)" : idle.ratio;
  const cpu = compare(samples, (x) => x.cpuPerChange, (b) => b.cpuPerChange);
  const opened = spreadOf(s.map((x) => x.openMs));
  const changes =
    `${CHANGES} dashboard status changes a round (POST /hq/parts/:id/status), after ${WARM_CHANGES}`;
  return [
    {
      figure: `live: change to event on ${STREAMS} streams, p50 (ms)`,
      service: p50,
      vs: "budget",
      baseline: LATENCY_BUDGET_MS,
      ratio: p50.median / LATENCY_BUDGET_MS,
      note: `from sending the change to its event on each stream; ${changes}`,
    },
    {
      figure: `live: change to event on ${STREAMS} streams, p99 (ms)`,
      service: p99,
      vs: "budget",
      baseline: LATENCY_BUDGET_MS,
      ratio: p99.median / LATENCY_BUDGET_MS,
      note: `each stream its own connection and session; opening them all to ready took ` +
        `${Math.round(opened.median)} ms (${Math.round(opened.min)}–${Math.round(opened.max)})`,
      target: `≤ ${LATENCY_BUDGET_MS} ms`,
    },
    {
      figure: "live: server memory per open stream (KB)",
      service: perStream,
      vs: "budget",
      baseline: MEMORY_BUDGET_KB,
      ratio: perStream.median / MEMORY_BUDGET_KB,
      note: `(RSS with ${STREAMS} open and settled ${SETTLE_MS / 1000} s − RSS just before) ÷ ${STREAMS}, ` +
        "in the same child",
      target: `≤ ${MEMORY_BUDGET_KB} KB`,
    },
    {
      figure: "live: server memory per open stream (KB)",
      service: bare.service,
      vs: "baseline",
      baseline: bare.baseline,
      ratio: bare.ratio,
      note: `bare Deno.serve answering ${STREAMS} never-ending ReadableStream responses ` +
        "(bench/baseline_streams_server.ts): what Deno itself holds per open streaming response",
    },
    {
      figure: `live: server RSS with ${STREAMS} streams open (MB)`,
      service: rss.service,
      vs: "same service, no stream open",
      baseline: rss.baseline,
      ratio: rss.ratio,
      note: `paired rounds; per stream (this round's RSS − the paired no-stream round's) ÷ ${STREAMS}: ` +
        `${pairedPerStream.median.toFixed(1)} KB (${pairedPerStream.min.toFixed(1)}–` +
        `${pairedPerStream.max.toFixed(1)})`,
    },
    {
      figure: `live: idle CPU with ${STREAMS} streams open (ms/s)`,
      service: idle.service,
      vs: "same service, no stream open",
      baseline: idle.baseline,
      ratio: idleRatio,
      note: `utime+stime of the child over ${IDLE_MS / 1000} s without changes: the session re-checks ` +
        "(every 5 s) and heartbeats",
    },
    {
      figure: `live: CPU per change with ${STREAMS} streams open (ms)`,
      service: cpu.service,
      vs: "same service, no stream open",
      baseline: cpu.baseline,
      ratio: cpu.ratio,
      note: `the child's CPU over the changes ÷ ${CHANGES}, less its idle CPU over the same span; the ` +
        "baseline is the change itself (the form's request and transaction)",
    },
  ];
}
