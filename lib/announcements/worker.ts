/**
 * The announcement worker (D22): drains the outbox after commit and sends each row through its channel's
 * sender (senders.ts: a chat's webhook in the configured chat format, or e-mail to a repair shop), with
 * retries and backoff for up to 24 hours.
 *
 * Order: each channel's announcements are posted oldest first, and a newer one is never posted while an
 * older one of the same channel waits for a retry. Only the oldest pending row of a channel (its head)
 * decides whether the channel is due; when it is, the head and the rows behind it are posted one after
 * another, and the first failure stops the channel and holds the rest back with it. A throttled channel
 * (429, Retry-After, the chat's own throttle answers) therefore waits as a whole.
 *
 * Several processes may run a worker against one PostgreSQL server. A worker claims a channel by locking
 * its head row (`FOR UPDATE SKIP LOCKED`) in a short transaction and leasing the claimed rows to the
 * round's own token (`lease_owner`) for a short time (LEASE_MS, pushed into `next_attempt_at`). The posts
 * happen outside any transaction, and each outcome is recorded afterwards. Another worker skips a locked
 * head and sees a leased head as not due, so a channel is worked by one worker at a time and its order
 * holds across processes.
 *
 * The lease is short and renewed while the round runs (a heartbeat every HEARTBEAT_MS, and before each
 * post), so a worker that died (kill -9, a lost machine) leaves its rows due again LEASE_MS after its last
 * renewal, and the next poll of any worker takes them over (docs/submissions-and-announcements.md "The
 * worker's lease"). Only a post that was truly in flight is repeated, with the same Idempotency-Key. A
 * worker that stalled past its lease finds its token gone: before each post it renews and checks the row
 * is still its own, and every outcome record is guarded by the token, so it neither posts what the new
 * owner holds nor overwrites what the new owner recorded.
 */
import { notifyChange } from "@/db/queries/changes.ts";
import type { Db } from "@/db/client.ts";
import type { AnnouncementChannel, AnnouncementRow } from "@/db/schema.ts";
import {
  moveToFeedOnly,
  recordDelivered,
  recordFailedAttempt,
  releaseAnnouncements,
} from "@/db/queries/announcement_worker.ts";
import { claimDueChannels, HEARTBEAT_MS, Lease, LEASE_MS } from "@/lib/announcements/lease.ts";
import { nextAttemptAt, shouldGiveUp } from "@/lib/announcements/backoff.ts";
import { onAnnouncementsWritten } from "@/lib/announcements/outbox.ts";
import { senderFor, type SendResult } from "@/lib/announcements/senders.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { logger } from "@/io/log.ts";
import type { AttemptOutcome } from "@/lib/metrics.ts";

export type WorkerDeps = Pick<AppDeps, "db" | "config" | "clock" | "metrics">;

const log = logger("announcements");

/** The default poll interval: the first backoff step. */
export const POLL_INTERVAL_MS = 5_000;

export interface WorkerOptions {
  /** How often to look for due rows when nothing wakes the worker; default 5 s (the first backoff step). */
  pollIntervalMs?: number;
  /**
   * Wait before the first round (default 0: at once); a wake ends it early. `deno task start` waits a
   * second: a round at start queued its transaction ahead of a warm restart's first `/healthz` on
   * the embedded database's one connection, and rows left from before the restart can wait.
   */
  firstDelayMs?: number;
  /** Rows posted per channel per round; default 10. */
  batchPerChannel?: number;
  /** Per-post timeout; default 10 s. */
  timeoutMs?: number;
  /** The lease of a claim without renewal; default LEASE_MS (tests). */
  leaseMs?: number;
  /** Real time between heartbeats; default HEARTBEAT_MS (tests shorten it, or lengthen it to stall). */
  heartbeatMs?: number;
  /** Jitter source for the backoff (tests pin it). */
  random?: () => number;
  /** Once aborted, no further post starts; claimed rows not posted yet are handed back, due at once. */
  signal?: AbortSignal;
}

export interface RoundResult {
  /** Rows posted and accepted. */
  delivered: number;
  /** Rows posted and to be retried. */
  retried: number;
  /** Rows given up after 24 h. */
  failed: number;
  /** Pending rows of channels whose webhook is no longer configured, moved to the feed only. */
  feedOnly: number;
}

