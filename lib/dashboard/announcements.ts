/** The data of the dashboard's announcement feed, and its retry button. */
import type { Db } from "@/db/client.ts";
import { announcementCounts } from "@/db/queries/announcements.ts";
import type { AnnouncementState } from "@/db/schema.ts";
import { listAnnouncements, retryAnnouncement } from "@/lib/announcements/feed.ts";
import { announcementsWritten } from "@/lib/announcements/outbox.ts";

/** The states the feed filters by, in the order of its filter links. */
export const FEED_STATES = [
  "failed",
  "pending",
  "delivered",
  "feed_only",
] as const satisfies AnnouncementState[];

/** The feed shows the newest ones; older ones are in the database. */
const FEED_LIMIT = 200;

/**
 * The newest announcements (only those in `state`, when given) and how many there are in each state; their
 * text shows times in `timeZone` (the depot's).
 */
export async function announcementsPage(db: Db, state: AnnouncementState | null, timeZone: string) {
  const [items, counts] = await Promise.all([
    listAnnouncements(db, { limit: FEED_LIMIT, state: state ?? undefined, timeZone }),
    announcementCounts(db),
  ]);
  return { items, counts };
}

export type AnnouncementsPageData = Awaited<ReturnType<typeof announcementsPage>>;

/** Puts a failed announcement back in the queue and wakes the worker; false when it is no longer failed. */
export async function retryFailed(db: Db, id: number, actorId: number): Promise<boolean> {
  const retried = await retryAnnouncement(db, id, actorId);
  if (retried) announcementsWritten(db);
  return retried;
}
