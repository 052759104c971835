/**
 * The announcement a submission leaves in the outbox (D21, D22) and its plain-text rendering.
 * The plain text is the one wording every chat format starts from, so a driver reads the same
 * facts whichever chat the depot uses, and the app's own feed can show it without any markup.
 * The announcement's shape (`Announcement`, `AnnouncementTitle`) is declared once, in db/schema.ts.
 */
import type { Announcement, AnnouncementPart, AnnouncementTitle } from "@/db/schema.ts";
import { stripBidi } from "@/lib/validation.ts";
import { formatDepotTime } from "@/io/time_zone.ts";

/** How the place reads for each announcement, so "Smith Panels" is clearly a destination or a source. */
export function placeLabel(title: AnnouncementTitle): string {
  switch (title) {
    case "Parts Delivered":
      return "Delivered to";
    case "Parts Picked Up From Repair Shop":
      return "Picked up from";
    case "Parts Returned to HQ":
      return "Returned to";
    case "Return Requested":
      return "At";
    case "Parts On The Way":
      return "On the way to";
    case "Ready For Collection":
      return "Ready at";
  }
}

/**
 * What the announcement's link opens, for its label: the movement, or for a driver's return request the
 * dispatchers' queue (docs/return-requests.md), where one click approves or declines it.
 */
export function linkLabel(a: Announcement): string {
  if (a.returnRequestId !== undefined) return `Return request #${a.returnRequestId}`;
  // A shop's "Ready for collection" (docs/shop-page.md) is about a claim: its parts on the dashboard.
  return a.title === "Ready For Collection" ? "Claim's parts" : `Movement #${a.movementId}`;
}

/** The link's button in the formats that have one (Cliq). */
export function linkButtonLabel(a: Announcement): string {
  if (a.returnRequestId !== undefined) return "Open return request";
  return a.title === "Ready For Collection" ? "Open the claim's parts" : "Open movement";
}

/** The driver's note of a return request, single-line; null when there is none. */
export function noteOf(a: Announcement): string | null {
  const note = a.note ? oneLine(a.note) : "";
  return note ? note : null;
}

/**
 * "2026-11-21 20:30 AEDT": the time in the depot's zone (`DEPOT_TIME_ZONE`) with the zone named, since
 * chat readers may sit elsewhere and a bare "20:30" is ambiguous; the pages show times the same way
 * (io/time_zone.ts). An unparsable value is shown as given rather than hidden: the reader still gets
 * something.
 */
export function formatAnnouncementTime(at: string, timeZone: string): string {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? at : formatDepotTime(d, timeZone);
}

/**
 * Collapses line breaks and runs of spaces. Every user-typed value sits on the line of its label,
 * so a description with a line break cannot forge a "Driver:" line of its own. Bidirectional controls
 * are stripped (lib/validation.ts), so no value can reorder what its line shows; every chat format's
 * values pass through here.
 */
export function oneLine(value: string): string {
  return stripBidi(value).replace(/\s+/g, " ").trim();
}

/** "PN-1 — Front bumper", single-line (the description is left out when empty). */
export function partLine(part: AnnouncementPart): string {
  const partNo = oneLine(part.partNo);
  const description = oneLine(part.description);
  return description ? `${partNo} — ${description}` : partNo;
}

/** Plain text, one fact per line; no markup, so it is safe as a fallback anywhere. */
export function announcementText(a: Announcement, timeZone: string): string {
  const rego = oneLine(a.rego);
  return [
    `${a.title}: ${rego}`,
    `Rego: ${rego}`,
    `${placeLabel(a.title)}: ${oneLine(a.place)}`,
    `Parts (${a.parts.length}):`,
    ...a.parts.map((p) => `- ${partLine(p)}`),
    `Driver: ${oneLine(a.driver)}`,
    `Time: ${formatAnnouncementTime(a.at, timeZone)}`,
    ...(noteOf(a) !== null ? [`Note: ${noteOf(a)}`] : []),
    // A shop's `Parts On The Way` e-mail is about no movement: it has no link.
    ...(a.link
      ? [
        `${
          a.returnRequestId !== undefined
            ? "Return request"
            : a.title === "Ready For Collection"
            ? "Parts"
            : "Movement"
        }: ${a.link}`,
      ]
      : []),
  ].join("\n");
}
