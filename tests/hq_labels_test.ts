/**
 * The label sheets (routes/hq/labels.tsx, docs/labels.md "Sheets and sizes"): a claim's labels and the parts
 * ticked on the parts list, one label per part with its code in text and a QR code drawn as SVG, in both
 * sizes; the claim page links to them and the parts list offers the ticks; refused queries are 400 pages.
 */
import assert from "node:assert/strict";
import { labelCode } from "@/lib/labels/code.ts";
import { ensureAssets } from "@/render/assets.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim } from "@/testkit/factories.ts";
import { signedIn, textOf } from "@/tests/helpers/hq.ts";

await ensureAssets({ log: () => {} });

async function claimWithParts(a: TestApp, count: number) {
  return await makeClaim(a.db, {
    registration: "LBL 042",
    claimNumber: "CLM-LBL/7",
    parts: Array.from({ length: count }, (_, i) => ({
      status: "Arrived" as const,
      part_no: `52119-0K${String(i).padStart(3, "0")}`,
      description: `Bumper cover, front <${i}> & clips`,
    })),
  });
}

/** The labels of a sheet: each label's part id, code text, and whether it holds a QR code's SVG. */
function labelsOf(html: string) {
  return [...html.matchAll(/<article class="label" data-part="(\d+)"[\s\S]*?<\/article>/g)].map((m) => ({
    part: Number(m[1]),
    code: /data-testid="label-code">([^<]+)</.exec(m[0])?.[1],
    qr: /<svg class="label-qr"[^>]*viewBox="0 0 29 29"[^>]*>.*<path d="M[\dM .hvHz]+"/.test(m[0]),
    text: textOf(m[0]),
  }));
}

appTest(
  "hq labels: a claim's sheet has one label per part: QR, code, part no, description, claim, rego",
  async (a) => {
    const { parts } = await claimWithParts(a, 3);
    const d = await signedIn(a, "dispatcher");
    const res = await d.get("/hq/claims/CLM-LBL%2F7/labels");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    const html = await res.text();
    const labels = labelsOf(html);
    assert.deepEqual(
      labels.map((l) => [l.part, l.code, l.qr]),
      parts.map((p) => [p.id, labelCode(p.id), true]),
    );
    assert.equal(
      labels[1].text,
      `${labelCode(parts[1].id)} 52119-0K001 Bumper cover, front <1> & clips Claim CLM-LBL/7 Rego LBL 042`,
    );
    assert.match(html, /<div class="label-sheet label-sheet-a4"><div class="label-page">/);
    assert.match(textOf(html), /3 labels\. For A4 sheets of 24 labels/);
    assert.match(html, /data-island="PrintButton"[^>]*>[\s\S]*?<button[^>]*>Print<\/button>/);
    assert.match(html, /href="\/hq\/claims\/CLM-LBL%2F7\/labels\?size=62mm"/);
    assert.doesNotMatch(html, /<header/, "no dashboard header on a sheet");

    const small = await (await d.get("/hq/claims/CLM-LBL%2F7/labels?size=62mm")).text();
    assert.match(small, /<div class="label-sheet label-sheet-62mm"><article class="label"/);
    assert.equal(labelsOf(small).length, 3);
    assert.match(textOf(small), /One 62 × 29 mm label a page/);
  },
);

appTest("hq labels: an A4 sheet holds 24 labels a page", async (a) => {
  await claimWithParts(a, 25);
  const d = await signedIn(a, "admin");
  const html = await (await d.get("/hq/claims/CLM-LBL%2F7/labels?size=a4")).text();
  const pages = html.split('<div class="label-page">').slice(1).map((p) => labelsOf(p).length);
  assert.deepEqual(pages, [24, 1]);
});

appTest("hq labels: the parts ticked on the list, in the order ticked, each once", async (a) => {
  const { parts } = await claimWithParts(a, 3);
  const other = await makeClaim(a.db, { parts: [{ status: "Ordered" }] });
  const d = await signedIn(a, "dispatcher");
  const ids = [parts[2].id, other.parts[0].id, parts[2].id, parts[0].id, 999_999];
  const res = await d.get(`/hq/labels?${ids.map((id) => `part=${id}`).join("&")}&size=62mm`);
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.deepEqual(labelsOf(html).map((l) => l.part), [parts[2].id, other.parts[0].id, parts[0].id]);
  assert.match(textOf(html), /Labels · 3 parts/);
  assert.match(html, /label-sheet-62mm/);
});

appTest(
  "hq labels: refused asks are 400 pages; an unknown claim or part is 404; a claim without parts, none",
  async (a) => {
    await claimWithParts(a, 1);
    const d = await signedIn(a, "dispatcher");
    const cases: [string, number, RegExp][] = [
      ["/hq/labels", 400, /part is required: tick the parts to label first/],
      ["/hq/labels?part=abc", 400, /part must be an ID/],
      [
        `/hq/labels?${Array.from({ length: 201 }, (_, i) => `part=${i + 1}`).join("&")}`,
        400,
        /at most 200 parts/,
      ],
      ["/hq/labels?part=1&size=a3", 400, /size must be one of a4, 62mm/],
      ["/hq/claims/CLM-LBL%2F7/labels?size=letter", 400, /size must be one of a4, 62mm/],
      ["/hq/labels?part=999999", 404, /This part does not exist/],
      ["/hq/claims/NOPE/labels", 404, /This claim does not exist/],
      ["/hq/claims/%00/labels", 404, /This claim does not exist/],
    ];
    await makeClaim(a.db, { claimNumber: "CLM-EMPTY", parts: [] });
    cases.push(["/hq/claims/CLM-EMPTY/labels", 200, /Labels · claim CLM-EMPTY.* 0 labels\./]);
    for (const [path, status, text] of cases) {
      const res = await d.get(path);
      assert.equal(res.status, status, path);
      assert.match(textOf(await res.text()), text, path);
    }
  },
);

appTest(
  "hq labels: the claim page links to its labels; the parts list ticks parts for a sheet",
  async (a) => {
    const { parts } = await claimWithParts(a, 2);
    const d = await signedIn(a, "dispatcher");
    const claim = await (await d.get("/hq/claims/CLM-LBL%2F7")).text();
    assert.match(claim, /<a [^>]*href="\/hq\/claims\/CLM-LBL%2F7\/labels"[^>]*>Labels<\/a>/);
    const list = await (await d.get("/hq/parts?claim=CLM-LBL")).text();
    for (const p of parts) {
      assert.match(
        list,
        new RegExp(
          `<input type="checkbox" name="part" value="${p.id}" form="labels-form" aria-label="Label for part ${p.part_no}"`,
        ),
      );
    }
    assert.match(list, /<form id="labels-form" method="get" action="\/hq\/labels"/);
    assert.match(list, /<option value="62mm">62 mm label printer<\/option>/);
    assert.match(list, /<button type="submit"[^>]*>Print labels<\/button>/);
  },
);
