/**
 * The repair shop's page (docs/shop-page.md) over HTTP on both databases: what it lists for its shop only
 * (with the delivery that brought each part and its photo), "Ready for collection" (history and audit naming
 * the shop, the handler's collect search then finds the parts), the refusals (nothing ticked, a part of
 * another shop, one moved meanwhile), replaced / turned-off / unknown links, "Report a problem" with a photo
 * and the dispatchers' queue; and, on the server, the shop racing a dispatcher for the same part.
 */
import assert from "node:assert/strict";
import type { PartStatus } from "@/db/schema.ts";
import type { TestApp } from "@/testkit/app.ts";
import { appTest, serverAppTest } from "@/testkit/app.ts";
import { makeClaim, makeRepairer, makeUser } from "@/testkit/factories.ts";
import { confirmed, dropOffPayload, flowSetup } from "@/testkit/movements.ts";
import { jpegPhoto, photoForm } from "@/testkit/photos.ts";
import { changeStatusByDispatcher } from "@/lib/part_status.ts";
import { announcementOf } from "@/db/queries/announcements.ts";
import { announcementText } from "@/lib/announcements/text.ts";
import { replaceShopLink, revokeShopLink, shopPageUrl } from "@/lib/shops/link.ts";
import { signedIn, withAssets } from "@/tests/helpers/hq.ts";

const AT_SHOP: PartStatus = "Delivered to Repair Shop directly";
const FLAGGED: PartStatus = "Pending Repair Shop Pick-Up";

/** A shop with two parts delivered by a real drop-off (with photos) and one waiting at HQ; its link's path. */
async function deliveredShop(a: TestApp) {
  await withAssets(); // the page is rendered with the built stylesheet
  const s = await flowSetup(a, {
    count: 2,
    status: "Arrived",
    stage: "direct_dropoff",
    registration: "SHOP1",
  });
  const answer = await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
  assert.equal(answer.code, 3000, JSON.stringify(answer));
  await a.db.insertInto("parts_orders").values({
    claim_id: s.claim.id,
    part_no: "WAY-1",
    description: "Bumper",
    qty_ordered: 1,
    status: "Arrived",
  }).execute();
  const url = (await shopPageUrl(a, s.shop.id))!;
  const path = new URL(url).pathname;
  return { ...s, path };
}

const get = async (a: TestApp, path: string): Promise<Response> => await a.app.request(path);
const post = async (a: TestApp, path: string, body: URLSearchParams | FormData): Promise<Response> =>
  await a.app.request(path, { method: "POST", body, headers: { origin: "http://localhost" } });

appTest(
  "shop page: lists its parts on the way, held (with the delivery and its photo) and nothing of others",
  async (a) => {
    const s = await deliveredShop(a);
    const other = await makeRepairer(a.db, "Other Panels");
    await makeClaim(a.db, {
      registration: "OTHER1",
      management: other.id,
      parts: [{ status: AT_SHOP, part_no: "NOT-OURS" }],
    });
    const res = await get(a, s.path);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-robots-tag"), "noindex, nofollow");
    // The path is the shop's secret: no other site is told it (the page links to none anyway).
    assert.equal(res.headers.get("referrer-policy"), "same-origin");
    assert.equal(res.headers.get("cache-control"), "no-store");
    const html = await res.text();
    assert.match(html, new RegExp(`<h1[^>]*>${s.shop.name}</h1>`));
    for (const p of s.parts) assert.match(html, new RegExp(`data-testid="shop-part-${p.part_no}"`));
    // Each checkbox joins the "Ready for collection" form by its `form` attribute (forms do not nest).
    assert.equal(
      html.match(/name="part" value="\d+" aria-label="[^"]+" form="ready-for-collection"/g)?.length,
      2,
    );
    assert.match(html, /WAY-1/);
    assert.doesNotMatch(html, /NOT-OURS/);
    assert.match(html, /Delivered [^<]* by /);
    const photo = /src="(\/shop\/[^"]+\/photos\/(\d+)\/thumb)"/.exec(html);
    assert.ok(photo, "the delivery photo is shown");
    assert.equal((await get(a, photo[1])).status, 200);
    // A photo of another shop's movement is not found through this link.
    const others = await a.db.selectFrom("photos").select("id").where("id", "<>", Number(photo[2])).execute();
    for (const o of others) {
      const used = await a.db.selectFrom("deliver_parts").select("id").where("delivery_photo_id", "=", o.id)
        .executeTakeFirst();
      if (!used) assert.equal((await get(a, `${s.path}/photos/${o.id}`)).status, 404);
    }
  },
);

