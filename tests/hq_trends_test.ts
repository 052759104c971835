/**
 * `/hq/trends` (docs/trends.md), on both databases: each figure computed from seeded histories and checked
 * against numbers worked out by hand, on the depot's days in Australia/Sydney including the two days
 * daylight saving changes (2026-10-04, 23 hours; 2027-04-04, 25 hours); each CSV equal to its table; the
 * range's validation; the access rule.
 */
import assert from "node:assert/strict";
import { parseCsv } from "@/io/csv.ts";
import type { PartStatus } from "@/db/schema.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeHq, makeRepairer, makeUser } from "@/testkit/factories.ts";
import { type HqClient, pageText, signedIn } from "@/tests/helpers/hq.ts";

const SYDNEY = { config: { depotTimeZone: "Australia/Sydney" } };

interface Shop {
  shopId: number;
  claimId: number;
}

async function shop(a: TestApp, name: string, parts = 0): Promise<Shop & { partIds: number[] }> {
  const r = await makeRepairer(a.db, name);
  const { claim, parts: made } = await makeClaim(a.db, {
    management: r.id,
    parts: Array.from({ length: parts }, () => ({ status: "Returned to HQ" as const })),
  });
  return { shopId: r.id, claimId: claim.id, partIds: made.map((p) => p.id) };
}

/** A movement written as the submissions write one, at the times given (ISO instants). */
async function movement(
  a: TestApp,
  o:
    & { driver: number; at: Shop; parts: number }
    & (
      | { direct: string }
      | { pickedUp: string; back?: string; hq: number }
    ),
) {
  const common = { claim_id: o.at.claimId, picked_up_by: o.driver, part_count: o.parts };
  const row = "direct" in o
    ? {
      ...common,
      movement_type: "direct" as const,
      movement_status: "Parts Dropped off" as const,
      repairer_id: o.at.shopId,
      dropped_off_by: o.driver,
      pick_up_at: o.direct,
      dropped_off_at: o.direct,
    }
    : {
      ...common,
      movement_type: "reverse" as const,
      movement_status: o.back ? "Parts Dropped off" as const : "Parts Picked Up" as const,
      location_type: "HQ" as const,
      hq_location_id: o.hq,
      pick_up_at: o.pickedUp,
      dropped_off_by: o.back ? o.driver : null,
      dropped_off_at: o.back ?? null,
    };
  await a.db.insertInto("parts_movements").values(row).execute();
}

/** The rows of the page's table `id`, headings first, as text. */
function tableOf(html: string, id: string): string[][] {
  const table = new RegExp(`<table[^>]*data-table="${id}"[^>]*>([\\s\\S]*?)</table>`).exec(html);
  assert.ok(table, `table ${id} on the page`);
  return [...table[1].matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((tr) =>
    [...tr[1].matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) =>
      c[1].replace(/<[^>]+>/g, "").replaceAll("&amp;", "&").replaceAll("&#39;", "'").replaceAll("&quot;", '"')
        .trim()
    )
  );
}

async function csvOf(d: HqClient, path: string): Promise<string[][]> {
  const res = await d.get(path);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/csv/);
  return parseCsv(await res.text());
}

/** Asserts the CSV at `csvPath` holds exactly the page's table `id`. */
async function assertCsvIsTable(d: HqClient, html: string, id: string, csvPath: string) {
  assert.deepEqual(await csvOf(d, csvPath), tableOf(html, id));
}

/**
 * Around the start of summer time (Sydney, 2026-10-04: 02:00 AEST becomes 03:00 AEDT; the day runs from
 * 2026-10-03T14:00Z to 2026-10-04T13:00Z). Times are given in UTC with their depot wall clock beside.
 */
