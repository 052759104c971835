/**
 * The run sheet's rules on the tablet (islands/_run_sheet.ts), over a fixture in the shape of
 * `GET /tablet/api/run-sheet`: movements saved on the tablet count as done, "Next claim" walks a stop's
 * claims, the kept copy's time reads on the depot's clock.
 */
import assert from "node:assert/strict";
import {
  asOfText,
  claimHref,
  claimsOf,
  isRunSheet,
  nextClaim,
  type RunSheet,
  type SheetStop,
  withSaved,
} from "@/islands/_run_sheet.ts";

function stop(over: Partial<SheetStop> = {}): SheetStop {
  return {
    repairerId: 3,
    name: "Southside Collision",
    address: "12 King St",
    phone: "0291234567",
    phoneHref: "tel:+61291234567",
    hours: "Mon–Fri 07:30–17:00",
    openNow: true,
    latitude: null,
    longitude: null,
    assignedTo: { id: 5, name: "Dana" },
    mine: true,
    deliver: [
      { claimNumber: "CLM-1", rego: "ABC123", parts: 2, done: false },
      { claimNumber: "CLM-2", rego: "DEF 456", parts: 1, done: true },
    ],
    collect: [{ claimNumber: "CLM-7", rego: "XYZ789", parts: 1, done: false }],
    done: 1,
    total: 3,
    ...over,
  };
}

const sheet = (): RunSheet => ({
  date: "2026-11-27",
  asOf: "2026-11-26T20:42:00.000Z",
  stops: [stop()],
  onTruck: [{ claimNumber: "CLM-9", rego: "GHI789", parts: 1, movementId: 12, from: "Shop A", mine: true }],
  needsHq: [{ claimNumber: "CLM-11", rego: "LOAN22", parts: 1, job: "deliver" }],
});

Deno.test("run sheet: movements saved on the tablet make their claim line done when they hold all its parts", () => {
  const saved = withSaved(sheet(), [
    { job: "collect", claimNumber: "CLM-7", parts: 1 },
    // Already done on the server: not counted again.
    { job: "deliver", claimNumber: "CLM-2", parts: 1 },
    // One part of two: said, still to do.
    { job: "deliver", claimNumber: "CLM-1", parts: 1 },
    // The same claim on another job does not touch the delivery.
    { job: "collect", claimNumber: "CLM-1", parts: 5 },
    { job: "return", claimNumber: "CLM-9", parts: 1 },
  ]);
  const s = saved.stops[0];
  assert.deepEqual(claimsOf(s).map((l) => [l.rego, l.done, l.saved]), [
    ["ABC123", false, 1],
    ["DEF 456", true, undefined],
    ["XYZ789", true, 1],
  ]);
  assert.equal(s.done, 2);
  assert.equal(s.total, 3);
  assert.equal(saved.onTruck[0].saved, 1);
  // The rest of the delivery saved too (two movements): done.
  const both = withSaved(sheet(), [
    { job: "deliver", claimNumber: "CLM-1", parts: 1 },
    { job: "deliver", claimNumber: "CLM-1", parts: 1 },
  ]).stops[0];
  assert.deepEqual([both.deliver[0].done, both.done], [true, 2]);
  // Nothing saved: the server's sheet as it is, and the input is never changed.
  assert.deepEqual(withSaved(sheet(), []), sheet());
  assert.equal(sheet().stops[0].done, 1);
});

Deno.test("run sheet: Next claim is the stop's next claim not done, wrapping round, never the one on screen", () => {
  const s = stop();
  assert.equal(nextClaim(s)?.rego, "ABC123");
  // On ABC123 (delivery): DEF 456 is done, so the collection is next.
  assert.deepEqual(nextClaim(s, { job: "deliver", rego: "abc 123" }), {
    claimNumber: "CLM-7",
    rego: "XYZ789",
    parts: 1,
    done: false,
    job: "collect",
  });
  // On the last claim: round to the first not done.
  assert.equal(nextClaim(s, { job: "collect", rego: "XYZ789" })?.rego, "ABC123");
  // The same rego on another job is another claim line.
  assert.equal(nextClaim(s, { job: "collect", rego: "ABC123" })?.rego, "ABC123");
  // Everything else done: none.
  const saved =
    withSaved({ ...sheet(), stops: [s] }, [{ job: "collect", claimNumber: "CLM-7", parts: 1 }]).stops[0];
  assert.equal(nextClaim(saved, { job: "deliver", rego: "ABC123" }), null);
});

