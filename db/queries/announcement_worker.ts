/**
 * The announcement worker's queries (D22, lib/announcements/worker.ts and lease.ts): the claim
 * (`FOR UPDATE SKIP LOCKED` on each channel's head, then a lease to the round's token) and the outcome
 * records. Every outcome record is guarded by `state = 'pending'` and by the claim's lease owner, and sets
 * absolute values, so repeating one that did commit changes nothing.
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { AnnouncementChannel, AnnouncementRow } from "@/db/schema.ts";
import type { Tx } from "@/db/queries/compiled.ts";

/**
 * Locks the head (oldest pending row) of each channel whose head is due, skipping heads another worker
 * holds. Returns the channels claimed.
 */
export async function lockDueChannelHeads(trx: Tx, now: Date): Promise<AnnouncementChannel[]> {
  const heads = await trx.selectFrom("announcements")
    .select(["id", "channel"])
    .where("state", "=", "pending")
    .where("next_attempt_at", "<=", now)
    .where("id", "in", (eb) =>
      eb.selectFrom("announcements").select((e) => e.fn.min("id").as("id"))
        .where("state", "=", "pending").groupBy("channel"))
    .forUpdate()
    .skipLocked()
    .execute();
  return heads.map((h) => h.channel);
}

/**
 * Leases the first `batch` pending rows of each channel (their heads locked by `lockDueChannelHeads`)
 * to the claim `owner` until `until`; returns them. Only rows due at `now`, and only up to the first that is
 * not: a row behind the head may already be leased by another worker (ids follow insertion, leases follow
 * commits, so a row committed late can become the head behind rows another worker is posting), and taking
 * it over would post it twice. The guard is repeated on the updated row so that a lease committed while
 * this statement waited for the row is seen (READ COMMITTED rechecks the row's own conditions, not the
 * subquery's). A lease that ran out is simply due again: its old owner's token is overwritten, which is
 * what tells that owner it lost the rows (docs/submissions-and-announcements.md "The worker's lease").
 */
export async function leaseChannelRows(
  trx: Tx,
  channels: AnnouncementChannel[],
  batch: number,
  now: Date,
  until: Date,
  owner: string,
): Promise<AnnouncementRow[]> {
  const claimed = await leaseChannelRowsSql(channels, batch, now, until, owner).execute(trx);
  return claimed.rows;
}

/** The statement of `leaseChannelRows`. */
export function leaseChannelRowsSql(
  channels: AnnouncementChannel[],
  batch: number,
  now: Date,
  until: Date,
  owner: string,
) {
  return sql<AnnouncementRow>`
    update announcements a set next_attempt_at = ${until}, lease_owner = ${owner}::uuid
    from (
      select id from (
        select x.id, row_number() over w as n, bool_and(x.next_attempt_at <= ${now}) over w as due
        from announcements x
        where x.state = 'pending' and x.channel = any(${channels}::text[])
        window w as (partition by x.channel order by x.id)
      ) ranked where n <= ${batch} and due
    ) pick
    where a.id = pick.id and a.state = 'pending' and a.next_attempt_at <= ${now}
    returning a.*`;
}

/**
 * The heartbeat: extends to `until` the lease of every pending row `owner` still holds, and returns their
 * ids. A row missing from the answer was recorded, or taken over after the lease ran out.
 */
export async function renewLease(db: Db, owner: string, until: Date): Promise<Set<number>> {
  const rows = await db.updateTable("announcements").set({ next_attempt_at: until })
    .where("lease_owner", "=", owner).where("state", "=", "pending")
    .returning("id").execute();
  return new Set(rows.map((r) => r.id));
}

// The outcome records below are guarded by the lease owner: a worker taken over records nothing over the
// new owner's rows. Each answers whether it changed the row (false: the lease was lost, or already recorded).

/** Pending rows whose channel lost its webhook: shown in the feed only. */
export async function moveToFeedOnly(db: Db, ids: number[], now: Date, owner: string): Promise<void> {
  await db.updateTable("announcements").set({ state: "feed_only", next_attempt_at: now, lease_owner: null })
    .where("id", "in", ids).where("state", "=", "pending").where("lease_owner", "=", owner).execute();
}

export async function recordDelivered(db: Db, id: number, now: Date, owner: string): Promise<boolean> {
  const row = await db.updateTable("announcements")
    .set((eb) => ({
      state: "delivered",
      delivered_at: now,
      attempts: eb("attempts", "+", 1),
      last_error: null,
      next_attempt_at: now,
      lease_owner: null,
    }))
    .where("id", "=", id).where("state", "=", "pending").where("lease_owner", "=", owner)
    .returning("id").executeTakeFirst();
  return row !== undefined;
}

/** A failed attempt: given up (`failed`) or due again at `next`. */
export async function recordFailedAttempt(
  db: Db,
  id: number,
  attempt: { attempts: number; error: string; next: Date; givenUp: boolean },
  owner: string,
): Promise<boolean> {
  const row = await db.updateTable("announcements")
    .set({
      ...(attempt.givenUp ? { state: "failed" as const } : {}),
      attempts: attempt.attempts,
      last_error: attempt.error,
      next_attempt_at: attempt.next,
      lease_owner: null,
    })
    .where("id", "=", id).where("state", "=", "pending").where("lease_owner", "=", owner)
    .returning("id").executeTakeFirst();
  return row !== undefined;
}

/** Hands claimed rows back to the queue, due at `at`. */
export async function releaseAnnouncements(db: Db, ids: number[], at: Date, owner: string): Promise<void> {
  await db.updateTable("announcements").set({ next_attempt_at: at, lease_owner: null })
    .where("id", "in", ids).where("state", "=", "pending").where("lease_owner", "=", owner).execute();
}
