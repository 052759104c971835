/**
 * What a printed page carries in its margins (docs/claim-page.md): a title
 * ("Claim CLM-1 · Vehicle ABC 123") top left, a stamp ("Printed 27 Nov 2026 18:42 AEDT") top right, and
 * "Page N of M" bottom right (static/styles.css `@page`). The title and stamp travel as CSS custom
 * properties on the root element, the only element a page's margin boxes inherit from: a `style`
 * attribute, which the CSP allows, where a `<style>` element is refused (routes/web/security_headers.ts).
 * Browser-safe: the server renders the first values, the ClaimPrint island stamps the time again as the
 * browser prints.
 */

/** The custom properties `@page` reads. */
export const PRINT_TITLE = "--print-title";
export const PRINT_STAMP = "--print-stamp";

/** A CSS string holding `text` exactly: every character but letters, digits and plain punctuation escaped. */
export function cssString(text: string): string {
  return `"${text.replace(/[^A-Za-z0-9 .,:/()#+-]/gu, (c) => `\\${c.codePointAt(0)!.toString(16)} `)}"`;
}

/** The root element's `style` attribute giving the page's margins their title and stamp. */
export function printMarginStyle(title: string, stamp: string): string {
  return `${PRINT_TITLE}: ${cssString(title)}; ${PRINT_STAMP}: ${cssString(stamp)}`;
}

/**
 * "<label> 27 Nov 2026 18:42 AEDT": the wall clock in the depot's zone, the month in letters so no reader
 * mistakes the day for the month, the zone named as the dashboard names it (`nameLocale`, from
 * io/time_zone.ts `zoneNameLocale`: the browser cannot import that module).
 */
export function printStamp(label: string, at: Date, zone: string, nameLocale: string): string {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone,
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(at);
  const zoneName = new Intl.DateTimeFormat(nameLocale, { timeZone: zone, timeZoneName: "short" })
    .formatToParts(at);
  const get = (p: Intl.DateTimeFormatPart[], type: Intl.DateTimeFormatPartTypes) =>
    p.find((x) => x.type === type)?.value ?? "";
  return `${label} ${get(parts, "day")} ${get(parts, "month")} ${get(parts, "year")} ${get(parts, "hour")}:${
    get(parts, "minute")
  } ${get(zoneName, "timeZoneName")}`;
}
