/**
 * Keyset paging of the dashboard's lists: walking "Next" from the first page to the last
 * shows every row exactly once in the list's order, under every sort, across ties (equal values, timestamps
 * equal to the millisecond and apart by microseconds, nulls), and walking "Previous" back shows the same
 * pages; a forged, stale or mismatched cursor is refused with the 400 page, never a 500; old `?page=N`
 * links show the first page. Runs on PGlite and, with TEST_DATABASE_URL, on the PostgreSQL server.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { sql } from "kysely";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeHq, makeRepairer, makeUser } from "@/testkit/factories.ts";
import { type HqClient, pageText, signedIn } from "@/tests/helpers/hq.ts";
import { PART_SORTS } from "@/db/queries/parts.ts";
import { MOVEMENT_SORTS } from "@/db/queries/movement_reads.ts";
import { PAGE_SIZE } from "@/lib/dashboard/lists.ts";

const link = (html: string, rel: "next" | "prev") =>
  html.match(new RegExp(`href="([^"]*)" rel="${rel}"`))?.[1]?.replaceAll("&amp;", "&");

/** The pages of a list from `path` following `rel` links to the end: each page's ids, and its links. */
async function walk(d: HqClient, path: string, attr: string, rel: "next" | "prev") {
  const pages: { ids: number[]; next?: string; prev?: string }[] = [];
  for (let at: string | undefined = path; at;) {
    const res = await d.get(at);
    assert.equal(res.status, 200, at);
    const html = await res.text();
    const ids = [...html.matchAll(new RegExp(`data-${attr}="(\\d+)"`, "g"))].map((m) => Number(m[1]));
    pages.push({ ids, next: link(html, "next"), prev: link(html, "prev") });
    at = link(html, rel);
    assert.ok(pages.length < 20, `${path}: the walk ends`);
  }
  return pages;
}

const cursor = (value: unknown[]) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** Walks forward, then back from the last page: every row once, the same pages both ways. */
async function assertWalk(d: HqClient, path: string, attr: string, all: number[]) {
  const forward = await walk(d, path, attr, "next");
  const seen = forward.flatMap((p) => p.ids);
  assert.equal(seen.length, all.length, `${path}: every row once (no repeat)`);
  assert.deepEqual(
    [...seen].sort((x, y) => x - y),
    [...all].sort((x, y) => x - y),
    `${path}: no row skipped`,
  );
  for (const p of forward.slice(0, -1)) assert.equal(p.ids.length, PAGE_SIZE, `${path}: full pages`);
  assert.equal(forward[0].prev, undefined, `${path}: no Previous on the first page`);
  const last = forward.at(-1)!;
  assert.equal(last.next, undefined, `${path}: no Next on the last page`);
  const backward = await walk(d, last.prev!, attr, "prev");
  assert.deepEqual(
    backward.map((p) => p.ids).reverse(),
    forward.slice(0, -1).map((p) => p.ids),
    `${path}: Previous shows the same pages`,
  );
  return seen;
}

/** 60 parts on three claims (two without a repair shop): ties in every column, microsecond-apart times. */
async function manyParts(a: TestApp) {
  const shop = await makeRepairer(a.db, "SHOP-PAGING");
  const ids: number[] = [];
  for (const [c, claimNumber] of ["CLM-P1", "CLM-P2", "CLM-P3"].entries()) {
    const { parts } = await makeClaim(a.db, {
      claimNumber,
      registration: `REG-${c}`,
      management: c === 0 ? shop.id : false,
      parts: Array.from({ length: 20 }, (_, i) => ({
        status: i % 2 ? "Arrived" as const : "Ordered" as const,
        part_no: `PN-${i % 4}-${i}`, // the same numbers on each claim: ties across claims
        description: `DESC-${i % 3}`,
        qty: 1 + (i % 2),
      })),
    });
    ids.push(...parts.map((p) => p.id));
  }
  // Three times for 60 parts: equal in milliseconds, two apart by one microsecond only.
  await sql`update parts_orders set updated_at = case id % 3
    when 0 then '2026-11-20T12:00:00.000001Z'::timestamptz when 1 then '2026-11-20T12:00:00.000002Z'::timestamptz
    else '2026-11-20T12:00:00Z'::timestamptz end`.execute(a.db);
  return ids;
}

