/**
 * How the dashboard names a chat announcement's channel and delivery state, wherever it shows one (the
 * announcement feed, the claim page and its printed copy): words, never the stored names.
 */
import type { AnnouncementChannel, AnnouncementState, ChatChannel } from "@/db/schema.ts";

export const ANNOUNCEMENT_STATE_LABEL: Record<AnnouncementState, string> = {
  pending: "Waiting",
  delivered: "Sent",
  failed: "Failed",
  feed_only: "Not configured",
};

export const CHAT_CHANNEL_LABEL: Record<ChatChannel, string> = {
  parts_movement: "Parts Movement",
  new_repair_jobs: "New Repair Jobs",
};

/** Any outbox channel as the feed names it: a chat by its name, or the e-mail to the repair shop. */
export const CHANNEL_LABEL: Record<AnnouncementChannel, string> = {
  ...CHAT_CHANNEL_LABEL,
  shop_email: "E-mail to the shop",
};
