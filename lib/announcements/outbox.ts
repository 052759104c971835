/**
 * The announcement outbox (D21, D22): a submission writes its announcement here, in its own transaction,
 * one row per channel; the worker (worker.ts) posts the rows after commit. A submission never calls a
 * chat, so a chat outage cannot fail or slow it, and a rolled-back submission announces nothing.
 */
import type { Announcement, AnnouncementTitle, ChatChannel } from "@/db/schema.ts";
import type { OutboxWrite } from "@/db/queries/announcements.ts";
import type { Config } from "@/io/config.ts";
import { type EmailedShop, SHOP_EMAIL_TITLES, shopEmailWrite } from "@/lib/announcements/shop_email.ts";

/** Which channels each announcement goes to (docs/protocol.md Events, D20, D21). */
export const ANNOUNCEMENT_CHANNELS: Record<AnnouncementTitle, readonly ChatChannel[]> = {
  "Parts Delivered": ["parts_movement", "new_repair_jobs"],
  "Parts Picked Up From Repair Shop": ["parts_movement"],
  "Parts Returned to HQ": ["parts_movement"],
  // One channel only: the feed takes a row without a movement as a whole announcement
  // (db/queries/announcements.ts announcementFeedPage).
  "Return Requested": ["parts_movement"],
  // E-mail only (shop_email.ts).
  "Parts On The Way": [],
  // A shop's "Ready for collection" on its page (docs/shop-page.md): about a claim, no movement.
  "Ready For Collection": ["parts_movement"],
};

/** The webhook URL of a channel, if one is configured. */
export function webhookUrl(config: Config, channel: ChatChannel): string | undefined {
  return channel === "parts_movement" ? config.chatWebhooks.partsMovement : config.chatWebhooks.newRepairJobs;
}

/** The page of a movement, linked from every announcement about it. */
export function movementLink(config: Config, movementId: number | ""): string {
  return `${config.publicUrl}/hq/movements/${movementId}`;
}

/** A claim's parts on the dashboard, linked from a shop's "Ready for collection" announcement. */
export function claimPartsLink(config: Config, claimNumber: string): string {
  return `${config.publicUrl}/hq/parts?claim=${encodeURIComponent(claimNumber)}`;
}

/** The dispatchers' queue, at a return request (docs/return-requests.md), linked from its announcement. */
export function returnRequestLink(config: Config, requestId: number | ""): string {
  return `${config.publicUrl}/hq/return-requests#request-${requestId}`;
}

/**
 * One outbox row per channel of the announcement, each with its own message id, for the movement's
 * statement to write (D21: in the submission's transaction). A channel without a webhook URL gets state
 * `feed_only`: nothing to post, but the announcement still shows in the app's feed. With `shop`, an
 * announcement that e-mails the shop (shop_email.ts SHOP_EMAIL_TITLES) gets its `shop_email` row too.
 */
export function announcementOutbox(
  config: Config,
  announcement: Omit<Announcement, "messageId" | "movementId" | "link">,
  at: Date,
  shop?: EmailedShop,
): OutboxWrite {
  return {
    announcement,
    linkPrefix: announcement.title === "Return Requested"
      ? returnRequestLink(config, "")
      : movementLink(config, ""),
    rows: ANNOUNCEMENT_CHANNELS[announcement.title].map((channel) => ({
      messageId: crypto.randomUUID(),
      channel,
      state: webhookUrl(config, channel) ? "pending" : "feed_only",
    })),
    ...(shop && SHOP_EMAIL_TITLES.has(announcement.title) ? { email: shopEmailWrite(config, shop) } : {}),
    at,
  };
}

// Wake-ups: a submission that wrote announcements wakes the workers polling the same database, so
// delivery starts right after commit instead of at the next poll.
const wakers = new WeakMap<object, Set<() => void>>();

/** Registers a worker's wake-up for a database; returns the function that unregisters it. */
export function onAnnouncementsWritten(db: object, wake: () => void): () => void {
  let set = wakers.get(db);
  if (!set) wakers.set(db, set = new Set());
  set.add(wake);
  return () => set.delete(wake);
}

/** Called after a submission committed: wakes this process's workers on that database. */
export function announcementsWritten(db: object): void {
  for (const wake of wakers.get(db) ?? []) wake();
}
