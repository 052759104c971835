/**
 * Times in the depot's time zone (`DEPOT_TIME_ZONE`, an IANA name, io/config.ts): the one formatter of
 * every page, CSV export and chat announcement, so a driver, a dispatcher and a chat reader see the same
 * clock. People read "2026-11-21 20:30 AEDT" (the zone named, never a bare "20:30" that could be any
 * zone); the CSV gets ISO 8601 with the offset, exact for a spreadsheet and still local.
 */

/** An IANA zone name ("Australia/Sydney", "UTC"): letters, digits, "_", "+", "-", "/" separated parts. */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

/**
 * The canonical spelling of an IANA zone name Intl knows ("australia/sydney" → "Australia/Sydney"), or
 * null. Offsets such as "+10:00" are refused: a fixed offset would be wrong half the year where the depot
 * keeps summer time.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!IANA_NAME.test(name)) return null;
  try {
    return new Intl.DateTimeFormat("en", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

interface ZoneFormat {
  parts: Intl.DateTimeFormat;
  /** The formatter whose locale names this zone with letters (AEDT), when one does. */
  name: Intl.DateTimeFormat;
}

const formats = new Map<string, ZoneFormat>();

/**
 * English locales tried for the zone's abbreviation: Intl names a zone by letters only in the locale
 * where it is common (AEDT in en-AU, CET in en-GB, EST in en-US, IST in en-IN), else "GMT+11".
 */
const NAME_LOCALES = ["en-GB", "en-US", "en-AU", "en-NZ", "en-IN", "en-CA", "en-ZA", "en-IE", "en-SG"];
const OFFSET_NAME = /^(?:GMT|UTC)(?:[+-]\d{1,2}(?::\d{2})?)?$/;

function zoneFormat(zone: string): ZoneFormat {
  let f = formats.get(zone);
  if (f) return f;
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
    timeZoneName: "longOffset",
  });
  // One locale per zone (chosen on a winter and a summer day), so its summer and winter names match.
  const samples = [new Date(Date.UTC(2026, 0, 15)), new Date(Date.UTC(2026, 6, 15))];
  const named = NAME_LOCALES.map((locale) =>
    new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: "short" })
  ).find((fmt) => samples.some((d) => !OFFSET_NAME.test(partOf(fmt.formatToParts(d), "timeZoneName"))));
  f = { parts, name: named ?? new Intl.DateTimeFormat("en-GB", { timeZone: zone, timeZoneName: "short" }) };
  formats.set(zone, f);
  return f;
}

function partOf(parts: Intl.DateTimeFormatPart[], type: Intl.DateTimeFormatPartTypes): string {
  return parts.find((p) => p.type === type)?.value ?? "";
}

/** The wall clock in the zone and its offset: {date: "2026-11-21", time: "20:30:05", offset: "+11:00"}. */
function wallClock(d: Date, zone: string) {
  const p = zoneFormat(zone).parts.formatToParts(d);
  const get = (type: Intl.DateTimeFormatPartTypes) => partOf(p, type);
  // "GMT+11:00", "GMT-03:30", or "GMT" itself at offset zero.
  const offset = get("timeZoneName").replace(/^GMT/, "") || "+00:00";
  return {
    date: `${get("year")}-${get("month")}-${get("day")}`,
    time: `${get("hour")}:${get("minute")}:${get("second")}`,
    offset,
  };
}

/** The zone's abbreviation at that moment: "AEDT", "AEST", "UTC", "BST", else "GMT+9". */
export function zoneAbbreviation(d: Date, zone: string): string {
  return partOf(zoneFormat(zone).name.formatToParts(d), "timeZoneName");
}

/**
 * The locale whose Intl names this zone by letters ("en-AU" for Australia/Sydney), for a browser that
 * names the zone as this module does (components/hq/print_margins.ts).
 */
export function zoneNameLocale(zone: string): string {
  return zoneFormat(zone).name.resolvedOptions().locale;
}

/** "2026-11-21 20:30 AEDT": minute precision, the zone named. */
export function formatDepotTime(d: Date, zone: string): string {
  const { date, time } = wallClock(d, zone);
  return `${date} ${time.slice(0, 5)} ${zoneAbbreviation(d, zone)}`;
}

/**
 * ISO 8601 in the zone with its offset, to the millisecond: "2026-11-21T20:30:05.123+11:00"; "Z" when
 * the offset is zero (so in UTC it is exactly `toISOString()`). An instant as a Date or as epoch
 * milliseconds (the CSV export reads its times as numbers: no Date a cell).
 */
export function isoInZone(t: Date | number, zone: string): string {
  // Whole milliseconds, as a Date holds them.
  const ms = typeof t === "number" ? Math.trunc(t) : t.getTime();
  // A part's "status since" is usually the time it entered that status too: the same instant twice a row.
  if (ms === last.ms && zone === last.zone) return last.text;
  const text = isoOf(ms, zone);
  last.ms = ms;
  last.zone = zone;
  last.text = text;
  return text;
}

