import assert from "node:assert/strict";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { parseCsv } from "@/io/csv.ts";
import { pageText, signedIn } from "@/tests/helpers/hq.ts";
import { confirmed, dropOffPayload, flowSetup } from "@/testkit/movements.ts";
import { MOVEMENT_HEADER } from "@/lib/dashboard/exports.ts";

/**
 * Three direct movements around the depot's midnight of 2026-11-22 in Sydney (AEDT, +11:00: it starts at
 * 2026-11-21T13:00Z): one a minute before, one a minute after, one the next evening. In UTC the first two
 * are the same day, so a list that used UTC days would put them together.
 */
async function aroundMidnight(a: TestApp) {
  const times = ["2026-11-21T12:59:00Z", "2026-11-21T13:01:00Z", "2026-11-22T10:00:00Z"];
  const regos: string[] = [];
  for (const [i, at] of times.entries()) {
    const rego = `MID ${i + 1}`;
    const s = await flowSetup(a, { status: "Arrived", stage: "direct_dropoff", registration: rego });
    const res = await a.call(dropOffPayload(s.user.email, rego, s.shop, confirmed(s.pairs)));
    assert.equal(res.result.status, "success", JSON.stringify(res));
    const id = res.result.data!.parts_movement_id as number;
    await a.db.updateTable("parts_movements").set({ pick_up_at: at, dropped_off_at: at }).where("id", "=", id)
      .execute();
    regos.push(rego);
  }
  // Now: 13:00 on 2026-11-22 at the depot (02:00Z), so "today" is the 22nd and "yesterday" the 21st.
  a.clock.advance(new Date("2026-11-22T02:00:00Z").getTime() - a.clock.now().getTime());
  return regos;
}

const SYDNEY = { config: { depotTimeZone: "Australia/Sydney" } };

appTest("hq movements: today, yesterday and a range of the depot's days, kept in the URL", async (a) => {
  await aroundMidnight(a);
  let d = await signedIn(a, "dispatcher");
  const shown = async (query: string) => {
    const text = await pageText(await d.get(`/hq/movements?${query}`));
    return ["MID 1", "MID 2", "MID 3"].filter((r) => text.includes(r));
  };
  assert.deepEqual(await shown(""), ["MID 1", "MID 2", "MID 3"]);
  assert.deepEqual(await shown("range=today"), ["MID 2", "MID 3"]);
  assert.deepEqual(await shown("range=yesterday"), ["MID 1"]);
  assert.deepEqual(await shown("range=custom&from=2026-11-21&to=2026-11-21"), ["MID 1"]);
  assert.deepEqual(await shown("range=custom&from=2026-11-22&to=2026-11-22"), ["MID 2", "MID 3"]);
  assert.deepEqual(await shown("range=custom&from=2026-11-22"), ["MID 2", "MID 3"]);
  assert.deepEqual(await shown("range=custom&to=2026-11-21"), ["MID 1"]);
  // Dates typed with "Any time" left selected are a range; with "today" they are dropped.
  assert.deepEqual(await shown("range=&from=2026-11-21&to=2026-11-21"), ["MID 1"]);
  assert.deepEqual(await shown("range=today&from=2020-01-01&to=2020-01-01"), ["MID 2", "MID 3"]);
  // With the other filters and a sort that otherwise walks the drivers.
  assert.deepEqual(await shown("range=today&type=direct&sort=driver"), ["MID 2", "MID 3"]);

  // Kept in the form, the paging and the export link; the clock moving on moves "today" with it.
  const html = await (await d.get("/hq/movements?range=custom&from=2026-11-21&to=2026-11-22")).text();
  assert.match(html, /<option value="custom" selected>/);
  assert.match(html, /name="from" value="2026-11-21"/);
  assert.match(html, /name="to" value="2026-11-22"/);
  assert.match(
    html,
    /href="\/hq\/exports\/movements\.csv\?range=custom&amp;from=2026-11-21&amp;to=2026-11-22"/,
  );
  const today = await (await d.get("/hq/movements?range=today&from=2026-11-21")).text();
  assert.match(today, /href="\/hq\/exports\/movements\.csv\?range=today"/);
  a.clock.advance(24 * 3600_000);
  d = await signedIn(a, "dispatcher", d.user);
  assert.deepEqual(await shown("range=yesterday"), ["MID 2", "MID 3"]);
  assert.deepEqual(await shown("range=today"), []);
}, SYDNEY);

appTest(
  "hq movements: a date that is not one, an unknown range or from after to is refused with its reason",
  async (a) => {
    await aroundMidnight(a);
    const d = await signedIn(a, "dispatcher");
    const refusals: [string, RegExp][] = [
      ["range=week", /range must be one of today, yesterday, custom\./],
      ["range=custom&from=2026-02-30", /from must be a date such as 2026-11-21\./],
      ["range=custom&to=21/11/2026", /to must be a date such as 2026-11-21\./],
      ["from=2026-11-21T00:00", /from must be a date such as 2026-11-21\./],
      ["from=0001-01-01", /from must be a date such as 2026-11-21\./],
      ["from=99999-01-01", /from must be a date such as 2026-11-21\./],
      ["range=custom&from=2026-11-22&to=2026-11-21", /from must not be after to\./],
    ];
    for (const [query, reason] of refusals) {
      for (const path of ["/hq/movements", "/hq/exports/movements.csv"]) {
        const text = await pageText(await d.get(`${path}?${query}`), 400);
        assert.match(text, /Invalid search Invalid request: /, `${path}?${query}`);
        assert.match(text, reason, `${path}?${query}`);
      }
    }
  },
  SYDNEY,
);

appTest("hq exports: the movements CSV takes the same ranges of the depot's days", async (a) => {
  await aroundMidnight(a);
  const d = await signedIn(a, "dispatcher");
  const regosOf = async (query: string) => {
    const res = await d.get(`/hq/exports/movements.csv?${query}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/csv; charset=utf-8");
    // Named after the depot's day (the 22nd at the depot, the 22nd in UTC too at 02:00Z).
    assert.match(res.headers.get("content-disposition") ?? "", /filename="movements-2026-11-22\.csv"/);
    const [header, ...rows] = parseCsv((await res.text()).replace(/^\uFEFF/, ""));
    assert.deepEqual(header, MOVEMENT_HEADER);
    return rows.map((r) => r[MOVEMENT_HEADER.indexOf("Rego")]);
  };
  assert.deepEqual(await regosOf(""), ["MID 1", "MID 2", "MID 3"]);
  assert.deepEqual(await regosOf("range=yesterday"), ["MID 1"]);
  assert.deepEqual(await regosOf("range=today"), ["MID 2", "MID 3"]);
  assert.deepEqual(await regosOf("range=custom&from=2026-11-22&to=2026-11-22&type=direct"), [
    "MID 2",
    "MID 3",
  ]);
  // Times in the file are the depot's: the first movement was at 23:59 on the 21st there.
  const csv = await (await d.get("/hq/exports/movements.csv?range=yesterday")).text();
  assert.match(csv, /2026-11-21T23:59:00\.000\+11:00/);
  // The exports page offers the range.
  const page = await (await d.get("/hq/exports")).text();
  assert.match(page, /<select[^>]*name="range"/);
  assert.match(page, /<input[^>]*type="date" name="from"/);
}, SYDNEY);
