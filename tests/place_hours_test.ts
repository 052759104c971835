import assert from "node:assert/strict";
import fc from "@/tests/helpers/fast_check.ts";
import {
  formatOpeningHours,
  hoursOn,
  type Interval,
  isOpenAt,
  type OpeningHours,
  openingHoursSchema,
  parseOpeningHours,
  wallTime,
  WEEKDAYS,
} from "@/lib/places/hours.ts";
import { checkEmails, checkPhone, coordinatesFromForm, phoneHref } from "@/lib/places/details.ts";

const SYDNEY = "Australia/Sydney";

function parsed(text: string): OpeningHours | null {
  const result = parseOpeningHours(text);
  if (!result.ok) assert.fail(`"${text}" should parse: ${result.problem}`);
  return result.hours;
}

function problem(text: string): string {
  const result = parseOpeningHours(text);
  if (result.ok) assert.fail(`"${text}" should be refused`);
  return result.problem;
}

Deno.test("place hours: what a shop manager types reads back in one form", () => {
  const week = parsed("Mon–Fri 07:30–17:00, Sat 08:00–12:00");
  assert.deepEqual(week, {
    mon: [{ open: "07:30", close: "17:00" }],
    tue: [{ open: "07:30", close: "17:00" }],
    wed: [{ open: "07:30", close: "17:00" }],
    thu: [{ open: "07:30", close: "17:00" }],
    fri: [{ open: "07:30", close: "17:00" }],
    sat: [{ open: "08:00", close: "12:00" }],
  });
  const same = [
    "Mon-Fri 7:30am-5pm; Sat 8am-12pm",
    "monday to friday 7.30 am to 5.00 pm\nsaturday 08:00 - 12:00",
    "Weekdays 07:30-17:00, Sun closed, Sat 08:00-12:00",
  ];
  for (const text of same) assert.deepEqual(parsed(text), week, text);
  assert.equal(formatOpeningHours(week!), "Mon–Fri 07:30–17:00, Sat 08:00–12:00");
  assert.equal(
    formatOpeningHours(parsed("Mon, Wed 13:00-17:00 08:00-12:00")!),
    "Mon 08:00–12:00 & 13:00–17:00, Wed 08:00–12:00 & 13:00–17:00",
  );
  assert.equal(formatOpeningHours(parsed("Daily 00:00-24:00")!), "Mon–Sun 00:00–24:00");
  assert.equal(formatOpeningHours(parsed("Fri-Mon 10:00-14:00")!), "Mon 10:00–14:00, Fri–Sun 10:00–14:00");
  assert.equal(parsed("  "), null, "empty: not known");
});

