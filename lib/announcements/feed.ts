/**
 * The in-app announcement feed (D22) for the dashboard: every announcement, whether it went to a chat,
 * is waiting for a retry, was given up (`failed`, with its last error and a retry button), or has no
 * chat configured (`feed_only`).
 */
import type { Db } from "@/db/client.ts";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import type {
  Announcement,
  AnnouncementChannel,
  AnnouncementRow,
  AnnouncementState,
  AnnouncementTitle,
} from "@/db/schema.ts";
import {
  announcementFeedPage,
  announcementOf,
  latestAnnouncements,
  requeueFailedAnnouncement,
} from "@/db/queries/announcements.ts";
import { announcementText } from "@/lib/announcements/text.ts";

export interface FeedItem {
  id: number;
  messageId: string;
  /** 0 for a return request's announcement (`announcement.returnRequestId` names the request). */
  movementId: number;
  title: AnnouncementTitle;
  channel: AnnouncementChannel;
  state: AnnouncementState;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  deliveredAt: Date | null;
  createdAt: Date;
  announcement: Announcement;
  /** The plain-text rendering (no markup), as the feed shows it. */
  text: string;
  /** An e-mail's recipients, as written with the row (the shop's contact addresses then); else empty. */
  recipients: string[];
}

export const FEED_MAX_LIMIT = 500;

/** The newest announcements first, optionally only those in one state; times in the depot's zone. */
export async function listAnnouncements(
  db: Db,
  opts: { limit: number; state?: AnnouncementState; timeZone: string },
): Promise<FeedItem[]> {
  const limit = Math.min(Math.max(Math.floor(opts.limit), 1), FEED_MAX_LIMIT);
  const rows = await latestAnnouncements(db, limit, opts.state);
  return rows.map((r) => feedItemOf(r, opts.timeZone));
}

/** One announcement of the dashboard feed with its delivery per channel (one item each). */
export interface FeedEntry {
  /** Its key: the lowest id of its rows (the keyset of the feed's pages). */
  id: number;
  movementId: number;
  title: AnnouncementTitle;
  createdAt: Date;
  announcement: Announcement;
  channels: FeedItem[];
}

/**
 * A page of the dashboard feed: the newest `limit` announcements older than `before` (one entry per
 * announcement, its channels inside), optionally only those with a channel in `state`.
 */
export async function announcementFeed(
  db: Db,
  opts: { limit: number; state?: AnnouncementState; before?: number; timeZone: string },
): Promise<{ entries: FeedEntry[]; more: boolean }> {
  const { rows, more } = await announcementFeedPage(db, opts);
  const byKey = new Map<string, FeedEntry>();
  for (const r of rows) {
    const item = feedItemOf(r, opts.timeZone);
    // A row about no movement (a return request, a shop's `Parts On The Way`) is a whole announcement.
    const key = r.movement_id !== null ? `${r.movement_id} ${r.title}` : `row ${r.id}`;
    const entry = byKey.get(key);
    if (entry) entry.channels.push(item);
    else {
      byKey.set(key, {
        id: r.id,
        movementId: r.movement_id ?? 0,
        title: r.title,
        createdAt: r.created_at,
        announcement: item.announcement,
        channels: [item],
      });
    }
  }
  return { entries: [...byKey.values()].sort((x, y) => y.id - x.id), more };
}

function feedItemOf(r: AnnouncementRow, timeZone: string): FeedItem {
  const announcement = announcementOf(r);
  return {
    id: r.id,
    messageId: r.message_id,
    movementId: r.movement_id ?? 0,
    title: r.title,
    channel: r.channel,
    state: r.state,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastError: r.last_error,
    deliveredAt: r.delivered_at,
    createdAt: r.created_at,
    announcement,
    text: announcementText(announcement, timeZone),
    recipients: (r.body as { to?: string[] }).to ?? [],
  };
}

/**
 * The dashboard's retry button: a `failed` announcement goes back to `pending`, due at once, with the same
 * message id (so a receiver still recognises it). It was given up after 24 h, so it gets one more attempt:
 * failing again marks it failed again with the new error. Returns false when it is not (or no longer)
 * failed, e.g. a second click.
 */
export async function retryAnnouncement(db: Db, id: number, actorId: number): Promise<boolean> {
  return await db.transaction().execute(async (tx) => {
    const retried = await requeueFailedAnnouncement(tx, id);
    // Audit trail (docs/dashboard.md "Audit trail"): a retry that happened, by whom.
    if (retried) {
      await insertAuditEntry(tx, {
        actorId,
        action: "announcement.retry",
        subject: `announcement:${id}`,
        before: { state: "failed" },
        after: { state: "pending" },
      });
    }
    return retried;
  });
}
