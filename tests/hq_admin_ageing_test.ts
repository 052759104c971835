/**
 * `/hq/admin/ageing` (docs/overview.md "Ageing"): the five thresholds, set by an admin, each change audited
 * once; a value out of range, not whole, or bands that do not grow are refused (422) with nothing written.
 */
import assert from "node:assert/strict";
import { ageingThresholds, DEFAULT_AGEING_THRESHOLDS } from "@/lib/dashboard/ageing_thresholds.ts";
import { appTest } from "@/testkit/app.ts";
import { pageText, signedIn } from "@/tests/helpers/hq.ts";

const DEFAULTS = {
  held_band_1_days: "7",
  held_band_2_days: "14",
  held_band_3_days: "30",
  truck_hours: "24",
  return_waiting_days: "3",
};

const valueOf = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

appTest("admin ageing: the page shows the thresholds; saving two changes audits each once", async (a) => {
  const admin = await signedIn(a, "admin");
  const page = await admin.get("/hq/admin/ageing");
  const html = await page.text();
  assert.equal(page.status, 200);
  assert.match(
    html,
    /href="\/hq\/admin\/ageing"[^>]*aria-current="page"|aria-current="page"[^>]*href="\/hq\/admin\/ageing"/,
  );
  for (const [name, value] of Object.entries(DEFAULTS)) assert.equal(valueOf(html, name), value, name);

  const saved = await admin.post("/hq/admin/ageing", {
    ...DEFAULTS,
    held_band_3_days: "45",
    truck_hours: "36",
  });
  assert.equal(saved.status, 303);
  assert.equal(saved.headers.get("location"), "/hq/admin/ageing?done=saved");
  assert.deepEqual(await ageingThresholds(a.db), {
    ...DEFAULT_AGEING_THRESHOLDS,
    held_band_3_days: 45,
    truck_hours: 36,
  });
  const audit = await a.db.selectFrom("audit_log").select([
    "action",
    "subject",
    "before",
    "after",
    "actor_id",
  ])
    .orderBy("id").execute();
  assert.deepEqual(audit.map((e) => [e.action, e.subject, e.before, e.after, e.actor_id]), [
    ["ageing.threshold", "ageing_threshold:held_band_3_days", { key: "held_band_3_days", value: 30 }, {
      key: "held_band_3_days",
      value: 45,
    }, admin.user.id],
    ["ageing.threshold", "ageing_threshold:truck_hours", { key: "truck_hours", value: 24 }, {
      key: "truck_hours",
      value: 36,
    }, admin.user.id],
  ]);
  const after = await (await admin.get("/hq/admin/ageing?done=saved")).text();
  assert.match(after, /Ageing thresholds saved\./);
  assert.equal(valueOf(after, "held_band_3_days"), "45");

  // The same values again: nothing to audit.
  await admin.post("/hq/admin/ageing", { ...DEFAULTS, held_band_3_days: "45", truck_hours: "36" });
  assert.equal((await a.db.selectFrom("audit_log").select("id").execute()).length, 2);
});

appTest("admin ageing: bad values are refused (422) with their reason and nothing is written", async (a) => {
  const admin = await signedIn(a, "admin");
  const cases: [Record<string, string>, RegExp][] = [
    [{ truck_hours: "0" }, /On a truck for longer than: enter a whole number of hours from 1 to 3650\./],
    [{ truck_hours: "3651" }, /from 1 to 3650/],
    [
      { return_waiting_days: "2.5" },
      /Flagged for return and waiting longer than: enter a whole number of days/,
    ],
    [{ return_waiting_days: "" }, /whole number of days/],
    [{ held_band_1_days: "-3" }, /Held at a shop: first band: enter a whole number/],
    [{ held_band_2_days: "abc" }, /Held at a shop: second band/],
    [{ held_band_2_days: "7" }, /each band must be more days than the one before it/],
    [{ held_band_1_days: "20" }, /each band must be more days than the one before it/],
    [{ held_band_3_days: "10" }, /each band must be more days than the one before it/],
  ];
  for (const [change, reason] of cases) {
    const res = await admin.post("/hq/admin/ageing", { ...DEFAULTS, truck_hours: "30", ...change });
    const text = await pageText(res, 422);
    assert.match(text, reason, JSON.stringify(change));
    assert.match(text, /Nothing was changed\./);
  }
  assert.deepEqual(await ageingThresholds(a.db), DEFAULT_AGEING_THRESHOLDS);
  assert.equal((await a.db.selectFrom("audit_log").select("id").execute()).length, 0);
  assert.equal((await a.db.selectFrom("ageing_thresholds").select("key").execute()).length, 0);
});

appTest("admin ageing: dispatchers and drivers may not see or change it", async (a) => {
  for (const role of ["dispatcher", "driver"] as const) {
    const user = await signedIn(a, role);
    assert.equal((await user.get("/hq/admin/ageing")).status, 403);
    assert.equal((await user.post("/hq/admin/ageing", { ...DEFAULTS, truck_hours: "2" })).status, 403);
  }
  assert.equal((await ageingThresholds(a.db)).truck_hours, 24);
});
