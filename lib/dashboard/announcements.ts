/** The data of the dashboard's announcement feed, and its retry button. */
import type { Db } from "@/db/client.ts";
import { announcementCounts } from "@/db/queries/announcements.ts";
import { notifyChange } from "@/db/queries/changes.ts";
import type { AnnouncementState } from "@/db/schema.ts";
import { announcementFeed, retryAnnouncement } from "@/lib/announcements/feed.ts";
import { announcementsWritten } from "@/lib/announcements/outbox.ts";

/** The states the feed filters by, in the order of its filter links. */
export const FEED_STATES = [
  "failed",
  "pending",
  "delivered",
  "feed_only",
] as const satisfies AnnouncementState[];

/** Announcements per page of the feed; older ones are on the next pages (keyset: `before`). */
export const FEED_PAGE_SIZE = 200;

/**
 * A page of the feed (only announcements with a channel in `state`, when given; older than `before`) and
 * how many announcements there are in each state (capped: "more than n" past a thousand rows); their text shows times in `timeZone` (the depot's).
 */
export async function announcementsPage(
  db: Db,
  opts: { state: AnnouncementState | null; before: number | null; timeZone: string },
) {
  const [page, counts] = await Promise.all([
    announcementFeed(db, {
      limit: FEED_PAGE_SIZE,
      state: opts.state ?? undefined,
      before: opts.before ?? undefined,
      timeZone: opts.timeZone,
    }),
    announcementCounts(db, FEED_STATES),
  ]);
  return { ...page, counts };
}

export type AnnouncementsPageData = Awaited<ReturnType<typeof announcementsPage>>;

/** Puts a failed announcement back in the queue and wakes the worker; false when it is no longer failed. */
export async function retryFailed(db: Db, id: number, actorId: number): Promise<boolean> {
  const retried = await retryAnnouncement(db, id, actorId);
  if (retried) {
    announcementsWritten(db);
    await notifyChange(db, "announcements");
  }
  return retried;
}