appTest(
  "shop page: ready for collection flags the ticked parts, names the shop in history and audit",
  async (a) => {
    const s = await deliveredShop(a);
    const [first, second] = s.parts;
    const res = await post(a, `${s.path}/ready`, new URLSearchParams([["part", String(first.id)]]));
    assert.equal(res.status, 200);
    assert.match(await res.text(), new RegExp(`${first.part_no} is ready for collection`));
    const rows = await a.db.selectFrom("parts_orders").select(["id", "status"]).where("id", "in", [
      first.id,
      second.id,
    ])
      .orderBy("id").execute();
    assert.deepEqual(rows.map((r) => r.status), [FLAGGED, AT_SHOP]);
    const history = await a.db.selectFrom("part_status_history").selectAll().where("part_id", "=", first.id)
      .orderBy("id", "desc").executeTakeFirstOrThrow();
    assert.equal(history.via, "shop");
    assert.equal(history.changed_by_repairer_id, s.shop.id);
    assert.equal(history.changed_by, null);
    const audit = await a.db.selectFrom("audit_log").selectAll().where(
      "action",
      "=",
      "shop.ready_for_collection",
    )
      .executeTakeFirstOrThrow();
    assert.equal(audit.actor_repairer_id, s.shop.id);
    assert.equal(audit.claim_id, s.claim.id);
    // Announced in chat, about the claim (no movement), its link the claim's parts on the dashboard.
    const announced = await a.db.selectFrom("announcements").selectAll().where(
      "title",
      "=",
      "Ready For Collection",
    )
      .execute();
    assert.deepEqual(announced.map((r) => [r.channel, r.movement_id, r.return_request_id]), [[
      "parts_movement",
      null,
      null,
    ]]);
    const said = announcementText(announcementOf(announced[0]), a.config.depotTimeZone);
    assert.match(said, new RegExp(`^Ready For Collection: SHOP1\nRego: SHOP1\nReady at: ${s.shop.name}\n`));
    assert.match(said, new RegExp(`- ${first.part_no}`));
    assert.doesNotMatch(said, new RegExp(second.part_no));
    assert.ok(
      said.includes(
        `Parts: ${a.config.publicUrl}/hq/parts?claim=${encodeURIComponent(s.claim.claim_number)}`,
      ),
    );
    // The dashboard's part page names the shop as who made the change; the feed shows the announcement.
    const hq = await signedIn(a, "dispatcher");
    assert.match(await (await hq.get("/hq/announcements")).text(), /Ready For Collection/);
    assert.match(
      await (await hq.get(`/hq/parts/${first.id}`)).text(),
      new RegExp(`${s.shop.name} \\(shop page\\)`),
    );
    // The mobile app's reverse search (docs/protocol.md 1) now finds the part.
    const search = await a.call({
      event_type: "Parts_search_details",
      user_email: s.user.email,
      details: { rego: s.claim.registration, movement_type: "reverse" },
    });
    assert.match(JSON.stringify(search), new RegExp(first.part_no));
  },
);

appTest("shop page: refusals change nothing", async (a) => {
  const s = await deliveredShop(a);
  const before = await a.db.selectFrom("parts_orders").select(["id", "status"]).orderBy("id").execute();
  const none = await post(a, `${s.path}/ready`, new URLSearchParams());
  assert.equal(none.status, 422);
  assert.match(await none.text(), /Tick at least one part/);
  const other = await makeRepairer(a.db);
  const { parts } = await makeClaim(a.db, { management: other.id, parts: [{ status: AT_SHOP }] });
  const foreign = await post(a, `${s.path}/ready`, new URLSearchParams([["part", String(parts[0].id)]]));
  assert.equal(foreign.status, 422);
  assert.match(await foreign.text(), /None of these parts is at your shop/);
  const junk = await post(
    a,
    `${s.path}/ready`,
    new URLSearchParams([["part", "x'; drop table parts_orders;--"]]),
  );
  assert.equal(junk.status, 422);
  const cross = await a.app.request(`${s.path}/ready`, {
    method: "POST",
    body: new URLSearchParams([["part", String(s.parts[0].id)]]),
    headers: { origin: "https://evil.example" },
  });
  assert.equal(cross.status, 403);
  const after = await a.db.selectFrom("parts_orders").select(["id", "status"]).orderBy("id").execute();
  assert.deepEqual(after, [...before, { id: parts[0].id, status: AT_SHOP }]);
});