async function summerTimeStart(a: TestApp) {
  const ada = await makeUser(a.db, { role: "driver", name: "Ada Driver" });
  const bo = await makeUser(a.db, { role: "driver", name: "Bo Driver" });
  const hq = (await makeHq(a.db)).id;
  const alpha = await shop(a, "Alpha Panels");
  const beta = await shop(a, "Beta Smash");
  // 2026-10-03
  await movement(a, { driver: bo.id, at: beta, parts: 1, direct: "2026-10-03T13:30:00Z" }); // 23:30 AEST
  await movement(a, { driver: bo.id, at: alpha, parts: 1, hq, pickedUp: "2026-10-03T02:00:00Z" }); // 12:00
  // 2026-10-04, the 23-hour day
  await movement(a, { driver: ada.id, at: alpha, parts: 3, direct: "2026-10-03T14:30:00Z" }); // 00:30 AEST
  await movement(a, { driver: ada.id, at: beta, parts: 1, direct: "2026-10-04T12:30:00Z" }); // 23:30 AEDT
  await movement(a, {
    driver: ada.id,
    at: alpha,
    parts: 2,
    hq,
    pickedUp: "2026-10-04T05:00:00Z", // 16:00 AEDT
    back: "2026-10-04T13:30:00Z", // 2026-10-05 00:30 AEDT
  });
  // 2026-10-05
  await movement(a, { driver: bo.id, at: beta, parts: 1, direct: "2026-10-04T13:45:00Z" }); // 00:45 AEDT
  // Outside the range: 2026-10-02 23:59 AEST and 2026-10-06 00:00 AEDT.
  await movement(a, { driver: bo.id, at: beta, parts: 1, direct: "2026-10-02T13:59:00Z" });
  await movement(a, { driver: bo.id, at: beta, parts: 1, direct: "2026-10-05T13:00:00Z" });
}

appTest("hq trends: movements per day on the depot's days, the day summer time starts", async (a) => {
  await summerTimeStart(a);
  const d = await signedIn(a, "dispatcher");
  const range = "from=2026-10-03&to=2026-10-05";
  const html = await (await d.get(`/hq/trends?${range}`)).text();
  assert.deepEqual(tableOf(html, "movements"), [
    ["Date", "Deliveries", "Collections", "Returns to HQ", "All"],
    ["2026-10-03", "1", "1", "0", "2"],
    ["2026-10-04", "2", "1", "0", "3"],
    ["2026-10-05", "1", "0", "1", "2"],
  ]);
  await assertCsvIsTable(d, html, "movements", `/hq/trends/movements.csv?${range}`);
  // The chart draws the same numbers: one point per day and series, the legend in order.
  assert.match(html, /<svg[^>]*role="img"[^>]*aria-labelledby="chart-movements-title chart-movements-desc"/);
  assert.equal(
    [...html.matchAll(/<polyline[^>]*points="([^"]+)"/g)].map((m) => m[1].split(" ").length).join(),
    "3,3,3",
  );
}, SYDNEY);

appTest("hq trends: per driver, movements, parts and stops over the depot's days", async (a) => {
  await summerTimeStart(a);
  const d = await signedIn(a, "dispatcher");
  const range = "from=2026-10-03&to=2026-10-05";
  const html = await (await d.get(`/hq/trends?${range}`)).text();
  // Ada: 10-04 two deliveries (Alpha 3 parts, Beta 1) and a collection at Alpha (2): 3 steps, 6 parts,
  // 2 shops; 10-05 the return at HQ: 1 step, 2 parts, no shop. Bo: 10-03 a delivery at Beta and a
  // collection at Alpha (2 shops); 10-05 a delivery at Beta.
  assert.deepEqual(tableOf(html, "drivers").slice(1), [
    ["Ada Driver", "2", "4", "8", "2", "2.0", "4.0", "1.0"],
    ["Bo Driver", "2", "3", "3", "3", "1.5", "1.5", "1.5"],
  ]);
  await assertCsvIsTable(d, html, "drivers", `/hq/trends/drivers.csv?${range}`);
  // Read as UTC days the first delivery of the 4th would fall on the 3rd: one day only, here.
  const oneDay = tableOf(await (await d.get("/hq/trends?from=2026-10-04&to=2026-10-04")).text(), "drivers");
  assert.deepEqual(oneDay.slice(1), [["Ada Driver", "1", "3", "6", "2", "3.0", "6.0", "2.0"]]);
}, SYDNEY);