/** The last instant isoInZone wrote, and how. */
const last = { ms: NaN, zone: "", text: "" };

/** "00".."59" and "000".."999": a time's fields without padding them each time. */
const TWO = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, "0"));
const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));

function isoOf(ms: number, zone: string): string {
  const offset = hourOffset(ms, zone);
  if (offset !== null) {
    // The wall clock is the instant shifted by the offset, read as UTC: its hour's "2026-11-21T20:" is
    // remembered (Date's own ISO writer, once an hour), minutes, seconds and milliseconds are arithmetic.
    // A CSV export formats millions of dates (docs/performance.md "Dashboard at 1M claims").
    const local = ms + offset.ms;
    const hour = Math.floor(local / HOUR_MS);
    const prefix = hourPrefix(hour);
    if (prefix !== null) {
      const inHour = local - hour * HOUR_MS;
      const minute = Math.floor(inHour / 60_000);
      const inMinute = inHour - minute * 60_000;
      const second = Math.floor(inMinute / 1000);
      return prefix + TWO[minute] + ":" + TWO[second] + "." + THREE[inMinute - second * 1000] +
        (offset.ms === 0 ? "Z" : offset.text);
    }
  }
  const d = new Date(ms);
  const { date, time, offset: text } = wallClock(d, zone);
  const milli = String(d.getUTCMilliseconds()).padStart(3, "0");
  return `${date}T${time}.${milli}${text === "+00:00" ? "Z" : text}`;
}

const shifted = new Date(0);
const hourPrefixes = new Map<number, string | null>();

/**
 * "2026-11-21T20:", the ISO date and hour of the `hour`-th hour since the epoch read as UTC; null outside
 * the years 1000–9999, whose ISO form has another length (the caller then asks Intl).
 */
function hourPrefix(hour: number): string | null {
  let prefix = hourPrefixes.get(hour);
  if (prefix === undefined) {
    shifted.setTime(hour * HOUR_MS);
    const iso = shifted.toISOString();
    prefix = iso.length === 24 && iso[0] !== "0" ? iso.slice(0, 14) : null;
    if (hourPrefixes.size >= MAX_HOURS) hourPrefixes.clear();
    hourPrefixes.set(hour, prefix);
  }
  return prefix;
}

const HOUR_MS = 3_600_000;
/** Hours remembered per zone before the memo starts over (a CSV of a million rows spans ~20 000). */
const MAX_HOURS = 100_000;
const hourOffsets = new Map<string, Map<number, { ms: number; text: string } | null>>();

/**
 * The zone's offset over the UTC hour holding the instant `ms`, when the hour starts and ends with the same offset of
 * whole minutes (zones change offset at most once an hour, on a minute); null otherwise (the hour of a
 * change, or a historical offset in seconds): the caller then asks Intl for that instant. Intl's
 * formatToParts costs ~20 µs a call, most of a CSV export's time when asked for every date.
 */
function hourOffset(ms: number, zone: string): { ms: number; text: string } | null {
  const hour = Math.floor(ms / HOUR_MS);
  if (!Number.isFinite(hour)) return null;
  let memo = hourOffsets.get(zone);
  if (!memo) hourOffsets.set(zone, memo = new Map());
  let offset = memo.get(hour);
  if (offset === undefined) {
    const start = wallClock(new Date(hour * HOUR_MS), zone).offset;
    const end = wallClock(new Date(hour * HOUR_MS + HOUR_MS - 1), zone).offset;
    const m = /^([+-])(\d\d):(\d\d)$/.exec(start);
    offset = start === end && m
      ? { ms: (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000, text: start }
      : null;
    if (memo.size >= MAX_HOURS) memo.clear();
    memo.set(hour, offset);
  }
  return offset;
}

/** The date on the zone's wall clock at that instant: "2026-11-21". */
export function dateInZone(d: Date, zone: string): string {
  return wallClock(d, zone).date;
}

/** The zone's offset at that instant, in ms (east of UTC positive). */
function offsetMsAt(ms: number, zone: string): number {
  const m = /^([+-])(\d\d):(\d\d)$/.exec(wallClock(new Date(ms), zone).offset);
  return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000 : 0;
}

/**
 * The instants a date of the zone's wall clock starts and ends ("2026-11-21" in Australia/Sydney: from
 * 2026-11-20T13:00Z to 2026-11-21T13:00Z), summer time included (such a day may be 23 or 25 hours). A
 * midnight the zone skips starts the day at the first instant after it.
 */
export function dayInZone(date: string, zone: string): { start: Date; end: Date } {
  const startOf = (utcMidnight: number) => {
    // Two steps: the offset at the guess can differ from the offset at the true midnight near a change.
    const guess = utcMidnight - offsetMsAt(utcMidnight, zone);
    return new Date(utcMidnight - offsetMsAt(guess, zone));
  };
  const [y, m, d] = date.split("-").map(Number);
  return { start: startOf(Date.UTC(y, m - 1, d)), end: startOf(Date.UTC(y, m - 1, d + 1)) };
}
