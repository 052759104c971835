/**
 * A repair shop's opening hours (docs/dashboard.md "Places"): a week of opening
 * intervals per weekday, stored as JSON (`repairers.opening_hours`), typed by a person as text
 * ("Mon–Fri 07:30–17:00, Sat 08:00–12:00") and read back in that same form, and asked "open now?" in the
 * depot's time zone (DEPOT_TIME_ZONE) by the run sheet.
 *
 * Stored shape: `{ "mon": [{ "open": "07:30", "close": "17:00" }], "sat": [...] }`; a day left out is
 * closed; times are "HH:MM" on the shop's wall clock, a close of "24:00" is midnight; each day's intervals
 * are sorted, do not overlap, and each opens before it closes (hours past midnight are not supported: a
 * shop open overnight writes two days, e.g. "Fri 18:00–24:00, Sat 00:00–02:00"). Public holidays are not
 * modelled.
 */
import { z } from "zod";

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = typeof WEEKDAYS[number];

/** One opening interval: "HH:MM" each, `open` < `close`, `close` up to "24:00". */
export interface Interval {
  open: string;
  close: string;
}

/** A week of opening hours: the days open, each with its intervals in order. */
export type OpeningHours = Partial<Record<Weekday, Interval[]>>;

/** The most intervals a day takes (e.g. a morning and an afternoon, with a lunch break between). */
export const MAX_INTERVALS = 4;
/** The longest text the form takes. */
export const MAX_HOURS_TEXT = 300;

const DAY_LABEL: Record<Weekday, string> = {
  mon: "Mon",
  tue: "Tue",
  wed: "Wed",
  thu: "Thu",
  fri: "Fri",
  sat: "Sat",
  sun: "Sun",
};

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const hhmmOf = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;

/** The problem of one day's intervals (sorted by opening), or null. */
function dayProblem(day: Weekday, intervals: Interval[]): string | null {
  const label = DAY_LABEL[day];
  if (intervals.length > MAX_INTERVALS) return `${label} has more than ${MAX_INTERVALS} opening intervals`;
  for (const [i, { open, close }] of intervals.entries()) {
    if (minutesOf(open) >= minutesOf(close)) {
      return `${label} ${open}–${close} closes before it opens (hours past midnight are not supported)`;
    }
    const prev = intervals[i - 1];
    if (prev && minutesOf(open) < minutesOf(prev.close)) {
      return `${label} ${prev.open}–${prev.close} and ${open}–${close} overlap`;
    }
  }
  return null;
}

/** The problem of a whole week (days' intervals sorted), or null. */
function weekProblem(hours: OpeningHours): string | null {
  if (!WEEKDAYS.some((d) => hours[d]?.length)) {
    return "give at least one day's hours (or leave the opening hours empty)";
  }
  for (const day of WEEKDAYS) {
    const problem = dayProblem(day, hours[day] ?? []);
    if (problem) return problem;
  }
  return null;
}

/** The week in its one stored form: days in order, empty days left out, intervals sorted. */
function canonical(hours: OpeningHours): OpeningHours {
  const out: OpeningHours = {};
  for (const day of WEEKDAYS) {
    const intervals = hours[day];
    if (intervals?.length) {
      out[day] = [...intervals].map(({ open, close }) => ({ open, close }))
        .sort((a, b) => minutesOf(a.open) - minutesOf(b.open));
    }
  }
  return out;
}

const OPEN_TIME = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
const CLOSE_TIME = /^(?:(?:[01]\d|2[0-3]):[0-5]\d|24:00)$/;

/**
 * The stored JSON's schema (a row, an import's structured form): checked, then sorted into the stored form.
 */
export const openingHoursSchema = z.strictObject(
  Object.fromEntries(WEEKDAYS.map((day) => [
    day,
    z.array(z.strictObject({
      open: z.string().regex(OPEN_TIME, { message: 'must be a time "HH:MM"' }),
      close: z.string().regex(CLOSE_TIME, { message: 'must be a time "HH:MM" (at most "24:00")' }),
    })).optional(),
  ])) as Record<Weekday, z.ZodOptional<z.ZodArray<z.ZodObject<{ open: z.ZodString; close: z.ZodString }>>>>,
).transform((hours, ctx) => {
  const week = canonical(hours);
  const problem = weekProblem(week);
  if (problem) {
    ctx.issues.push({ code: "custom", message: problem, input: hours });
    return z.NEVER;
  }
  return week;
});

/** A week read back from the database (written through `openingHoursSchema`); null when unknown or bad. */
export function storedOpeningHours(value: unknown): OpeningHours | null {
  if (value === null || value === undefined) return null;
  const parsed = openingHoursSchema.safeParse(typeof value === "string" ? JSON.parse(value) : value);
  return parsed.success ? parsed.data : null;
}

