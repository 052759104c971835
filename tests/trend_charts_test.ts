/**
 * The trends page's chart drawing (components/hq/charts.tsx): scales, the value axis' round ticks, which
 * date labels show, grouped bars' geometry, and the SVG's accessible name; the range rules
 * (lib/dashboard/trends.ts) on the depot's days, 23- and 25-hour days included.
 */
import assert from "node:assert/strict";
import { render } from "preact-render-to-string";
import {
  axisTicks,
  BarChart,
  groupedBars,
  labelEvery,
  linearScale,
  LineChart,
  niceStep,
} from "@/components/hq/charts.tsx";
import { oneDecimal, trendRangeOf } from "@/lib/dashboard/trends.ts";
import { ValidationError } from "@/lib/errors.ts";

Deno.test("charts: a linear scale maps the domain's ends onto the range's, inverted axes included", () => {
  const y = linearScale([0, 50], [260, 36]);
  assert.equal(y(0), 260);
  assert.equal(y(50), 36);
  assert.equal(y(25), 148);
  assert.equal(linearScale([3, 3], [10, 20])(7), 10, "a domain of zero width");
});

Deno.test("charts: round steps and ticks from 0 to the first at or above the maximum", () => {
  assert.equal(niceStep(10, 5), 2);
  assert.equal(niceStep(47, 5), 10);
  assert.equal(niceStep(0.7, 5), 0.2);
  assert.equal(niceStep(1234, 5), 500);
  assert.deepEqual(axisTicks(47), [0, 10, 20, 30, 40, 50]);
  assert.deepEqual(axisTicks(10), [0, 2, 4, 6, 8, 10]);
  assert.deepEqual(axisTicks(0.7), [0, 0.2, 0.4, 0.6, 0.8]);
  assert.deepEqual(axisTicks(1), [0, 0.2, 0.4, 0.6, 0.8, 1]);
  assert.deepEqual(axisTicks(0), [0, 1], "an empty chart keeps an axis");
  assert.deepEqual(axisTicks(-3), [0, 1]);
});

Deno.test("charts: at most so many date labels: every k-th", () => {
  assert.equal(labelEvery(56, 8), 7);
  assert.equal(labelEvery(3, 8), 1);
  assert.equal(labelEvery(366, 8), 46);
  assert.equal(labelEvery(0, 8), 1);
});

Deno.test("charts: grouped bars: a band per category, a bar per series, width from the scale", () => {
  const scale = linearScale([0, 10], [100, 600]);
  const bars = groupedBars([[5, 10], [0, 2]], { top: 30, left: 100, band: 32, barHeight: 10, scale });
  assert.deepEqual(bars, [
    [{ x: 100, y: 30, width: 250, height: 10 }, { x: 100, y: 40, width: 500, height: 10 }],
    [{ x: 100, y: 62, width: 0, height: 10 }, { x: 100, y: 72, width: 100, height: 10 }],
  ]);
});

Deno.test("charts: an image named by its title and described by its desc; one shape per value", () => {
  const line = render(
    LineChart({
      id: "c1",
      title: "Movements <per> day",
      desc: "Totals",
      labels: ["11-01", "11-02"],
      series: [{ label: "Deliveries", values: [1, 3] }, { label: "Collections", values: [0, 2] }],
    }),
  );
  assert.match(line, /^<svg[^>]*role="img"[^>]*aria-labelledby="c1-title c1-desc"/);
  assert.match(line, /<title id="c1-title">Movements &lt;per> day<\/title><desc id="c1-desc">Totals<\/desc>/);
  assert.equal([...line.matchAll(/<polyline/g)].length, 2);
  const bar = render(
    BarChart({
      id: "c2",
      title: "Turnaround",
      desc: "d",
      labels: ["A", "B", "C"],
      series: [{ label: "x", values: [1, 2, 3] }, { label: "y", values: [0, 1, 0] }],
    }),
  );
  assert.equal([...bar.matchAll(/<rect /g)].length, 6);
});

Deno.test("trends: one decimal, half away from zero", () => {
  assert.equal(oneDecimal(8.200000000000001), 8.2);
  assert.equal(oneDecimal(1.25), 1.3);
  assert.equal(oneDecimal(2), 2);
});

Deno.test("trends range: the depot's days, a 23-hour and a 25-hour one among them", () => {
  const now = new Date("2026-11-21T09:00:00Z");
  const r = trendRangeOf({ from: "2026-10-03", to: "2026-10-05" }, now, "Australia/Sydney");
  assert.deepEqual(r.dates, ["2026-10-03", "2026-10-04", "2026-10-05"]);
  assert.deepEqual(r.bounds.map((b) => b.toISOString()), [
    "2026-10-02T14:00:00.000Z",
    "2026-10-03T14:00:00.000Z",
    "2026-10-04T13:00:00.000Z",
    "2026-10-05T13:00:00.000Z",
  ]);
  const autumn = trendRangeOf({ from: "2027-04-04", to: "2027-04-04" }, now, "Australia/Sydney");
  assert.equal(autumn.bounds[1].getTime() - autumn.bounds[0].getTime(), 25 * 3_600_000);
  const byDefault = trendRangeOf({}, now, "Australia/Sydney");
  assert.equal(byDefault.dates.length, 56);
  assert.equal(byDefault.to, "2026-11-21");
  assert.throws(() => trendRangeOf({ from: "2026-01-01", to: "2027-01-02" }, now, "UTC"), ValidationError);
  assert.equal(trendRangeOf({ from: "2026-01-01", to: "2027-01-01" }, now, "UTC").dates.length, 366);
});