Deno.test("run sheet: a claim opens its job with the rego searched and the stop kept", () => {
  assert.equal(claimHref("collect", "XYZ 789", 3), "/tablet/collect?rego=XYZ%20789&stop=3");
  assert.equal(claimHref("return", "A&B"), "/tablet/return?rego=A%26B");
});

Deno.test("run sheet: the copy's time reads on the depot's clock, with the date when it is not today", () => {
  const now = new Date("2026-11-26T22:00:00.000Z"); // 09:00 on the 27th in Sydney
  assert.equal(asOfText("2026-11-26T20:42:00.000Z", "Australia/Sydney", now), "as of 07:42");
  assert.equal(asOfText("2026-11-26T20:42:00.000Z", "UTC", now), "as of 20:42");
  assert.equal(
    asOfText("2026-11-25T20:42:00.000Z", "Australia/Sydney", now),
    "as of 2026-11-26 07:42",
  );
  assert.equal(asOfText("not a time", "UTC", now), "");
});

Deno.test("run sheet: a kept or fetched value of another shape is not taken for a sheet", () => {
  assert.equal(isRunSheet(sheet()), true);
  for (const bad of [null, "x", {}, { ...sheet(), stops: "no" }, { ...sheet(), asOf: 1 }]) {
    assert.equal(isRunSheet(bad), false);
  }
});

Deno.test("run sheet: each stop a list item with its shop, address, phone and hours; each claim a link by rego", async () => {
  const { h } = await import("preact");
  const { renderToString } = await import("preact-render-to-string");
  const { RunSheetView } = await import("@/islands/TabletRunSheet.tsx");
  const now = new Date("2026-11-26T22:00:00.000Z");
  const shown = withSaved(sheet(), [{ job: "collect", claimNumber: "CLM-7", parts: 1 }]);
  const html = renderToString(
    h(RunSheetView, {
      sheet: shown,
      offline: true,
      error: null,
      settled: true,
      userId: 5,
      timeZone: "Australia/Sydney",
      now,
    }),
  );
  const stopItem = /<li[^>]*data-testid="stop-3"[^>]*>(.*?)<\/li><\/ol>/s.exec(html)?.[1] ?? "";
  for (
    const text of ["Southside Collision", "12 King St", "Mon–Fri 07:30–17:00", "Open now", "2 of 3 done"]
  ) {
    assert.ok(stopItem.includes(text), `the stop shows ${text}`);
  }
  assert.match(stopItem, /href="tel:\+61291234567"/);
  assert.match(stopItem, /href="\/tablet\/deliver\?rego=ABC123&amp;stop=3"[^>]*>.*?ABC123.*?2 parts/s);
  assert.match(
    stopItem,
    /href="\/tablet\/collect\?rego=XYZ789&amp;stop=3"[^>]*data-done[ >].*?saved on this tablet/s,
  );
  // On the truck and Needs HQ are shown, never dropped; the copy says its time and that it is a copy.
  assert.match(html, /On the truck for HQ.*href="\/tablet\/return\?rego=GHI789"/s);
  assert.match(html, /Needs HQ.*LOAN22.*CLM-11/s);
  assert.match(html, /as of 07:42 · saved on this tablet, no network/);
});

Deno.test("run sheet: the copy and the searches kept on a shared tablet are per driver", async () => {
  const { keepFound, keepSheet, keptFound, keptSheet } = await import("@/islands/_run_sheet.ts");
  localStorage.clear();
  keepSheet(5, sheet());
  keepFound(5, new Map([["collect:XYZ789", { claim_number: "CLM-7" }]]), "[]");
  assert.deepEqual(keptSheet(5), sheet());
  assert.deepEqual(keptFound(5, "collect", "xyz 789"), { claim_number: "CLM-7" });
  // Another driver signed in on the same tablet reads none of it.
  assert.equal(keptSheet(6), null);
  assert.equal(keptFound(6, "collect", "XYZ789"), null);
  localStorage.clear();
});