// ---- The text form ----

const DAY_WORD =
  "(mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)";
const TIME_WORD = "(\\d{1,2})(?:[:.](\\d{2}))?\\s*(?:([ap])\\.?m\\.?)?";
const TO = "\\s*(?:-|to)\\s*";
const END = "(?![a-z0-9])";

/** The text's tokens, tried in this order at each position (sticky). */
const TOKENS: { kind: "times" | "days" | "group" | "closed" | "gap"; re: RegExp }[] = [
  { kind: "times", re: new RegExp(`${TIME_WORD}${TO}${TIME_WORD}${END}`, "y") },
  { kind: "days", re: new RegExp(`${DAY_WORD}${TO}${DAY_WORD}${END}`, "y") },
  { kind: "days", re: new RegExp(`${DAY_WORD}${END}`, "y") },
  { kind: "group", re: /(daily|every\s*day|weekdays|weekends?)(?![a-z0-9])/y },
  { kind: "closed", re: /closed(?![a-z0-9])/y },
  { kind: "gap", re: /(?:[\s,;&/|:]+|and(?![a-z0-9]))/y },
];

const GROUPS: Record<string, Weekday[]> = {
  daily: [...WEEKDAYS],
  weekdays: ["mon", "tue", "wed", "thu", "fri"],
  weekend: ["sat", "sun"],
  weekends: ["sat", "sun"],
};

const dayOf = (word: string): Weekday => word.slice(0, 3) as Weekday;

/** Days from `a` to `b` inclusive, wrapping past Sunday ("Fri–Mon"). */
function dayRange(a: Weekday, b: Weekday): Weekday[] {
  const out: Weekday[] = [];
  for (let i = WEEKDAYS.indexOf(a);; i = (i + 1) % 7) {
    out.push(WEEKDAYS[i]);
    if (WEEKDAYS[i] === b) return out;
  }
}

/** A typed time ("7:30", "07.30", "5pm", "12:30 am") as minutes, or a problem. */
function timeOf(hour: string, minute: string | undefined, half: string | undefined): number | string {
  const typed = `${hour}${minute === undefined ? "" : `:${minute}`}${half ? `${half}m` : ""}`;
  let h = Number(hour);
  const m = minute === undefined ? 0 : Number(minute);
  if (minute === undefined && !half) return `write ${typed} as a time, e.g. ${typed.padStart(2, "0")}:00`;
  if (half) {
    if (h < 1 || h > 12) return `${typed} is not a time`;
    h = h % 12 + (half === "p" ? 12 : 0);
  }
  if (m > 59 || h > 24 || (h === 24 && m > 0)) return `${typed} is not a time`;
  return h * 60 + m;
}

export type HoursParse = { ok: true; hours: OpeningHours | null } | { ok: false; problem: string };

/**
 * Reads what a person types: day groups followed by their times, e.g. "Mon–Fri 07:30–17:00, Sat
 * 08:00–12:00", "Mon-Fri 7:30am-5pm; Sat 8am-12pm", "Weekdays 08:00-12:00 & 13:00-17:00, Sun closed".
 * Days: Mon … Sun (or spelled out), ranges "Mon–Fri", lists "Mon, Wed", "Daily", "Weekdays", "Weekends".
 * Empty text is "not known" (null). A problem is a sentence fragment for "Opening hours: <problem>."
 */
