/**
 * The e-mail to a repair shop's contacts (docs/submissions-and-announcements.md "E-mail to the repair
 * shops"), rendered when the worker sends it from the facts the outbox row holds: a subject, plain text,
 * and HTML with the same facts. Times in the depot's zone; the HTML has no images, no remote resources and
 * no tracking of any kind: its only link is the shop's own page, when it has one. Values typed by people
 * are single-line in the subject and text, and escaped in the HTML by the renderer.
 */
import { renderToString } from "preact-render-to-string";
import type { Announcement } from "@/db/schema.ts";
import { formatAnnouncementTime, oneLine, partLine } from "@/lib/announcements/text.ts";

export interface ShopEmail {
  subject: string;
  text: string;
  html: string;
}

type MailTitle = "Parts Delivered" | "Parts Picked Up From Repair Shop" | "Parts On The Way";

/** The wording of each e-mail: subject start, and the sentence before the parts. */
const WORDING: Record<MailTitle, { subject: string; lead: (a: Facts) => string }> = {
  "Parts Delivered": {
    subject: "Parts delivered",
    lead: (f) => `${f.driver} delivered ${f.count} to you at ${f.time}, for ${f.rego}:`,
  },
  "Parts Picked Up From Repair Shop": {
    subject: "Parts collected",
    lead: (f) => `${f.driver} collected ${f.count} from you at ${f.time}, for ${f.rego}, to return to HQ:`,
  },
  "Parts On The Way": {
    subject: "Parts on the way",
    lead: (f) => `${f.driver} is bringing you ${f.count} today (planned at ${f.time}), for ${f.rego}:`,
  },
};

interface Facts {
  shop: string;
  rego: string;
  driver: string;
  time: string;
  count: string;
}

function isMailTitle(title: string): title is MailTitle {
  return title in WORDING;
}

/**
 * The e-mail of an announcement to its shop. `shopLink` is the shop's private page, computed when sending
 * (a link is never stored); null: the e-mail has none.
 */
export function renderShopEmail(a: Announcement, timeZone: string, shopLink: string | null): ShopEmail {
  if (!isMailTitle(a.title)) throw new Error(`no e-mail for "${a.title}"`);
  const wording = WORDING[a.title];
  const f: Facts = {
    shop: oneLine(a.place),
    rego: oneLine(a.rego),
    driver: oneLine(a.driver) || "A driver",
    time: formatAnnouncementTime(a.at, timeZone),
    count: a.parts.length === 1 ? "1 part" : `${a.parts.length} parts`,
  };
  const lead = wording.lead(f);
  const parts = a.parts.map(partLine);
  const pageLine = "Your parts, held and on the way, are on your shop's page:";
  const text = [
    `Hello ${f.shop},`,
    "",
    lead,
    ...parts.map((p) => `- ${p}`),
    ...(shopLink ? ["", pageLine, shopLink] : []),
    "",
    "This message was sent automatically by the depot's parts service.",
  ].join("\n");
  const html = "<!DOCTYPE html>" + renderToString(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>{wording.subject}</title>
      </head>
      <body style="font-family: sans-serif; color: #111;">
        <p>Hello {f.shop},</p>
        <p>{lead}</p>
        <ul>{parts.map((p, i) => <li key={i}>{p}</li>)}</ul>
        {shopLink && (
          <p>
            {pageLine} <a href={shopLink}>open your shop's page</a>.
          </p>
        )}
        <p style="color: #555;">This message was sent automatically by the depot's parts service.</p>
      </body>
    </html>,
  );
  return { subject: `${wording.subject}: ${f.rego} (${f.count})`, text, html };
}
