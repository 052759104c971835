/**
 * The announcement worker's lease (docs/submissions-and-announcements.md "The worker's lease", D22): a round
 * claims due channels by locking their head rows (`FOR UPDATE SKIP LOCKED`) in one short transaction and
 * leases the claimed rows to its own token (`lease_owner`) until LEASE_MS from now, renewed by a heartbeat
 * while the round runs. lib/announcements/worker.ts posts what a round holds.
 */
import type { AnnouncementChannel, AnnouncementRow } from "@/db/schema.ts";
import { leaseChannelRows, lockDueChannelHeads, renewLease } from "@/db/queries/announcement_worker.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { logger } from "@/io/log.ts";

type LeaseDeps = Pick<AppDeps, "db" | "clock">;

const log = logger("announcements");

/**
 * How long a claim holds its rows without a renewal. With the 5 s poll, a dead worker's rows are taken
 * over within LEASE_MS + 5 s = 15 s. A post's own timeout (10 s) does not bound it: the heartbeat renews
 * while the post runs.
 */
export const LEASE_MS = 10_000;
/** How often a round renews its lease: a third of it, so one late or failed renewal does not lose it. */
export const HEARTBEAT_MS = 3_000;
/**
 * One round's claim on its rows: a fresh token written into `lease_owner`, and the time the lease runs to
 * when not renewed. Every renewal and record of the round names the token.
 */
export class Lease {
  readonly owner = crypto.randomUUID();
  constructor(private readonly deps: LeaseDeps, private readonly ms: number) {}

  /** The time a claim or renewal made now holds the rows until. */
  until(): Date {
    return new Date(this.deps.clock.now().getTime() + this.ms);
  }

  /** Extends the lease of the rows the round still holds; answers their ids. */
  async renew(): Promise<Set<number>> {
    return await renewLease(this.deps.db, this.owner, this.until());
  }

  /**
   * Renews every `intervalMs` until stopped. A failed renewal is logged and tried again at the next beat:
   * the pre-post check (`renew` before each post) is what keeps a worker from posting rows it lost.
   */
  beat(intervalMs: number): { stop(): Promise<void> } {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running: Promise<void> = Promise.resolve();
    const tick = () => {
      running = this.renew().then(
        () => {},
        (error) =>
          log.warn("Announcement lease renewal failed: {error}", {
            error: error instanceof Error ? error.message : String(error),
          }),
      ).finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
    };
    timer = setTimeout(tick, intervalMs);
    return {
      async stop() {
        stopped = true;
        clearTimeout(timer);
        await running;
      },
    };
  }
}

/**
 * Claims, per channel whose head row is due, the head and up to `batch - 1` rows behind it, leasing them
 * to the round. One short transaction.
 */
export async function claimDueChannels(
  deps: LeaseDeps,
  batch: number,
  lease: Lease,
): Promise<Map<AnnouncementChannel, AnnouncementRow[]>> {
  const now = deps.clock.now();
  const rows = await deps.db.transaction().execute(async (trx) => {
    const channels = await lockDueChannelHeads(trx, now);
    return channels.length === 0
      ? []
      : await leaseChannelRows(trx, channels, batch, now, lease.until(), lease.owner);
  });
  const byChannel = new Map<AnnouncementChannel, AnnouncementRow[]>();
  for (const row of rows.sort((a, b) => a.id - b.id)) {
    byChannel.set(row.channel, [...byChannel.get(row.channel) ?? [], row]);
  }
  return byChannel;
}