appTest("hq trends: the day summer time ends (25 hours) holds both its 00:30 and its 23:30", async (a) => {
  const driver = await makeUser(a.db, { role: "driver", name: "Cy Driver" });
  const beta = await shop(a, "Beta Smash");
  // 2027-04-04 runs from 2027-04-03T13:00Z (00:00 AEDT) to 2027-04-04T14:00Z (24:00 AEST).
  for (
    const at of [
      "2027-04-03T12:30:00Z", // 2027-04-03 23:30 AEDT
      "2027-04-03T13:30:00Z", // 2027-04-04 00:30 AEDT
      "2027-04-04T13:30:00Z", // 2027-04-04 23:30 AEST
      "2027-04-04T14:30:00Z", // 2027-04-05 00:30 AEST
    ]
  ) await movement(a, { driver: driver.id, at: beta, parts: 1, direct: at });
  const d = await signedIn(a, "dispatcher");
  const html = await (await d.get("/hq/trends?from=2027-04-03&to=2027-04-05")).text();
  assert.deepEqual(tableOf(html, "movements").slice(1).map((r) => [r[0], r[1]]), [
    ["2027-04-03", "1"],
    ["2027-04-04", "2"],
    ["2027-04-05", "1"],
  ]);
}, SYDNEY);

const T0 = Date.parse("2026-11-01T00:00:00Z");
const DAY = 86_400_000;

async function history(a: TestApp, partId: number, steps: [PartStatus, number][]) {
  let from: PartStatus | null = "Arrived";
  for (const [to, days] of steps) {
    await a.db.insertInto("part_status_history").values({
      part_id: partId,
      from_status: from,
      to_status: to,
      changed_at: new Date(T0 + days * DAY),
      via: "dashboard",
    }).execute();
    from = to;
  }
}

const cycle = (delivered: number, flagged: number, returned: number): [PartStatus, number][] => [
  ["Delivered to Repair Shop directly", delivered],
  ["Pending Repair Shop Pick-Up", flagged],
  ["Picked Up from Repair Shop", (flagged + returned) / 2],
  ["Returned to HQ", returned],
];

appTest(
  "hq trends: turnaround per shop, median and 90th percentile against a hand computation",
  async (a) => {
    const alpha = await shop(a, "Alpha Panels", 5);
    const beta = await shop(a, "Beta Smash", 3);
    // Alpha: at the shop 1, 2, 4, 10 days; back 0.5, 1, 2, 3; total 1.5, 3, 6, 13 (percentile_cont: the
    // median of four is halfway between the 2nd and 3rd, the 90th percentile 0.7 of the way from the 3rd
    // to the 4th): medians 3, 1.5, 4.5; 90th 4 + 0.7 × 6 = 8.2, 2 + 0.7 = 2.7, 6 + 0.7 × 7 = 10.9.
    await history(a, alpha.partIds[0], cycle(0, 2, 3));
    await history(a, alpha.partIds[1], cycle(0, 4, 6));
    await history(a, alpha.partIds[2], cycle(0, 1, 1.5));
    await history(a, alpha.partIds[3], cycle(0, 10, 13));
    // Back at HQ without being flagged (a dashboard change): not a cycle.
    await history(a, alpha.partIds[4], [["Delivered to Repair Shop directly", 1], ["Returned to HQ", 2]]);
    // Beta: one cycle (1, 1, 2); one part with a cycle before the range and one in it (2, 1, 3), which
    // counts from its latest delivery; one back before the range.
    await history(a, beta.partIds[0], cycle(0, 1, 2));
    await history(a, beta.partIds[1], [...cycle(-10, -8, -7), ...cycle(1, 3, 4)]);
    await history(a, beta.partIds[2], cycle(-20, -12, -9));
    const d = await signedIn(a, "dispatcher");
    const range = "from=2026-11-01&to=2026-11-30";
    const html = await (await d.get(`/hq/trends?${range}`)).text();
    assert.deepEqual(tableOf(html, "turnaround"), [
      [
        "Repair shop",
        "Parts",
        "Delivered to flagged, median",
        "Delivered to flagged, 90th percentile",
        "Flagged to back at HQ, median",
        "Flagged to back at HQ, 90th percentile",
        "Total, median",
        "Total, 90th percentile",
      ],
      ["Alpha Panels", "4", "3.0", "8.2", "1.5", "2.7", "4.5", "10.9"],
      ["Beta Smash", "2", "1.5", "1.9", "1.0", "1.0", "2.5", "2.9"],
    ]);
    await assertCsvIsTable(d, html, "turnaround", `/hq/trends/turnaround.csv?${range}`);
    assert.equal([...html.matchAll(/<rect /g)].length, 2 * 3, "a bar per shop and series");
    // A range ending before the returns: none.
    const before = await pageText(await d.get("/hq/trends?from=2026-09-01&to=2026-09-30"));
    assert.match(before, /No part came back to HQ in this range\./);
  },
);