export function parseOpeningHours(text: string): HoursParse {
  const source = text.toLowerCase().replace(/[\u2010-\u2015\u2212]/g, "-").trim();
  if (source === "") return { ok: true, hours: null };
  if (text.length > MAX_HOURS_TEXT) {
    return { ok: false, problem: `keep it under ${MAX_HOURS_TEXT} characters` };
  }
  const week: OpeningHours = {};
  const seen = new Set<Weekday>();
  let days: Weekday[] = [];
  let intervals: Interval[] = [];
  let closed = false;
  const flush = (): string | null => {
    if (days.length === 0) return null;
    const label = days.map((d) => DAY_LABEL[d]).join(", ");
    if (!closed && intervals.length === 0) {
      return `give the hours after ${label} (e.g. ${label} 08:00–12:00), or write ${label} closed`;
    }
    for (const day of days) {
      if (seen.has(day)) return `${DAY_LABEL[day]} is given twice`;
      seen.add(day);
      if (intervals.length) week[day] = [...intervals];
    }
    days = [];
    intervals = [];
    closed = false;
    return null;
  };
  let at = 0;
  while (at < source.length) {
    let matched: { kind: typeof TOKENS[number]["kind"]; m: RegExpExecArray } | null = null;
    for (const { kind, re } of TOKENS) {
      re.lastIndex = at;
      const m = re.exec(source);
      if (m && m[0].length > 0) {
        matched = { kind, m };
        break;
      }
    }
    if (!matched) {
      const word = source.slice(at).split(/[\s,;]/)[0];
      return {
        ok: false,
        problem: `cannot read "${word}" (write e.g. Mon–Fri 07:30–17:00, Sat 08:00–12:00)`,
      };
    }
    at += matched.m[0].length;
    const { kind, m } = matched;
    if (kind === "gap") continue;
    if (kind === "days" || kind === "group") {
      if (intervals.length || closed) {
        const problem = flush();
        if (problem) return { ok: false, problem };
      }
      const more = kind === "group"
        ? GROUPS[m[1].replace(/\s+/g, "")] ?? GROUPS.daily
        : m[2] === undefined
        ? [dayOf(m[1])]
        : dayRange(dayOf(m[1]), dayOf(m[2]));
      days.push(...more.filter((d) => !days.includes(d)));
      continue;
    }
    if (days.length === 0) {
      return { ok: false, problem: `start with the days, e.g. Mon–Fri ${m[0].trim()}` };
    }
    if (kind === "closed") {
      if (intervals.length) {
        return { ok: false, problem: "a day is either open at times or closed, not both" };
      }
      closed = true;
      continue;
    }
    if (closed) return { ok: false, problem: "a day is either open at times or closed, not both" };
    const open = timeOf(m[1], m[2], m[3]);
    const close = timeOf(m[4], m[5], m[6]);
    if (typeof open === "string") return { ok: false, problem: open };
    if (typeof close === "string") return { ok: false, problem: close };
    if (open >= 24 * 60) return { ok: false, problem: "24:00 is a closing time only" };
    intervals.push({ open: hhmmOf(open), close: hhmmOf(close) });
  }
  const problem = flush();
  if (problem) return { ok: false, problem };
  const hours = canonical(week);
  const weekIssue = weekProblem(hours);
  return weekIssue ? { ok: false, problem: weekIssue } : { ok: true, hours };
}

/** "07:30–12:00 & 13:00–17:00" */
export function formatIntervals(intervals: Interval[]): string {
  return intervals.map((i) => `${i.open}–${i.close}`).join(" & ");
}

/**
 * The week as a person reads it (and as the form takes it back): runs of consecutive days with the same
 * hours, open days only: "Mon–Fri 07:30–17:00, Sat 08:00–12:00".
 */
export function formatOpeningHours(hours: OpeningHours): string {
  const runs: { from: Weekday; to: Weekday; times: string }[] = [];
  for (const day of WEEKDAYS) {
    const intervals = hours[day];
    if (!intervals?.length) continue;
    const times = formatIntervals(intervals);
    const last = runs.at(-1);
    if (last && last.times === times && WEEKDAYS.indexOf(last.to) === WEEKDAYS.indexOf(day) - 1) {
      last.to = day;
    } else {
      runs.push({ from: day, to: day, times });
    }
  }
  return runs.map((r) => `${DAY_LABEL[r.from]}${r.to === r.from ? "" : `–${DAY_LABEL[r.to]}`} ${r.times}`)
    .join(", ");
}

const wallClocks = new Map<string, Intl.DateTimeFormat>();

/** The weekday and minute of the day at `date` on the wall clock of `timeZone` (an IANA name). */
export function wallTime(date: Date, timeZone: string): { day: Weekday; minute: number } {
  let format = wallClocks.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      weekday: "short",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    wallClocks.set(timeZone, format);
  }
  const parts = format.formatToParts(date);
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  return {
    day: get("weekday").toLowerCase().slice(0, 3) as Weekday,
    minute: (Number(get("hour")) % 24) * 60 + Number(get("minute")),
  };
}

/** The intervals of the day `date` falls on in `timeZone` (empty: closed that day). */
export function hoursOn(hours: OpeningHours, date: Date, timeZone: string): Interval[] {
  return hours[wallTime(date, timeZone).day] ?? [];
}

/**
 * Whether the place is open at `date` on the wall clock of `timeZone` (the depot's, DEPOT_TIME_ZONE):
 * inside an interval, its opening minute included and its closing minute not.
 */
export function isOpenAt(hours: OpeningHours, date: Date, timeZone: string): boolean {
  const { day, minute } = wallTime(date, timeZone);
  return (hours[day] ?? []).some((i) => minutesOf(i.open) <= minute && minute < minutesOf(i.close));
}