Deno.test("place hours: a text that cannot be one week is refused, saying what is wrong", () => {
  assert.match(problem("Sat"), /give the hours after Sat/);
  assert.match(problem("07:00-09:00"), /start with the days/);
  assert.match(problem("Mon 9-5"), /write 9 as a time, e.g. 09:00/);
  assert.match(problem("Mon 17:00-07:00"), /Mon 17:00–07:00 closes before it opens/);
  assert.match(problem("Mon 08:00-12:00 11:00-13:00"), /Mon 08:00–12:00 and 11:00–13:00 overlap/);
  assert.match(problem("Mon 08:00-12:00, Mon-Tue 13:00-14:00"), /Mon is given twice/);
  assert.match(problem("Mon closed"), /at least one day's hours/);
  assert.match(problem("Mon 13:00pm-14:00"), /13:00pm is not a time/);
  assert.match(problem("Mon 24:00-24:00"), /24:00 is a closing time only/);
  assert.match(problem("Mon 08:00-12:00 closed"), /either open at times or closed/);
  assert.match(problem("Mon 07:00-25:00"), /25:00 is not a time/);
  assert.match(problem("Tomorrow 07:00-08:00"), /cannot read "tomorrow"/);
  assert.match(problem("Mon 1:00-1:30 2:00-2:30 3:00-3:30 4:00-4:30 5:00-5:30"), /more than 4/);
  assert.match(problem(`Mon 08:00-09:00 ${"x".repeat(300)}`), /under 300 characters/);
});

/** A random valid week: per day up to 3 sorted, disjoint intervals on the minute. */
const weekArb = fc.record(
  Object.fromEntries(WEEKDAYS.map((d) => [
    d,
    fc.uniqueArray(fc.integer({ min: 0, max: 24 * 60 }), { minLength: 0, maxLength: 6 }).map((cuts) => {
      const sorted = cuts.sort((a, b) => a - b);
      const out: Interval[] = [];
      for (let i = 0; i + 1 < sorted.length; i += 2) {
        const hhmm = (m: number) =>
          `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
        out.push({ open: hhmm(sorted[i]), close: hhmm(sorted[i + 1]) });
      }
      return out;
    }),
  ])),
).map((week) => Object.fromEntries(Object.entries(week).filter(([, v]) => v.length > 0)) as OpeningHours)
  .filter((week) => Object.keys(week).length > 0);

Deno.test("place hours (property): formatting then parsing gives the same week, which the schema accepts", () => {
  fc.assert(
    fc.property(weekArb, (week) => {
      const text = formatOpeningHours(week);
      assert.deepEqual(parsed(text), week, text);
      const stored = openingHoursSchema.safeParse(JSON.parse(JSON.stringify(week)));
      assert.ok(stored.success);
      assert.deepEqual(stored.data, week);
    }),
    { numRuns: 300 },
  );
});

Deno.test("place hours (property): isOpenAt is inside one of the day's intervals on the zone's clock", () => {
  const zones = fc.constantFrom(SYDNEY, "UTC", "America/New_York", "Asia/Kolkata");
  const instants = fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2028, 0, 1) }).map((ms) =>
    new Date(ms)
  );
  fc.assert(
    fc.property(weekArb, instants, zones, (week, date, zone) => {
      // The wall clock read independently, with a formatter of another locale.
      const parts = new Intl.DateTimeFormat("en-GB", {
        timeZone: zone,
        weekday: "long",
        hour: "numeric",
        minute: "numeric",
        hourCycle: "h23",
      }).formatToParts(date);
      const get = (t: string) => parts.find((p) => p.type === t)!.value;
      const day = get("weekday").slice(0, 3).toLowerCase() as keyof OpeningHours;
      const minute = Number(get("hour")) * 60 + Number(get("minute"));
      assert.deepEqual(wallTime(date, zone), { day, minute });
      const toMin = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3));
      const expected = (week[day] ?? []).some((i) => toMin(i.open) <= minute && minute < toMin(i.close));
      assert.equal(isOpenAt(week, date, zone), expected);
      assert.deepEqual(hoursOn(week, date, zone), week[day] ?? []);
    }),
    { numRuns: 500 },
  );
});

Deno.test("place hours: open now? in the depot's zone, across a summer-time change", () => {
  const week = parsed("Mon–Fri 07:30–17:00, Sat 08:00–12:00")!;
  // Monday 2026-11-23 in Sydney (AEDT, UTC+11): 07:29 closed, 07:30 open, 16:59 open, 17:00 closed.
  assert.equal(isOpenAt(week, new Date("2026-11-22T20:29:00Z"), SYDNEY), false);
  assert.equal(isOpenAt(week, new Date("2026-11-22T20:30:00Z"), SYDNEY), true);
  assert.equal(isOpenAt(week, new Date("2026-11-23T05:59:59Z"), SYDNEY), true);
  assert.equal(isOpenAt(week, new Date("2026-11-23T06:00:00Z"), SYDNEY), false);
  // The same instant is Sunday evening in UTC: closed there.
  assert.equal(isOpenAt(week, new Date("2026-11-22T20:30:00Z"), "UTC"), false);
  // Saturday 2026-04-04 09:00 AEDT; after the change (Sunday 5 April, 03:00 → 02:00) Saturday 11 April
  // 09:00 is AEST (UTC+10): the shop's wall clock decides, not a fixed offset.
  assert.equal(isOpenAt(week, new Date("2026-04-03T22:00:00Z"), SYDNEY), true);
  assert.equal(isOpenAt(week, new Date("2026-04-10T23:00:00Z"), SYDNEY), true);
  assert.equal(isOpenAt(week, new Date("2026-04-11T02:00:00Z"), SYDNEY), false, "12:00 AEST: closed");
  // Sunday: closed all day.
  assert.deepEqual(hoursOn(week, new Date("2026-11-22T01:00:00Z"), SYDNEY), []);
});

Deno.test("place details: phones, e-mails and coordinates as typed in a form", () => {
  assert.deepEqual(checkPhone("  02  9555 0101 "), { ok: true, value: "02 9555 0101" });
  assert.deepEqual(checkPhone(""), { ok: true, value: null });
  assert.equal(checkPhone("+61 (2) 9555-0101").ok, true);
  for (const bad of ["12345", "call me", "0".repeat(16), "02 9555\u00000101", "+61 2 9555 0101 ext 4"]) {
    assert.equal(checkPhone(bad).ok, false, bad);
  }
  assert.equal(phoneHref("+61 (2) 9555-0101"), "tel:+61295550101");
  assert.equal(phoneHref("02 9555 0101"), "tel:0295550101");
  assert.deepEqual(checkEmails("Parts@Shop.example, parts@shop.example;\nacc@shop.example"), {
    ok: true,
    value: ["parts@shop.example", "acc@shop.example"],
  });
  assert.deepEqual(checkEmails("a@b.example, nope"), {
    ok: false,
    problem: '"nope" is not an e-mail address',
  });
  assert.equal(checkEmails(Array.from({ length: 11 }, (_, i) => `a${i}@b.example`)).ok, false);
  assert.deepEqual(coordinatesFromForm("-33.86882, 151.20929", ""), {
    latitude: -33.86882,
    longitude: 151.20929,
  });
  assert.deepEqual(coordinatesFromForm("-33.1234567", "151"), { latitude: -33.123457, longitude: 151 });
  assert.deepEqual(coordinatesFromForm(" ", ""), { latitude: null, longitude: null });
  assert.throws(() => coordinatesFromForm("-33.8", ""), /Longitude: give it with the latitude/);
  assert.throws(() => coordinatesFromForm("91", "0"), /Latitude: must be between -90 and 90/);
  assert.throws(() => coordinatesFromForm("0", "-180.5"), /Longitude: must be between -180 and 180/);
  assert.throws(() => coordinatesFromForm("1e2", "0"), /Latitude: must be a number in decimal degrees/);
});
