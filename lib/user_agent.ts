/**
 * A short, readable summary of a browser's User-Agent for the tablets page ("Chrome on Android"), so an
 * admin can tell the depot's tablets apart (docs/tablet.md "Enrolling a tablet"). The summary is built
 * only from the fixed words below, never from the header's own text, so whatever a browser sends, what is
 * stored and shown is one of these words; a header that names none of them is "Other browser".
 */

export const MAX_BROWSER_SUMMARY = 60;

/** First match wins: the browsers built on Chrome name Chrome too, and Chrome names Safari. */
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(e|A|iOS)?\//, "Edge"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\b(OPR|Opera)\//, "Opera"],
  [/\b(Firefox|FxiOS)\//, "Firefox"],
  [/\b(Chrome|HeadlessChrome|CriOS|Chromium)\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
];

/** First match wins: Android names Linux, iPadOS in desktop mode names Mac OS X. */
const SYSTEMS: [RegExp, string][] = [
  [/\bAndroid\b/, "Android"],
  [/\biPad\b/, "iPadOS"],
  [/\b(iPhone|iPod)\b/, "iOS"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

/** The summary of a User-Agent header; null when there is none. */
export function browserSummary(userAgent: string | undefined | null): string | null {
  // Only the start is looked at: a header is bounded by the server, but a regex needs no more than this.
  const ua = (userAgent ?? "").slice(0, 512);
  if (!ua.trim()) return null;
  const browser = BROWSERS.find(([pattern]) => pattern.test(ua))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(ua))?.[1];
  const summary = browser && system
    ? `${browser} on ${system}`
    : browser ?? (system ? `A browser on ${system}` : "Other browser");
  return summary.slice(0, MAX_BROWSER_SUMMARY);
}