appTest("hq trends: a name that starts like a formula stays text in the CSV", async (a) => {
  const driver = await makeUser(a.db, { role: "driver", name: "=HYPERLINK(1)" });
  await movement(a, {
    driver: driver.id,
    at: await shop(a, "Gamma"),
    parts: 1,
    direct: "2026-11-20T01:00:00Z",
  });
  const d = await signedIn(a, "dispatcher");
  const text = new TextDecoder().decode(await (await d.get("/hq/trends/drivers.csv")).arrayBuffer());
  assert.match(text, /\r\n'=HYPERLINK\(1\),1,1,1,1,1\.0,1\.0,1\.0\r\n$/);
});

appTest("hq trends: the range: 8 weeks to today by default, dates checked, at most 366 days", async (a) => {
  const d = await signedIn(a, "dispatcher");
  // The fake clock: 2026-11-21T09:00Z, 20:00 at the depot.
  const html = await (await d.get("/hq/trends")).text();
  assert.match(html, /name="from" value="2026-09-27"/);
  assert.match(html, /name="to" value="2026-11-21"/);
  assert.equal(tableOf(html, "movements").length, 1 + 56);
  assert.equal((await d.get("/hq/trends?from=2025-11-21&to=2026-11-21")).status, 200, "366 days");
  const refused = async (query: string, text: RegExp) => {
    for (const path of ["/hq/trends", "/hq/trends/movements.csv", "/hq/trends/drivers.csv"]) {
      assert.match(await pageText(await d.get(`${path}?${query}`), 400), text, `${path}?${query}`);
    }
  };
  await refused("from=2026-02-30", /from must be a date such as 2026-11-21/);
  await refused("to=yesterday", /to must be a date such as 2026-11-21/);
  await refused("from=2026-11-22&to=2026-11-21", /from must not be after to/);
  await refused("from=2025-11-20&to=2026-11-21", /to must be at most 366 days/);
  // `to` alone: the 8 weeks ending then.
  const earlier = await (await d.get("/hq/trends?to=2026-10-31")).text();
  assert.match(earlier, /name="from" value="2026-09-06"/);
}, SYDNEY);

appTest("hq trends: staff only", async (a) => {
  const driver = await signedIn(a, "driver");
  assert.equal((await driver.get("/hq/trends")).status, 403);
  assert.equal((await driver.get("/hq/trends/turnaround.csv")).status, 403);
  const admin = await signedIn(a, "admin");
  const html = await (await admin.get("/hq/trends")).text();
  assert.match(html, /<a href="\/hq\/trends" aria-current="page"/);
});