appTest(
  "hq paging: Next then Previous visits every part exactly once under every sort, across ties",
  async (a) => {
    const ids = await manyParts(a);
    const d = await signedIn(a, "dispatcher");
    for (const column of PART_SORTS) {
      for (const dir of ["asc", "desc"]) {
        await assertWalk(
          d,
          `/hq/parts?sort=${column}&dir=${dir}`,
          "part",
          ids,
        );
      }
    }
    // The default order (newest change first, then id): the microsecond ties sort as they are stored.
    const seen = await assertWalk(d, "/hq/parts", "part", ids);
    const stamp = (id: number) => [1, 2, 0][id % 3];
    const expected = [...ids].sort((x, y) => stamp(y) - stamp(x) || y - x);
    assert.deepEqual(seen, expected, "default order: time desc, then id desc, microseconds kept");
    // Filters and the order ride along on the links.
    const filtered = await assertWalk(
      d,
      "/hq/parts?status=Arrived&sort=qty&dir=desc",
      "part",
      ids.filter((_, i) => i % 2),
    );
    assert.equal(filtered.length, 30);
    const html = await (await d.get("/hq/parts?status=Arrived&sort=qty&dir=desc")).text();
    assert.match(link(html, "next")!, /^\/hq\/parts\?status=Arrived&sort=qty&dir=desc&after=[\w-]+$/);
  },
);

