/**
 * One sender per kind of channel, chosen by the worker (worker.ts) for each channel it works: the chats'
 * incoming webhooks (webhook.ts, in the configured chat format) and e-mail to the repair shops (smtp.ts,
 * rendered by mail.tsx when sent). A channel without its configuration has no sender: its rows stay in the
 * feed only.
 */
import type { AnnouncementChannel, AnnouncementRow } from "@/db/schema.ts";
import { announcementOf } from "@/db/queries/announcements.ts";
import { formatChatBody } from "@/lib/announcements/formats.ts";
import { renderShopEmail } from "@/lib/announcements/mail.tsx";
import { webhookUrl } from "@/lib/announcements/outbox.ts";
import { mailMessageId, type SendResult, sendShopEmail } from "@/lib/announcements/smtp.ts";
import { postAnnouncement } from "@/lib/announcements/webhook.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { shopPageUrl } from "@/lib/shops/link.ts";
import { logger } from "@/io/log.ts";

export type { SendResult };

type SenderDeps = Pick<AppDeps, "db" | "config" | "clock">;

export interface Sender {
  /** One attempt at one row; never throws for a problem of the chat or the mail server. */
  send(row: AnnouncementRow, opts: { timeoutMs?: number }): Promise<SendResult>;
}

const log = logger("announcements");

/** The sender of a channel, or null when the channel is not configured (its rows go to the feed only). */
export function senderFor(deps: SenderDeps, channel: AnnouncementChannel): Sender | null {
  const { config } = deps;
  if (channel === "shop_email") {
    const mail = config.mail;
    if (!mail) return null;
    return {
      async send(row, opts) {
        const body = row.body as { to?: string[] };
        // The link is made now: the page's token is never stored in clear, so a row cannot hold it.
        const link = row.repairer_id === null ? null : await shopPageUrl(deps, row.repairer_id);
        const email = renderShopEmail(announcementOf(row), config.depotTimeZone, link);
        const result = await sendShopEmail(mail, body.to ?? [], email, {
          messageId: mailMessageId(row.message_id, config.publicUrl),
          timeoutMs: opts.timeoutMs,
        });
        if (result.outcome === "delivered" && result.rejected?.length) {
          log.warn("E-mail {announcement_id}: the server refused {rejected} (the others took it)", {
            announcement_id: row.id,
            rejected: result.rejected.join(", "),
          });
        }
        return result;
      },
    };
  }
  const url = webhookUrl(config, channel);
  if (!url) return null;
  return {
    send: (row, opts) =>
      postAnnouncement(url, formatChatBody(config.chatFormat, announcementOf(row), config.depotTimeZone), {
        messageId: row.message_id,
        timeoutMs: opts.timeoutMs,
        now: () => deps.clock.now(),
      }),
  };
}