/**
 * One round: claim the due channels, post their rows, record the outcomes. Returns what happened; a
 * round that claimed nothing returns zeros. For tests and for the loop of `startAnnouncementWorker`.
 */
export async function runAnnouncementWorkerOnce(
  deps: WorkerDeps,
  opts: WorkerOptions = {},
): Promise<RoundResult> {
  const batch = opts.batchPerChannel ?? 10;
  const result: RoundResult = { delivered: 0, retried: 0, failed: 0, feedOnly: 0 };
  if (opts.signal?.aborted) return result;
  const lease = new Lease(deps, opts.leaseMs ?? LEASE_MS);
  const claimed = await claimDueChannels(deps, batch, lease);
  if (claimed.size === 0) return result;
  const heartbeat = lease.beat(opts.heartbeatMs ?? HEARTBEAT_MS);
  try {
    // Channels are independent: post them side by side; within one, strictly in order. Settled, not
    // raced: the heartbeat must run until every channel's posts are over.
    const ended = await Promise.allSettled(
      [...claimed].map(([channel, rows]) => postChannel(deps, channel, rows, result, opts, lease)),
    );
    const failure = ended.find((e) => e.status === "rejected");
    if (failure) throw failure.reason;
  } finally {
    await heartbeat.stop();
  }
  // The live dashboard (lib/live/): the feed's states changed (one NOTIFY per round that did something).
  await notifyChange(deps.db, "announcements");
  return result;
}

async function postChannel(
  deps: WorkerDeps,
  channel: AnnouncementChannel,
  rows: AnnouncementRow[],
  result: RoundResult,
  opts: WorkerOptions,
  lease: Lease,
): Promise<void> {
  const { db, clock } = deps;
  const owner = lease.owner;
  const sender = senderFor(deps, channel);
  if (!sender) {
    // The webhook (or SMTP) was removed from the configuration after these were written: keep them in the feed.
    await record(() => moveToFeedOnly(db, rows.map((r) => r.id), clock.now(), owner));
    result.feedOnly += rows.length;
    return;
  }
  for (const [i, row] of rows.entries()) {
    if (opts.signal?.aborted) {
      await release(db, rows.slice(i).map((r) => r.id), clock.now(), owner);
      return;
    }
    // Still ours? A worker that stalled past its lease was taken over: the new owner posts these rows.
    if (!(await lease.renew()).has(row.id)) {
      leaseLost(row);
      return;
    }
    let outcome: SendResult;
    try {
      outcome = await sender.send(row, { timeoutMs: opts.timeoutMs });
    } catch (error) {
      // The senders answer every chat or mail problem as an outcome; this is a bug (e.g. a body that cannot
      // be formatted). Treat it as a failed attempt so the channel is not blocked silently.
      outcome = {
        outcome: "retry",
        throttled: false,
        error: `internal error: ${String(error).slice(0, 200)}`,
      };
    }
    const now = clock.now();
    const attempts = row.attempts + 1;
    // A refusal for good (an e-mail's unknown mailbox, smtp.ts) is given up at once.
    const givenUp = outcome.outcome === "failed" ||
      (outcome.outcome === "retry" && shouldGiveUp(new Date(row.created_at), now));
    const label: AttemptOutcome = outcome.outcome === "delivered"
      ? "delivered"
      : givenUp
      ? "given_up"
      : "retry";
    attempted(deps, row, attempts, outcome, label);
    if (outcome.outcome === "delivered") {
      if (!(await record(() => recordDelivered(db, row.id, now, owner)))) return leaseLost(row);
      result.delivered++;
      continue;
    }
    const rest = rows.slice(i + 1).map((r) => r.id);
    if (givenUp) {
      // Given up: shown on the dashboard, and the channel moves on to the next one.
      const failed = { attempts, error: outcome.error, next: now, givenUp: true };
      if (!(await record(() => recordFailedAttempt(db, row.id, failed, owner)))) return leaseLost(row);
      result.failed++;
      await release(db, rest, now, owner);
      return;
    }
    const retryAfterMs = outcome.outcome === "retry" ? outcome.retryAfterMs : undefined;
    const next = nextAttemptAt(attempts, now, retryAfterMs, opts.random);
    const retry = { attempts, error: outcome.error, next, givenUp: false };
    if (!(await record(() => recordFailedAttempt(db, row.id, retry, owner)))) return leaseLost(row);
    result.retried++;
    // The rows behind it wait with it: posting them now would break the order, and a throttled chat
    // would only throttle them too.
    await release(db, rest, next, owner);
    return;
  }
}

