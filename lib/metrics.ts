/**
 * The service's Prometheus metrics (prom-client), served by `GET /metrics` (routes/metrics.ts) when
 * `METRICS_TOKEN` is set; without it no `Metrics` exists and nothing is counted. Every name is listed in
 * docs/operations.md "Metrics".
 *
 * Counters move where things happen (the request middleware, the submission events, the upload answers,
 * the announcement worker); the outbox and the database pool are read at scrape time. Labels take only
 * bounded values: route patterns (never paths), a fixed set of methods, protocol event types, domain error
 * kinds and refusal reasons.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { type Db, poolUse } from "@/db/client.ts";
import { pendingBacklog } from "@/db/queries/announcements.ts";
import type { AnnouncementChannel } from "@/db/schema.ts";
import type { Clock } from "@/io/clock.ts";
import type { ErrorKind } from "@/lib/errors.ts";
import type { UploadRefusal } from "@/lib/photos/upload_refused.ts";

const PREFIX = "parts_movement_";
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** A submission's end: recorded (or replayed), refused with a domain error kind, or an unexpected fault. */
export type SubmissionOutcome = "recorded" | ErrorKind | "error";
export type AttemptOutcome = "delivered" | "retry" | "given_up";

export class Metrics {
  readonly registry = new Registry();
  readonly #requests = new Counter({
    name: `${PREFIX}http_requests_total`,
    help: "HTTP requests answered, by method, route pattern and status.",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  readonly #latency = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: "Time to the answer's headers, by method, route pattern and status.",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  readonly #submissions = new Counter({
    name: `${PREFIX}submissions_total`,
    help: "Movement submissions (handler and tablet) by event type and outcome.",
    labelNames: ["event_type", "outcome"] as const,
    registers: [this.registry],
  });
  readonly #uploadBytes = new Counter({
    name: `${PREFIX}upload_bytes_total`,
    help: "Bytes of photos stored by accepted uploads.",
    registers: [this.registry],
  });
  readonly #uploads = new Counter({
    name: `${PREFIX}uploads_stored_total`,
    help: "Photos stored by accepted uploads.",
    registers: [this.registry],
  });
  readonly #refusals = new Counter({
    name: `${PREFIX}upload_refusals_total`,
    help: "Uploads refused, by reason.",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });
  readonly #attempts = new Counter({
    name: `${PREFIX}announcement_attempts_total`,
    help: "Announcement posts to chat webhooks, by channel and outcome.",
    labelNames: ["channel", "outcome"] as const,
    registers: [this.registry],
  });
  readonly #outboxDepth = new Gauge({
    name: `${PREFIX}outbox_depth`,
    help: "Announcements waiting to be posted (state pending).",
    registers: [this.registry],
  });
  readonly #outboxAge = new Gauge({
    name: `${PREFIX}outbox_oldest_pending_age_seconds`,
    help: "Age of the oldest pending announcement; 0 when none waits.",
    registers: [this.registry],
  });
  readonly #freeDisk = new Gauge({
    name: `${PREFIX}free_disk_bytes`,
    help: "Free bytes on the file system of DATA_DIR (database, upload staging), at the last check.",
    registers: [this.registry],
  });
  /** Created at the first scrape over a server connection: the embedded database has no pool. */
  #pool: Record<"total" | "idle" | "waiting" | "max", Gauge> | null = null;
  /** Label children by `method route status`: looking them up once saves hashing labels per request. */
  readonly #requestChildren = new Map<
    string,
    { count: Counter.Internal; time: Histogram.Internal<string> }
  >();

  /** One answered request. Methods outside the usual set share one label, `OTHER`. */
  request(method: string, route: string, status: number, seconds: number): void {
    const m = METHODS.has(method) ? method : "OTHER";
    const key = `${m} ${route} ${status}`;
    let child = this.#requestChildren.get(key);
    if (!child) {
      const labels = [m, route, String(status)] as const;
      child = { count: this.#requests.labels(...labels), time: this.#latency.labels(...labels) };
      this.#requestChildren.set(key, child);
    }
    child.count.inc();
    child.time.observe(seconds);
  }

  submission(eventType: string, outcome: SubmissionOutcome): void {
    this.#submissions.inc({ event_type: eventType, outcome });
  }

  uploadStored(bytes: number): void {
    this.#uploads.inc();
    this.#uploadBytes.inc(bytes);
  }

  uploadRefused(reason: UploadRefusal): void {
    this.#refusals.inc({ reason });
  }

  /** The free bytes under DATA_DIR (lib/disk_space.ts: at each check, every scrape included). */
  freeDiskBytes(bytes: number): void {
    this.#freeDisk.set(bytes);
  }

  announcementAttempt(channel: AnnouncementChannel, outcome: AttemptOutcome): void {
    this.#attempts.inc({ channel, outcome });
  }

  /** Reads the outbox and the pool, then renders every metric in the Prometheus text format. */
  async scrape({ db, clock }: { db: Db; clock: Clock }): Promise<string> {
    const backlog = await pendingBacklog(db);
    this.#outboxDepth.set(backlog.pending);
    const age = backlog.oldest ? (clock.now().getTime() - backlog.oldest.getTime()) / 1000 : 0;
    this.#outboxAge.set(Math.max(0, age));
    const pool = poolUse(db);
    if (pool) {
      this.#pool ??= this.#poolGauges();
      for (const k of ["total", "idle", "waiting", "max"] as const) this.#pool[k].set(pool[k]);
    }
    return await this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  #poolGauges() {
    const gauge = (name: string, help: string) =>
      new Gauge({ name: `${PREFIX}db_pool_${name}`, help, registers: [this.registry] });
    return {
      total: gauge("total", "Connections the pool holds open (pg Pool totalCount)."),
      idle: gauge("idle", "Open connections not in use (pg Pool idleCount)."),
      waiting: gauge("waiting", "Queries waiting for a connection (pg Pool waitingCount)."),
      max: gauge("max", "The pool's size limit."),
    };
  }
}