appTest(
  "shop page: a replaced link says so, a turned-off one too, an unknown one is not found",
  async (a) => {
    const s = await deliveredShop(a);
    const admin = await makeUser(a.db, { role: "admin" });
    const fresh = new URL(await replaceShopLink(a, admin.id, s.shop.id)).pathname;
    const old = await get(a, s.path);
    assert.equal(old.status, 410);
    assert.match(await old.text(), /This link was replaced/);
    assert.equal((await get(a, fresh)).status, 200);
    await revokeShopLink(a, admin.id, s.shop.id);
    const off = await get(a, fresh);
    assert.equal(off.status, 410);
    assert.match(await off.text(), /This link was turned off/);
    const unknown = await get(a, `/shop/${"A".repeat(43)}`);
    assert.equal(unknown.status, 404);
    assert.match(await unknown.text(), /This link does not work/);
    // Nothing can be done through an ended link.
    const late = await post(a, `${s.path}/ready`, new URLSearchParams([["part", String(s.parts[0].id)]]));
    assert.equal(late.status, 410);
    assert.equal(
      (await a.db.selectFrom("parts_orders").select("status").where("id", "=", s.parts[0].id)
        .executeTakeFirstOrThrow()).status,
      AT_SHOP,
    );
  },
);

appTest(
  "shop page: a problem report with a photo reaches the dispatchers, who mark it handled once",
  async (a) => {
    const s = await deliveredShop(a);
    const part = s.parts[1];
    const sent = await post(
      a,
      `${s.path}/problems`,
      new URLSearchParams({ part: String(part.id), reason: "damaged", note: "Cracked lens" }),
    );
    assert.equal(sent.status, 303);
    const at = sent.headers.get("location")!;
    const id = Number(/reported=(\d+)/.exec(at)![1]);
    assert.match(await (await get(a, at)).text(), /HQ has your report/);
    const photo = await post(a, `${s.path}/problems/${id}/photo`, photoForm(await jpegPhoto()));
    assert.equal(photo.status, 303, await photo.clone().text());
    const report = await a.db.selectFrom("shop_problem_reports").selectAll().where("id", "=", id)
      .executeTakeFirstOrThrow();
    assert.equal(report.reason, "damaged");
    assert.equal(report.note, "Cracked lens");
    assert.ok(report.photo_id);

    const bad = await post(
      a,
      `${s.path}/problems`,
      new URLSearchParams({ part: String(part.id), reason: "lost-at-sea" }),
    );
    assert.equal(bad.status, 422);

    const one = await signedIn(a, "dispatcher");
    const two = await signedIn(a, "dispatcher");
    const queue = await (await one.get("/hq/problem-reports")).text();
    assert.match(queue, new RegExp(`Problem report #${id}, ${part.part_no}`));
    assert.match(queue, /Cracked lens/);
    assert.match(queue, new RegExp(`/photos/${report.photo_id}/thumb`));
    assert.equal((await one.post(`/hq/problem-reports/${id}/resolve`)).status, 303);
    const again = await two.post(`/hq/problem-reports/${id}/resolve`);
    assert.equal(again.status, 422);
    assert.match(await again.text(), /already handled by/);
    // Handled: the shop can no longer add a photo to it.
    const late = await post(a, `${s.path}/problems/${id}/photo`, photoForm(await jpegPhoto()));
    assert.equal(late.status, 422);
  },
);

serverAppTest(
  "shop page: the shop and a dispatcher race for the same part: one change, one history row",
  async (a) => {
    for (let round = 0; round < 5; round++) {
      const s = await deliveredShop(a);
      const part = s.parts[0];
      const dispatcher = await makeUser(a.db, { role: "dispatcher" });
      // Both started before either is awaited: they race on the server.
      const shopCall: Promise<number | null> = post(
        a,
        `${s.path}/ready`,
        new URLSearchParams([["part", String(part.id)]]),
      )
        .then((r) => r.status, () => null);
      const deskCall: Promise<boolean> = changeStatusByDispatcher(a.db, a.clock, {
        partId: part.id,
        from: AT_SHOP,
        to: FLAGGED,
        userId: dispatcher.id,
      }).then(() => true, () => false);
      const shopAnswer: number | null = await shopCall;
      const deskWon: boolean = await deskCall;
      assert.equal(shopAnswer, 200, "the shop's side never fails: it flags or reads the part as waiting");
      const status = await a.db.selectFrom("parts_orders").select("status").where("id", "=", part.id)
        .executeTakeFirstOrThrow();
      assert.equal(status.status, FLAGGED);
      const rows = await a.db.selectFrom("part_status_history").select("via").where("part_id", "=", part.id)
        .where("to_status", "=", FLAGGED).execute();
      assert.equal(rows.length, 1, `round ${round}: exactly one of the two flagged it`);
      // The loser: the dispatcher's guard refused (raced), or the shop read it as already waiting.
      if (deskWon) assert.equal(rows[0].via, "dashboard");
      else assert.equal(rows[0].via, "shop");
    }
  },
  { poolSize: 4 },
);