/**
 * The round lost a row's lease (it stalled past LEASE_MS and another worker took the channel over): it
 * stops posting that channel and records nothing more there; the new owner posts and records the rows.
 */
function leaseLost(row: AnnouncementRow): void {
  log.warn("Announcement {announcement_id} to {channel}: lease taken over by another worker, not recorded", {
    announcement_id: row.id,
    message_id: row.message_id,
    channel: row.channel,
  });
}

/**
 * One log record and one count per post (docs/operations.md "Logs"): the announcement, its channel, the
 * outcome, the chat's status code and the attempt number. Never the webhook URL: it is the secret, and
 * `outcome.error` is already cleared of it (lib/announcements/webhook.ts redact).
 */
function attempted(
  deps: WorkerDeps,
  row: AnnouncementRow,
  attempt: number,
  outcome: SendResult,
  label: AttemptOutcome,
): void {
  deps.metrics?.announcementAttempt(row.channel, label);
  const level = label === "delivered" ? "info" : label === "retry" ? "warn" : "error";
  log[level]("Announcement {announcement_id} to {channel}: {outcome} (attempt {attempt}, status {status})", {
    announcement_id: row.id,
    message_id: row.message_id,
    channel: row.channel,
    outcome: label,
    status: outcome.status ?? null,
    attempt,
    ...(outcome.outcome !== "delivered" ? { error: outcome.error } : {}),
  });
}

/** Gives claimed rows that were not posted (and are still the round's) back to the queue, due at `at`. */
async function release(db: Db, ids: number[], at: Date, owner: string): Promise<void> {
  if (ids.length === 0) return;
  await record(() => releaseAnnouncements(db, ids, at, owner));
}

const RECORD_ATTEMPTS = 5;

/**
 * Records an outcome, trying again a few times: a database connection dropped under the worker (a restart,
 * a failover, `pg_terminate_backend`) must not leave a posted row unrecorded, which would hold its channel
 * back until the lease ran out and then post that row a second time. Each recording statement is guarded
 * by `state = 'pending'` and sets absolute values, so repeating one that did commit changes nothing.
 */
async function record<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= RECORD_ATTEMPTS) throw error;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}

export interface AnnouncementWorker {
  /**
   * Ends the loop: a post in flight finishes and is recorded, claimed rows not yet posted are handed back.
   */
  stop(): Promise<void>;
  /** Starts a round now (a submission just committed announcements). */
  wake(): void;
}

/**
 * Runs rounds in the background: right after a round that did work (to drain a backlog), else every
 * `pollIntervalMs` or when woken. A submission that wrote announcements wakes the workers of its database
 * after commit, so delivery is prompt without polling hard. Database errors are logged and retried at the
 * next poll: the outbox keeps everything meanwhile.
 */
export function startAnnouncementWorker(deps: WorkerDeps, opts: WorkerOptions = {}): AnnouncementWorker {
  const pollIntervalMs = opts.pollIntervalMs ?? POLL_INTERVAL_MS;
  const stopping = new AbortController();
  const roundOpts = { ...opts, signal: stopping.signal };
  let stopped = false;
  let woken = false;
  let wakeUp: (() => void) | null = null;
  const wake = () => {
    woken = true;
    wakeUp?.();
  };
  const unregister = onAnnouncementsWritten(deps.db, wake);

  // Waits `ms`, or less when woken or stopped.
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });

  const loop = (async () => {
    if (opts.firstDelayMs && !woken) await pause(opts.firstDelayMs);
    while (!stopped) {
      woken = false;
      let busy = false;
      try {
        const r = await runAnnouncementWorkerOnce(deps, roundOpts);
        busy = r.delivered + r.retried + r.failed + r.feedOnly > 0;
      } catch (error) {
        log.error("Announcement worker round failed: {error}", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
      if (stopped || busy || woken) continue;
      await pause(pollIntervalMs);
    }
  })();

  return {
    wake,
    async stop() {
      stopped = true;
      stopping.abort();
      unregister();
      wakeUp?.();
      await loop;
    },
  };
}