appTest(
  "hq paging: the movements list walks every movement once, nulls and equal times included",
  async (a) => {
    const hq = await makeHq(a.db, "HQ-PAGING");
    const shop = await makeRepairer(a.db, "SHOP-MOVES");
    // Three drivers, two of them with the same name (the driver sort walks users: a tie across users),
    // and part counts with ties (the stored part_count).
    const drivers = await Promise.all(
      ["DRIVER-PAGING-B", "DRIVER-PAGING-A", "DRIVER-PAGING-B"].map((name) => makeUser(a.db, { name })),
    );
    const at = new Date(Date.UTC(2026, 10, 20, 8));
    const ids: number[] = [];
    for (let i = 0; i < 55; i++) {
      const { claim } = await makeClaim(a.db, {
        registration: `REG-M${i % 5}`,
        parts: [{ status: "Arrived" }],
      });
      const direct = i % 3 === 0;
      const open = !direct && i % 2 === 0;
      const m = await a.db.insertInto("parts_movements").values({
        claim_id: claim.id,
        movement_type: direct ? "direct" : "reverse",
        movement_status: open ? "Parts Picked Up" : "Parts Dropped off",
        picked_up_by: drivers[i % 3].id,
        pick_up_at: at,
        dropped_off_by: open ? null : drivers[i % 3].id,
        dropped_off_at: open ? null : at,
        repairer_id: direct ? shop.id : null,
        location_type: direct ? null : "HQ",
        hq_location_id: direct ? null : hq.id,
        part_count: i % 4,
      }).returning("id").executeTakeFirstOrThrow();
      ids.push(m.id);
    }
    const d = await signedIn(a, "dispatcher");
    for (const column of MOVEMENT_SORTS) {
      for (const dir of ["asc", "desc"]) {
        await assertWalk(d, `/hq/movements?sort=${column}&dir=${dir}`, "movement", ids);
      }
    }
    await assertWalk(d, "/hq/movements", "movement", ids);
    // The walked driver sort keeps the list's meaning: name, then movement id, across the two namesakes.
    const byDriver = await assertWalk(d, "/hq/movements?sort=driver&dir=desc", "movement", ids);
    const nameOf = (id: number) => drivers[ids.indexOf(id) % 3].name;
    assert.deepEqual(
      byDriver,
      [...ids].sort((x, y) => nameOf(y).localeCompare(nameOf(x)) || y - x),
      "driver desc: name, then id",
    );
    const byCount = await assertWalk(d, "/hq/movements?sort=parts", "movement", ids);
    assert.deepEqual(byCount, [...ids].sort((x, y) => ids.indexOf(x) % 4 - ids.indexOf(y) % 4 || x - y));
    // Filters apply inside the walk: the return trips by driver, every one once.
    await assertWalk(
      d,
      "/hq/movements?type=reverse&sort=driver",
      "movement",
      ids.filter((_, i) => i % 3 !== 0),
    );
    // Under a status filter the driver sort sorts the filtered rows instead of walking: the same walk.
    await assertWalk(
      d,
      "/hq/movements?status=Parts+Dropped+off&sort=driver&dir=desc",
      "movement",
      ids.filter((_, i) => i % 3 === 0 || i % 2 !== 0),
    );
    // A driver cursor past every name is the end of the list, not an error.
    const end = await d.get(`/hq/movements?sort=driver&after=${cursor(["driver", "asc", "ZZZ", 1])}`);
    assert.equal(end.status, 200);
    assert.doesNotMatch(await end.text(), /data-movement="/);
  },
);

/**
 * Four claims: two with a shop (named against their ids' order), one whose management record names none,
 * one with no record; a third shop with no rows. Parts made claim by claim, then more on the claim whose
 * record names no shop (ids after the last claim's: the order puts them with their claim, before it).
 */
async function shopClaims(a: TestApp) {
  const [shopY, shopX] = await Promise.all(["SHOP-WALK-Y", "SHOP-WALK-X"].map((n) => makeRepairer(a.db, n)));
  await makeRepairer(a.db, "SHOP-WALK-Z"); // no claim, no movement: an empty entity of the walk
  const claims: {
    claim: { id: number };
    parts: { id: number }[];
    shop: string | null;
    shopId: number | null;
  }[] = [];
  for (const management of [shopY.id, shopX.id, null, false as const]) {
    const { claim, parts } = await makeClaim(a.db, {
      management,
      parts: Array.from({ length: 12 }, () => ({ status: "Arrived" as const })),
    });
    claims.push({
      claim,
      parts,
      shop: management === shopY.id ? shopY.name : management ? shopX.name : null,
      shopId: management || null,
    });
  }
  const late = await a.db.insertInto("parts_orders").values(
    Array.from({ length: 6 }, (_, i) => ({
      claim_id: claims[2].claim.id,
      part_no: `PN-LATE-${i}`,
      description: "late",
      qty_ordered: 1,
      status: "Ordered" as const,
    })),
  ).returning("id").execute();
  claims[2].parts.push(...late);
  return { claims, shopX, shopY };
}

/** Ids in (name nulls last, claim, id) order: the parts' repair-shop order (claim 0 for the movements' place). */
function byShopThenClaim(rows: { id: number; shop: string | null; claim: number }[]): number[] {
  return [...rows].sort((x, y) => {
    if (x.shop !== y.shop) {
      if (x.shop === null) return 1;
      if (y.shop === null) return -1;
      return x.shop < y.shop ? -1 : 1;
    }
    return x.claim - y.claim || x.id - y.id;
  }).map((r) => r.id);
}

appTest(
  "hq paging: parts by repair shop walk the shops: name, then claim, then id, none last; place: name, id",
  async (a) => {
    const { claims, shopX, shopY } = await shopClaims(a);
    const d = await signedIn(a, "dispatcher");
    const parts = claims.flatMap((c) => c.parts.map((p) => ({ id: p.id, shop: c.shop, claim: c.claim.id })));
    const partsAsc = byShopThenClaim(parts);
    assert.notDeepEqual(partsAsc, byShopThenClaim(parts.map((p) => ({ ...p, claim: 0 }))), "the tie shows");
    const ids = parts.map((p) => p.id);
    assert.deepEqual(await assertWalk(d, "/hq/parts?sort=repairer", "part", ids), partsAsc);
    assert.deepEqual(
      await assertWalk(d, "/hq/parts?sort=repairer&dir=desc", "part", ids),
      partsAsc.toReversed(),
    );
    // Under a shop filter the walk reads that shop's range only.
    const ofY = claims[0].parts.map((p) => p.id);
    assert.deepEqual(
      await assertWalk(d, `/hq/parts?repairer=${claims[0].shopId}&sort=repairer&dir=desc`, "part", ofY),
      ofY.toReversed(),
    );
    // Under a status filter the list sorts the matching parts (no walk): the late ones, all without a shop.
    const ordered = claims[2].parts.slice(12).map((p) => p.id);
    assert.deepEqual(
      await assertWalk(d, "/hq/parts?status=Ordered&sort=repairer&dir=desc", "part", ordered),
      ordered.toReversed(),
    );

    // Movements: deliveries record their shop (X on shop Y's claim, Y on X's), return trips take their
    // claim's (none on the last two claims), made round-robin so ids interleave across claims.
    const hq = await makeHq(a.db, "HQ-WALK");
    const driver = await makeUser(a.db, { name: "DRIVER-WALK" });
    const at = new Date(Date.UTC(2026, 10, 20, 8));
    const moves: { id: number; shop: string | null; claim: number }[] = [];
    for (let i = 0; i < 44; i++) {
      const c = claims[i % 4];
      const direct = i % 4 < 2 && i % 3 === 0;
      const own = direct ? (c.shop === shopY.name ? shopX : shopY) : null;
      const m = await a.db.insertInto("parts_movements").values({
        claim_id: c.claim.id,
        movement_type: direct ? "direct" : "reverse",
        movement_status: "Parts Dropped off",
        picked_up_by: driver.id,
        pick_up_at: at,
        dropped_off_by: driver.id,
        dropped_off_at: at,
        repairer_id: own?.id ?? null,
        location_type: direct ? null : "HQ",
        hq_location_id: direct ? null : hq.id,
      }).returning("id").executeTakeFirstOrThrow();
      moves.push({ id: m.id, shop: own?.name ?? c.shop, claim: c.claim.id });
    }
    const moveIds = moves.map((m) => m.id);
    // The place sort is not walked: name, then movement id, nulls last, as before.
    const movesAsc = byShopThenClaim(moves.map((m) => ({ ...m, claim: 0 })));
    assert.ok(moves.some((m) => m.shop === null), "movements without a place");
    assert.deepEqual(await assertWalk(d, "/hq/movements?sort=place", "movement", moveIds), movesAsc);
    assert.deepEqual(
      await assertWalk(d, "/hq/movements?sort=place&dir=desc", "movement", moveIds),
      movesAsc.toReversed(),
    );
    // A type filter: only return trips, the same order.
    const trips = moves.filter((_, i) => !(i % 4 < 2 && i % 3 === 0));
    assert.deepEqual(
      await assertWalk(d, "/hq/movements?type=reverse&sort=place", "movement", trips.map((m) => m.id)),
      byShopThenClaim(trips.map((m) => ({ ...m, claim: 0 }))),
    );
    // A cursor in the rows without a place, and one past every name: pages, not errors.
    const last = movesAsc.at(-1)!;
    const nulls = await d.get(`/hq/movements?sort=place&before=${cursor(["place", "asc", null, last])}`);
    assert.equal(nulls.status, 200);
    const end = await d.get(`/hq/parts?sort=repairer&after=${cursor(["repairer", "asc", "ZZZ", 1])}`);
    assert.equal(
      [...(await end.text()).matchAll(/data-part="(\d+)"/g)].length,
      PAGE_SIZE,
      "the parts with none",
    );
  },
);

appTest(
  "hq paging: a bad, forged or mismatched cursor is refused (400); an old ?page= shows page one",
  async (a) => {
    const ids = await manyParts(a);
    const d = await signedIn(a, "dispatcher");
    const first = await (await d.get("/hq/parts?sort=qty")).text();
    const next = link(first, "next")!;
    const after = new URL(next, "http://x").searchParams.get("after")!;
    for (
      const path of [
        "/hq/parts?after=not-a-cursor",
        "/hq/parts?after=",
        `/hq/parts?after=${cursor(["qty", "asc", "1", 5])}`, // made for ?sort=qty, used without it
        `/hq/parts?sort=qty&dir=desc&after=${after}`, // another direction
        `/hq/parts?sort=part_no&after=${after}`, // another column
        `/hq/parts?sort=qty&after=${cursor(["qty", "asc", "one", 5])}`, // not a number
        `/hq/parts?after=${cursor(["since", "desc", "2026-13-45T99:00:00.000000Z", 5])}`, // not a time
        `/hq/parts?after=${cursor(["since", "desc", "yesterday", 5])}`,
        `/hq/parts?sort=qty&after=${cursor(["qty", "asc", "1", 0])}`, // not an id
        `/hq/parts?sort=qty&after=${cursor(["qty", "asc", "1"])}`,
        `/hq/parts?sort=qty&after=${after}&before=${after}`,
        `/hq/movements?after=${after}`,
        `/hq/movements?before=${cursor(["picked_up", "desc", "x", 1])}`,
        `/hq/movements?sort=parts&after=${cursor(["parts", "asc", "many", 1])}`, // not a number
        `/hq/movements?sort=driver&after=${cursor(["driver", "asc", 7, 1])}`, // a name is text
      ]
    ) {
      const text = await pageText(await d.get(path), 400);
      assert.match(text, /Invalid search/, path);
      assert.match(text, /after|before/, path);
    }
    // The cursor of the link works; a null sort value is a cursor too (past every part with a repair shop).
    assert.equal((await d.get(next)).status, 200);
    const nulls = await d.get(`/hq/parts?sort=repairer&after=${cursor(["repairer", "asc", null, 1])}`);
    assert.equal(nulls.status, 200);
    assert.equal(
      [...(await nulls.text()).matchAll(/data-part="/g)].length,
      PAGE_SIZE,
      "parts without a shop",
    );
    // Offset links from before keyset paging: ignored, the first page, not an error.
    const old = await (await d.get("/hq/parts?sort=qty&page=3")).text();
    const firstIds = (html: string) => [...html.matchAll(/data-part="(\d+)"/g)].map((m) => m[1]);
    assert.deepEqual(firstIds(old), firstIds(first));
    assert.equal(ids.length, 60);
  },
);

appTest(
  "hq paging: the feed's per-state counts stop at 1 000 rows: 'more than n' past it, exact below",
  async (a) => {
    const shop = await makeRepairer(a.db, "SHOP-FEED");
    const driver = await makeUser(a.db, { name: "DRIVER-FEED" });
    const { claim } = await makeClaim(a.db, { parts: [{ status: "Arrived" }] });
    await sql`insert into parts_movements (claim_id, movement_type, movement_status, picked_up_by, dropped_off_by,
      pick_up_at, dropped_off_at, repairer_id)
    select ${claim.id}, 'direct', 'Parts Dropped off', ${driver.id}, ${driver.id}, now(), now(), ${shop.id}
    from generate_series(1, 1103)`.execute(a.db);
    await sql`insert into announcements (message_id, movement_id, title, channel, body, state, next_attempt_at,
      created_at)
    select gen_random_uuid(), m.id, 'Parts Delivered', 'parts_movement',
      jsonb_build_object('title', 'Parts Delivered', 'rego', 'REG-F', 'place', 'SHOP-FEED', 'parts', '[]'::jsonb,
        'driver', 'DRIVER-FEED', 'at', '2026-11-20T12:00:00Z', 'link', 'http://x/hq/movements/' || m.id,
        'movement_id', m.id),
      case when m.id % 500 = 0 then 'failed' else 'delivered' end, now(), now()
    from parts_movements m`.execute(a.db);
    const d = await signedIn(a, "dispatcher");
    const text = await pageText(await d.get("/hq/announcements"));
    assert.match(text, /Sent \(more than 1000\)/, "1 101 sent: counted to the cap");
    assert.match(text, /Failed \(2\)/, "a small state exactly");
    assert.match(text, /Waiting \(0\)/);
  },
);
