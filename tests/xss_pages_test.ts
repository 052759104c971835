/**
 * Markup in stored text is shown as text on every page (docs/security.md "Controls and their tests"): a
 * claim, part, repairer, place and people whose every text field holds markup, made through the mobile
 * handler's drop-off so movements, history and announcements hold it too. Each staff and tablet page that
 * shows them must hold the markup escaped, never as elements; the islands' props are covered by
 * tests/islands_test.ts and the chat formats by tests/announcement_formats_test.ts.
 */
import assert from "node:assert/strict";
import { appTest } from "@/testkit/app.ts";
import { makeClaim, makeHq, makeRepairer, stagePhoto } from "@/testkit/factories.ts";
import { confirmed, dropOffPayload } from "@/testkit/movements.ts";
import { signedIn } from "@/tests/helpers/hq.ts";
import { makeDriver, Tablet } from "@/tests/helpers/tablet.ts";

const MARKUP = `<img src=x onerror=alert(1)>"><script>alert(2)</script>`;

/** The markup as elements or as an attribute break-out: what escaping must prevent. */
function assertNoLiveMarkup(html: string, where: string) {
  assert.ok(!html.includes("<img src=x"), `${where}: an img element from stored text`);
  assert.ok(!html.includes("<script>alert"), `${where}: a script element from stored text`);
  assert.ok(!html.includes(`"><script`), `${where}: an attribute break-out`);
}

appTest("xss: markup in every stored text field is escaped on staff and tablet pages", async (a) => {
  const shop = await makeRepairer(a.db, `Shop ${MARKUP}`);
  await makeHq(a.db, `HQ ${MARKUP}`);
  const driver = await makeDriver(a, { name: `Driver ${MARKUP}` });
  const { claim, parts } = await makeClaim(a.db, {
    registration: "XSS1",
    claimNumber: `CLM-${MARKUP}`,
    management: shop.id,
    parts: [{ status: "Arrived", part_no: `PN ${MARKUP}`, description: `Bumper ${MARKUP}` }],
  });
  const staged = await stagePhoto(a, {
    partId: parts[0].id,
    claimId: claim.id,
    stage: "direct_dropoff",
    userId: driver.id,
  });
  const answer = await a.call(
    dropOffPayload(driver.email, "XSS1", shop, confirmed([{ part: parts[0].id, image: staged.id }])),
  );
  assert.equal(answer.result.status, "success", JSON.stringify(answer));
  const movementId = Number(answer.result.data!.parts_movement_id);

  const admin = await signedIn(a, "admin");
  const staffPages = [
    "/hq/parts",
    `/hq/parts/${parts[0].id}`,
    "/hq/movements",
    `/hq/movements/${movementId}`,
    `/hq/claims/${encodeURIComponent(claim.claim_number)}`,
    `/hq/claims/${encodeURIComponent(claim.claim_number)}/labels`,
    `/hq/labels?part=${parts[0].id}&size=62mm`,
    "/hq/announcements",
    "/hq/admin/users",
    "/hq/admin/places",
  ];
  // Open trips (reverse pick-ups) would not list this direct drop-off: escaped, not necessarily shown.
  // Nor would the audit trail (no admin action was taken).
  for (const path of ["/hq/trips", "/hq/admin/audit"]) {
    const res = await admin.get(path);
    assert.equal(res.status, 200, path);
    assertNoLiveMarkup(await res.text(), path);
  }
  for (const path of staffPages) {
    const res = await admin.get(path);
    assert.equal(res.status, 200, path);
    const html = await res.text();
    assert.ok(html.includes("&lt;img src=x") || html.includes("&lt;script&gt;"), `${path} shows the text`);
    assertNoLiveMarkup(html, path);
  }

  const tablet = new Tablet(a);
  await tablet.signIn(driver);
  for (const path of ["/tablet", `/tablet/movements/${movementId}`]) {
    const res = await tablet.request(path);
    assert.equal(res.status, 200, path);
    assertNoLiveMarkup(await res.text(), path);
  }
});
