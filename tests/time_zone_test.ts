import assert from "node:assert/strict";
import {
  canonicalTimeZone,
  dateInZone,
  dayInZone,
  formatDepotTime,
  isoInZone,
  zoneAbbreviation,
} from "@/io/time_zone.ts";

// Sydney leaves summer time on Sunday 5 April 2026 at 03:00 AEDT (16:00 UTC on the 4th): clocks go back
// to 02:00 AEST, so 02:30 happens twice that night. It starts again on 4 October 2026 at 02:00 AEST.
const SYDNEY = "Australia/Sydney";

Deno.test("time zone: the end of Sydney summer time, a minute either side, names AEDT then AEST", () => {
  const before = new Date("2026-04-04T15:59:00Z");
  const after = new Date("2026-04-04T16:00:00Z");
  assert.equal(formatDepotTime(before, SYDNEY), "2026-04-05 02:59 AEDT");
  assert.equal(formatDepotTime(after, SYDNEY), "2026-04-05 02:00 AEST");
  // The repeated hour: the same wall clock twice, told apart by the zone name and the offset.
  const firstHalfPast = new Date("2026-04-04T15:30:00Z");
  const secondHalfPast = new Date("2026-04-04T16:30:00Z");
  assert.equal(formatDepotTime(firstHalfPast, SYDNEY), "2026-04-05 02:30 AEDT");
  assert.equal(formatDepotTime(secondHalfPast, SYDNEY), "2026-04-05 02:30 AEST");
  assert.equal(isoInZone(firstHalfPast, SYDNEY), "2026-04-05T02:30:00.000+11:00");
  assert.equal(isoInZone(secondHalfPast, SYDNEY), "2026-04-05T02:30:00.000+10:00");
  // ISO with the offset is the same instant.
  assert.equal(new Date(isoInZone(secondHalfPast, SYDNEY)).getTime(), secondHalfPast.getTime());
});

Deno.test("time zone: the start of Sydney summer time skips 02:00–03:00", () => {
  assert.equal(formatDepotTime(new Date("2026-10-03T15:59:00Z"), SYDNEY), "2026-10-04 01:59 AEST");
  assert.equal(formatDepotTime(new Date("2026-10-03T16:00:00Z"), SYDNEY), "2026-10-04 03:00 AEDT");
});

Deno.test("time zone: the date changes with the zone, not with UTC", () => {
  const lateUtc = new Date("2026-11-21T22:15:00Z");
  assert.equal(formatDepotTime(lateUtc, "UTC"), "2026-11-21 22:15 UTC");
  assert.equal(formatDepotTime(lateUtc, SYDNEY), "2026-11-22 09:15 AEDT");
  assert.equal(formatDepotTime(lateUtc, "America/New_York"), "2026-11-21 17:15 EST");
  assert.equal(formatDepotTime(lateUtc, "Asia/Kolkata"), "2026-11-22 03:45 IST");
});

Deno.test("time zone: in UTC the ISO form is exactly toISOString(); elsewhere it carries the offset", () => {
  const d = new Date("2026-01-02T03:04:05.678Z");
  assert.equal(isoInZone(d, "UTC"), d.toISOString());
  assert.equal(isoInZone(d, "America/St_Johns"), "2026-01-01T23:34:05.678-03:30");
  assert.equal(isoInZone(d, "Europe/London"), "2026-01-02T03:04:05.678Z");
});

Deno.test("time zone: a zone without a common letter name shows its offset, never a wrong name", () => {
  const d = new Date("2026-06-01T00:00:00Z");
  assert.equal(zoneAbbreviation(d, "Asia/Tokyo"), "GMT+9");
  assert.equal(zoneAbbreviation(d, "Europe/London"), "BST");
  assert.equal(zoneAbbreviation(d, "UTC"), "UTC");
});

Deno.test("time zone: names are checked with Intl and spelt canonically; offsets and unknown names refused", () => {
  assert.equal(canonicalTimeZone("Australia/Sydney"), "Australia/Sydney");
  assert.equal(canonicalTimeZone("australia/sydney"), "Australia/Sydney");
  assert.equal(canonicalTimeZone("UTC"), "UTC");
  for (const bad of ["", "Mars/Olympus_Mons", "+10:00", "-0300", "../etc/passwd", "Europe/ London"]) {
    assert.equal(canonicalTimeZone(bad), null, bad);
  }
});

