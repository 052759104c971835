/**
 * The announcement a submission leaves in the outbox (D21, D22) and its plain-text rendering.
 * The plain text is the one wording every chat format starts from, so a driver reads the same
 * facts whichever chat the depot uses, and the app's own feed can show it without any markup.
 * The announcement's shape (`Announcement`, `AnnouncementTitle`) is declared once, in db/schema.ts.
 */
import type { Announcement, AnnouncementPart, AnnouncementTitle } from "@/db/schema.ts";
import { stripBidi } from "@/lib/validation.ts";

/** How the place reads for each announcement, so "Smith Panels" is clearly a destination or a source. */
export function placeLabel(title: AnnouncementTitle): string {
  switch (title) {
    case "Parts Delivered":
      return "Delivered to";
    case "Parts Picked Up From Repair Shop":
      return "Picked up from";
    case "Parts Returned to HQ":
      return "Returned to";
  }
}

/**
 * "2026-11-21 09:30 UTC": the depot and the chat readers may sit in different time zones and a
 * bare "09:30" or "21/11" is ambiguous, so the time is always shown in UTC with the zone named.
 * An unparsable value is shown as given rather than hidden: the reader still gets something.
 */
export function formatAnnouncementTime(at: string): string {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? at : formatUtcMinute(d);
}

/** "2026-11-21 09:30 UTC" (see formatAnnouncementTime); the dashboard shows its times the same way. */
export function formatUtcMinute(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ` +
    `${p(d.getUTCHours())}:${p(d.getUTCMinutes())} UTC`;
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
export function announcementText(a: Announcement): string {
  const rego = oneLine(a.rego);
  return [
    `${a.title}: ${rego}`,
    `Rego: ${rego}`,
    `${placeLabel(a.title)}: ${oneLine(a.place)}`,
    `Parts (${a.parts.length}):`,
    ...a.parts.map((p) => `- ${partLine(p)}`),
    `Driver: ${oneLine(a.driver)}`,
    `Time: ${formatAnnouncementTime(a.at)}`,
    `Movement: ${a.link}`,
  ].join("\n");
}
