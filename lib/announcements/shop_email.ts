/**
 * E-mail to a repair shop's contacts (docs/submissions-and-announcements.md "E-mail to the repair shops"):
 * which announcements e-mail the shop, the `shop_email` row a submission writes beside its chat rows, and
 * the `Parts On The Way` e-mail written when HQ gives the shop's stop to a driver for today. The worker
 * sends the rows (lib/announcements/mail.ts renders them, smtp.ts sends them).
 */
import { insertShopEmail, type ShopEmailWrite } from "@/db/queries/shop_emails.ts";
import type { Tx } from "@/db/queries/compiled.ts";
import { partsToDeliver } from "@/db/queries/run_sheet.ts";
import type { AnnouncementTitle } from "@/db/schema.ts";
import type { Config } from "@/io/config.ts";

/** The announcements a shop is e-mailed: its parts arrived, its parts were collected, parts are coming. */
export const SHOP_EMAIL_TITLES: ReadonlySet<AnnouncementTitle> = new Set<AnnouncementTitle>([
  "Parts Delivered",
  "Parts Picked Up From Repair Shop",
  "Parts On The Way",
]);

/** The shop an announcement's e-mail goes to: named, or the repairer on a claim's management record. */
export type EmailedShop = { repairerId: number } | { claimId: number };

/** The `shop_email` row of an announcement to `shop`: waiting for the worker when SMTP is configured. */
export function shopEmailWrite(config: Config, shop: EmailedShop): ShopEmailWrite {
  return { messageId: crypto.randomUUID(), ...shop, configured: config.mail !== undefined };
}

/**
 * The message id of a shop's `Parts On The Way` e-mail on a day: derived from the two (SHA-256, shaped as a
 * UUID), so the day's second assignment of the stop finds the row there and writes nothing (once per shop
 * per day), whichever process and transaction gets there first.
 */
export async function onTheWayMessageId(repairerId: number, date: string): Promise<string> {
  const bytes = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`parts-on-the-way:${repairerId}:${date}`)),
  ).slice(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x80; // version 8: a custom (name-based) UUID
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 9562 variant
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Writes the shop's `Parts On The Way` e-mail for `date` in the assignment's transaction (lib/run_plan.ts):
 * when the stop was given to a driver for today and the shop has parts at HQ to deliver. At most one per
 * shop per day (`onTheWayMessageId`); true when it was written now.
 */
export async function writePartsOnTheWay(
  tx: Tx,
  config: Config,
  stop: { repairerId: number; shop: string; driver: string; date: string; at: Date },
): Promise<boolean> {
  const parts = await partsToDeliver(tx, stop.repairerId);
  if (parts.length === 0) return false;
  const regos = [...new Set(parts.map((p) => p.registration))];
  return await insertShopEmail(tx, {
    messageId: await onTheWayMessageId(stop.repairerId, stop.date),
    repairerId: stop.repairerId,
    configured: config.mail !== undefined,
  }, {
    title: "Parts On The Way",
    rego: regos.join(", "),
    place: stop.shop,
    // Several vehicles' parts: each names its rego.
    parts: parts.map((p) => ({
      partNo: p.part_no,
      description: regos.length > 1 ? `${p.description} (${p.registration})` : p.description,
    })),
    driver: stop.driver,
    at: stop.at.toISOString(),
  }, stop.at);
}
