/**
 * The outbox rows of e-mail to the repair shops (channel `shop_email`; docs/submissions-and-announcements.md
 * "E-mail to the repair shops"): the row a movement's statement writes beside the chats' (through
 * announcements.ts insertAnnouncementsSql), and a shop's `Parts On The Way`, written on its own.
 */
import { type RawBuilder, sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { Tx } from "@/db/queries/compiled.ts";
import { announcementJson } from "@/db/queries/announcements.ts";
import type { Announcement } from "@/db/schema.ts";

/**
 * A `shop_email` row: to the shop `repairerId`, or to the repairer on `claimId`'s management record (a
 * reverse pickup's shop). Its recipients are the shop's contact addresses as the statement reads them; a
 * shop without any gets no row (nobody to write to); while no SMTP server is configured the row is
 * `feed_only` (the feed says "not configured", as for a chat without a webhook).
 */
export interface ShopEmailWrite {
  messageId: string;
  repairerId?: number;
  claimId?: number;
  /** SMTP is configured: the row waits for the worker. */
  configured: boolean;
}

/**
 * The `select` of one `shop_email` row for `insertAnnouncementsSql` and `insertShopEmailSql` (none when the
 * shop has no contact address): the stored body is `body` (jsonb) plus the recipients (`to`, the shop's
 * `emails` read here), and the state says whether it waits for the worker.
 */
export function shopEmailSelect(
  e: ShopEmailWrite,
  f: { movementId: RawBuilder<number | null>; title: string; body: RawBuilder<unknown>; at: Date },
  when: RawBuilder<boolean>,
  ord: number,
): RawBuilder<unknown> {
  const shop = e.repairerId !== undefined
    ? sql`${e.repairerId}::int`
    : sql`(select cm.repairer_id from claim_management cm where cm.claim_id = ${e.claimId ?? null}::int)`;
  return sql`select ${e.messageId}::uuid, ${f.movementId}, ${f.title}::text, 'shop_email',
      ${f.body} || jsonb_build_object('to', to_jsonb(s.emails)),
      case when ${e.configured}::boolean then 'pending' else 'feed_only' end,
      ${f.at}::timestamptz, ${f.at}::timestamptz, s.id, null::text, ${ord}::bigint
    from repairers s where s.id = ${shop} and cardinality(s.emails) > 0 and ${when}`;
}

/**
 * A `Parts On The Way` e-mail row (lib/announcements/shop_email.ts): about the shop on a day, no movement.
 * Its message id is derived from the shop and the day, so writing it again that day changes nothing.
 */
export function insertShopEmailSql(
  e: ShopEmailWrite,
  announcement: Omit<Announcement, "messageId" | "movementId" | "link">,
  at: Date,
): RawBuilder<unknown> {
  const json = JSON.stringify(announcementJson({ ...announcement, link: "", movementId: 0 }));
  const select = shopEmailSelect(
    e,
    { movementId: sql`null::int`, title: announcement.title, body: sql`${json}::jsonb`, at },
    sql`true`,
    1,
  );
  return sql`insert into announcements (message_id, movement_id, title, channel, body, state, next_attempt_at,
      created_at, repairer_id, last_error)
    select message_id, movement_id, title, channel, body, state, next_attempt_at, created_at, repairer_id,
      last_error
    from (${select}) as x(message_id, movement_id, title, channel, body, state, next_attempt_at, created_at,
      repairer_id, last_error, ord)
    on conflict (message_id) do nothing`;
}

/** Runs `insertShopEmailSql`; true when the row was written (false: that day's e-mail exists already). */
export async function insertShopEmail(
  db: Db | Tx,
  e: ShopEmailWrite,
  announcement: Omit<Announcement, "messageId" | "movementId" | "link">,
  at: Date,
): Promise<boolean> {
  const result = await insertShopEmailSql(e, announcement, at).execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}
