/**
 * The in-app announcement feed (D22) for the dashboard: every announcement, whether it went to a chat,
 * is waiting for a retry, was given up (`failed`, with its last error and a retry button), or has no
 * chat configured (`feed_only`).
 */
import type { Db } from "@/db/client.ts";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import type { Announcement, AnnouncementState, AnnouncementTitle, ChatChannel } from "@/db/schema.ts";
import {
  announcementOf,
  latestAnnouncements,
  requeueFailedAnnouncement,
} from "@/db/queries/announcements.ts";
import { announcementText } from "@/lib/announcements/text.ts";

export interface FeedItem {
  id: number;
  messageId: string;
  movementId: number;
  title: AnnouncementTitle;
  channel: ChatChannel;
  state: AnnouncementState;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  deliveredAt: Date | null;
  createdAt: Date;
  announcement: Announcement;
  /** The plain-text rendering (no markup), as the feed shows it. */
  text: string;
}

export const FEED_MAX_LIMIT = 500;

/** The newest announcements first, optionally only those in one state; times in the depot's zone. */
export async function listAnnouncements(
  db: Db,
  opts: { limit: number; state?: AnnouncementState; timeZone: string },
): Promise<FeedItem[]> {
  const limit = Math.min(Math.max(Math.floor(opts.limit), 1), FEED_MAX_LIMIT);
  const rows = await latestAnnouncements(db, limit, opts.state);
  return rows.map((r) => {
    const announcement = announcementOf(r);
    return {
      id: r.id,
      messageId: r.message_id,
      movementId: r.movement_id,
      title: r.title,
      channel: r.channel,
      state: r.state,
      attempts: r.attempts,
      nextAttemptAt: r.next_attempt_at,
      lastError: r.last_error,
      deliveredAt: r.delivered_at,
      createdAt: r.created_at,
      announcement,
      text: announcementText(announcement, opts.timeZone),
    };
  });
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
    // Audit trail (issue 13): a retry that happened, by whom.
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
