/**
 * The announcement outbox (D21, D22): a submission writes its announcement here, in its own transaction,
 * one row per channel; the worker (worker.ts) posts the rows after commit. A submission never calls a
 * chat, so a chat outage cannot fail or slow it, and a rolled-back submission announces nothing.
 */
import type { Transaction } from "kysely";
import type { AnnouncementState, ChatChannel, Database } from "@/db/schema.ts";
import type { Config } from "@/io/config.ts";
import type { Announcement, AnnouncementTitle } from "@/lib/announcements/text.ts";

/** Which channels each announcement goes to (docs/protocol.md Events, D20, D21). */
export const ANNOUNCEMENT_CHANNELS: Record<AnnouncementTitle, readonly ChatChannel[]> = {
  "Parts Delivered": ["parts_movement", "new_repair_jobs"],
  "Parts Picked Up From Repair Shop": ["parts_movement"],
  "Parts Returned to HQ": ["parts_movement"],
};

/**
 * The stored body (`announcements.body`): the announcement's facts, without the per-row message id.
 * Snake case, as it is also what the feed and a JSON export show.
 */
export interface AnnouncementBody {
  title: AnnouncementTitle;
  rego: string;
  place: string;
  parts: { part_no: string; description: string }[];
  driver: string;
  /** ISO 8601. */
  at: string;
  link: string;
  movement_id: number;
}

/** The webhook URL of a channel, if one is configured. */
export function webhookUrl(config: Config, channel: ChatChannel): string | undefined {
  return channel === "parts_movement" ? config.chatWebhooks.partsMovement : config.chatWebhooks.newRepairJobs;
}

/** The page of a movement, linked from every announcement about it. */
export function movementLink(config: Config, movementId: number): string {
  return `${config.publicUrl}/hq/movements/${movementId}`;
}

/**
 * Writes one outbox row per channel of the announcement, in one statement. A channel without a webhook
 * URL gets state `feed_only`: nothing to post, but the announcement still shows in the app's feed.
 */
export async function writeAnnouncement(
  trx: Transaction<Database>,
  config: Config,
  body: AnnouncementBody,
  at: Date,
): Promise<void> {
  const json = JSON.stringify(body);
  await trx.insertInto("announcements")
    .values(ANNOUNCEMENT_CHANNELS[body.title].map((channel) => ({
      message_id: crypto.randomUUID(),
      movement_id: body.movement_id,
      title: body.title,
      channel,
      body: json,
      state: (webhookUrl(config, channel) ? "pending" : "feed_only") satisfies AnnouncementState,
      next_attempt_at: at,
      created_at: at,
    })))
    .execute();
}

/** The formatter's view of a stored row: the body plus the row's stable message id. */
export function toAnnouncement(row: { message_id: string; body: unknown }): Announcement {
  const b = row.body as AnnouncementBody;
  return {
    messageId: row.message_id,
    title: b.title,
    rego: b.rego,
    place: b.place,
    parts: b.parts.map((p) => ({ partNo: p.part_no, description: p.description })),
    driver: b.driver,
    at: b.at,
    link: b.link,
    movementId: b.movement_id,
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