/** The ISO form built from Intl for one instant alone: what isoInZone wrote before its per-hour memo. */
function isoByIntl(d: Date, zone: string): string {
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
  }).formatToParts(d);
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  const offset = get("timeZoneName").replace(/^GMT/, "") || "Z";
  const ms = String(d.getUTCMilliseconds()).padStart(3, "0");
  return `${get("year")}-${get("month")}-${get("day")}T${get("hour")}:${get("minute")}:${
    get("second")
  }.${ms}${offset === "+00:00" ? "Z" : offset}`;
}

Deno.test("time zone: the ISO form (memoised per hour) matches Intl at every instant around offset changes", () => {
  // Sydney (one hour), Lord Howe (half an hour), St John's (a -03:30 offset), Kathmandu (+05:45).
  const zones = ["Australia/Sydney", "Australia/Lord_Howe", "America/St_Johns", "Asia/Kathmandu", "UTC"];
  const windows = [
    Date.UTC(2026, 3, 4, 12),
    Date.UTC(2026, 9, 3, 12),
    Date.UTC(2026, 2, 8, 0),
    Date.UTC(2026, 10, 1, 0),
  ];
  for (const zone of zones) {
    for (const start of windows) {
      // Every 7 min 13.457 s over a day, so instants fall on every side of each change.
      for (let t = start; t < start + 86_400_000; t += 433_457) {
        const d = new Date(t);
        assert.equal(isoInZone(d, zone), isoByIntl(d, zone), `${zone} ${d.toISOString()}`);
        assert.equal(isoInZone(t, zone), isoByIntl(d, zone), `${zone} ${t} as epoch milliseconds`);
      }
    }
  }
});

Deno.test("time zone: epoch milliseconds write as their Date does, also before 1970 and outside 1000–9999", () => {
  const instants = [
    0,
    -1,
    Date.UTC(1969, 11, 31, 23, 59, 59, 999),
    Date.UTC(1900, 0, 1, 0, 0, 0, 1),
    Date.UTC(999, 11, 31, 23, 0, 0, 5),
    Date.UTC(1000, 0, 1, 0, 0, 0, 0),
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    Date.UTC(10000, 0, 1, 0, 0, 0, 0),
    Date.UTC(2026, 10, 21, 9, 30, 5, 123),
  ];
  for (const zone of ["UTC", "Australia/Sydney", "America/St_Johns", "Asia/Kathmandu"]) {
    for (const t of instants) {
      const d = new Date(t);
      assert.equal(isoInZone(t, zone), isoInZone(d, zone), `${zone} ${t}`);
      assert.equal(isoInZone(t, zone), isoByIntl(d, zone), `${zone} ${t} by Intl`);
      // A fraction of a millisecond is dropped as a Date drops it.
      assert.equal(isoInZone(t + 0.75, zone), isoInZone(new Date(t + 0.75), zone), `${zone} ${t} + 0.75`);
    }
  }
});

Deno.test("time zone: dayInZone gives a depot day's first instant and the next day's, summer time included", () => {
  const iso = (d: { start: Date; end: Date }) => [d.start.toISOString(), d.end.toISOString()];
  assert.deepEqual(iso(dayInZone("2026-11-21", "UTC")), [
    "2026-11-21T00:00:00.000Z",
    "2026-11-22T00:00:00.000Z",
  ]);
  assert.deepEqual(iso(dayInZone("2026-11-21", "Australia/Sydney")), [
    "2026-11-20T13:00:00.000Z",
    "2026-11-21T13:00:00.000Z",
  ]);
  // Sydney's summer time starts on 2026-10-04 at 02:00: a 23-hour day.
  assert.deepEqual(iso(dayInZone("2026-10-04", "Australia/Sydney")), [
    "2026-10-03T14:00:00.000Z",
    "2026-10-04T13:00:00.000Z",
  ]);
  assert.equal(dateInZone(new Date("2026-11-20T13:00:00Z"), "Australia/Sydney"), "2026-11-21");
});
