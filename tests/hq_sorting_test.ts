/**
 * The dashboard lists' column sorting: every allowed column orders the rows ascending and
 * descending (ties and nulls broken by id, so descending is exactly ascending reversed), paging
 * stays whole under a sort with ties (keyset cursors: tests/hq_paging_test.ts walks every column), and a column outside the allow-list is refused with the usual
 * refused-query page. Runs on PGlite and, with TEST_DATABASE_URL, on the PostgreSQL server.
 */
import assert from "node:assert/strict";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeHq, makeRepairer, makeUser } from "@/testkit/factories.ts";
import { type HqClient, pageText, signedIn } from "@/tests/helpers/hq.ts";
import { MOVEMENT_SORTS, TRIP_SORTS } from "@/db/queries/movement_reads.ts";
import { PART_SORTS } from "@/db/queries/parts.ts";
import type { PartStatus } from "@/db/schema.ts";

type Value = string | number | null;

/** The ids in (value, id) order, nulls last: what `sort=<column>&dir=asc` must show. */
function expectedAsc(rows: { id: number; values: Record<string, Value> }[], column: string): number[] {
  return [...rows].sort((x, y) => {
    const a = x.values[column], b = y.values[column];
    if (a !== b) {
      if (a === null) return 1;
      if (b === null) return -1;
      return a < b ? -1 : 1;
    }
    return x.id - y.id;
  }).map((r) => r.id);
}

async function idsOf(d: HqClient, path: string, attr: string): Promise<number[]> {
  const res = await d.get(path);
  assert.equal(res.status, 200, path);
  const html = await res.text();
  return [...html.matchAll(new RegExp(`data-${attr}="(\\d+)"`, "g"))].map((m) => Number(m[1]));
}

async function assertSorted(
  d: HqClient,
  list: string,
  attr: string,
  columns: readonly string[],
  rows: { id: number; values: Record<string, Value> }[],
) {
  for (const column of columns) {
    const asc = expectedAsc(rows, column);
    assert.deepEqual(await idsOf(d, `${list}?sort=${column}&dir=asc`, attr), asc, `${list} ${column} asc`);
    assert.deepEqual(
      await idsOf(d, `${list}?sort=${column}&dir=desc`, attr),
      [...asc].reverse(),
      `${list} ${column} desc`,
    );
  }
}

/** Values chosen so every collation orders them alike (same shape, upper case, one differing letter). */
async function partsFixture(a: TestApp) {
  const shops = await Promise.all(["SHOP-B", "SHOP-C", "SHOP-A"].map((n) => makeRepairer(a.db, n)));
  const specs: [string, string, number, PartStatus, string, string, number | false][] = [
    ["PN-B", "BUMPER-B", 2, "Arrived", "CLM-C", "REG-A", 0],
    ["PN-C", "AXLE-C", 3, "Ordered", "CLM-A", "REG-B", 1],
    ["PN-A", "CHAIN-A", 1, "Returned to HQ", "CLM-B", "REG-D", false],
    ["PN-D", "DOOR-D", 2, "Arrived", "CLM-D", "REG-C", 2],
  ];
  const rows = [];
  for (const [i, [part_no, description, qty, status, claimNumber, registration, shop]] of specs.entries()) {
    const { parts } = await makeClaim(a.db, {
      claimNumber,
      registration,
      management: shop === false ? false : shops[shop].id,
      parts: [{ part_no, description, qty, status }],
    });
    // The last change times run against the ids, so "since" orders differently from id.
    const since = new Date(Date.UTC(2026, 10, 20, 12 - i));
    await a.db.updateTable("parts_orders").set({ updated_at: since }).where("id", "=", parts[0].id).execute();
    rows.push({
      id: parts[0].id,
      values: {
        part_no,
        description,
        qty,
        status,
        since: since.getTime(),
        claim: claimNumber,
        rego: registration,
        repairer: shop === false ? null : shops[shop].name,
      },
    });
  }
  return rows;
}

appTest("hq sorting: the parts list orders by each allowed column, asc and desc, ties by id", async (a) => {
  const rows = await partsFixture(a);
  const d = await signedIn(a, "dispatcher");
  assert.deepEqual([...PART_SORTS].sort(), Object.keys(rows[0].values).sort(), "every column is tested");
  await assertSorted(d, "/hq/parts", "part", PART_SORTS, rows);
  // No sort: most recently changed first, as before.
  assert.deepEqual(await idsOf(d, "/hq/parts", "part"), rows.map((r) => r.id));
  // A sort without a direction is ascending; the heading marks the order for screen readers.
  const html = await (await d.get("/hq/parts?sort=qty")).text();
  assert.match(html, /<th[^>]*aria-sort="ascending"[^>]*data-sort="qty"/);
  assert.match(html, /href="\/hq\/parts\?sort=qty&amp;dir=desc"/, "the current column's link flips it");
});

appTest("hq sorting: paging under a sort with ties neither repeats nor skips a part", async (a) => {
  await makeClaim(a.db, {
    claimNumber: "CLM-TIES",
    parts: Array.from(
      { length: 30 },
      (_, i) => ({ status: "Arrived" as const, part_no: `PN-T${i}`, qty: 1 }),
    ),
  });
  const d = await signedIn(a, "dispatcher");
  for (const dir of ["asc", "desc"]) {
    const first = await (await d.get(`/hq/parts?sort=qty&dir=${dir}`)).text();
    const next = first.match(/href="([^"]*)" rel="next"/)?.[1]?.replaceAll("&amp;", "&");
    assert.ok(next, `${dir}: a next page`);
    const one = [...first.matchAll(/data-part="(\d+)"/g)].map((m) => Number(m[1]));
    const two = await idsOf(d, next, "part");
    assert.equal(one.length, 25);
    assert.equal(new Set([...one, ...two]).size, 30, `${dir}: 30 distinct parts over two pages`);
  }
  const html = await (await d.get("/hq/parts?claim=CLM-TIES&sort=qty&dir=desc")).text();
  assert.match(
    html,
    /href="\/hq\/parts\?claim=CLM-TIES&amp;sort=qty&amp;dir=desc&amp;after=[\w-]+" rel="next"/,
    "paging keeps it",
  );
  assert.match(html, /<input type="hidden" name="sort" value="qty"/, "a new search keeps the order");
});

appTest("hq sorting: the movements list orders by each allowed column, asc and desc", async (a) => {
  const [shopA, shopB, shopC] = await Promise.all(
    ["SHOP-A", "SHOP-B", "SHOP-C"].map((n) => makeRepairer(a.db, n)),
  );
  const hq = await makeHq(a.db, "HQ-MAIN");
  const drivers = await Promise.all(
    ["DRIVER-A", "DRIVER-B", "DRIVER-C"].map((name) => makeUser(a.db, { name })),
  );
  const at = (h: number) => new Date(Date.UTC(2026, 10, 20, h));
  const specs = [
    { type: "direct", status: "Parts Dropped off", rego: "REG-B", shop: shopC, driver: 0, up: 2, down: 2 },
    { type: "reverse", status: "Parts Picked Up", rego: "REG-C", shop: shopA, driver: 2, up: 0, down: null },
    { type: "reverse", status: "Parts Dropped off", rego: "REG-A", shop: shopB, driver: 1, up: 1, down: 3 },
  ] as const;
  const rows = [];
  for (const s of specs) {
    const { claim, parts } = await makeClaim(a.db, {
      registration: s.rego,
      management: s.shop.id,
      parts: [{ status: "Arrived" }],
    });
    const direct = s.type === "direct";
    const m = await a.db.insertInto("parts_movements").values({
      claim_id: claim.id,
      movement_type: s.type,
      movement_status: s.status,
      picked_up_by: drivers[s.driver].id,
      pick_up_at: at(s.up),
      dropped_off_by: s.down === null ? null : drivers[s.driver].id,
      dropped_off_at: s.down === null ? null : at(s.down),
      repairer_id: direct ? s.shop.id : null,
      location_type: direct ? null : "HQ",
      hq_location_id: direct ? null : hq.id,
    }).returning("id").executeTakeFirstOrThrow();
    void parts;
    rows.push({
      id: m.id,
      values: {
        id: m.id,
        type: s.type,
        status: s.status,
        rego: s.rego,
        place: s.shop.name,
        driver: drivers[s.driver].name,
        picked_up: s.up,
        dropped_off: s.down,
        parts: 0,
      },
    });
  }
  const d = await signedIn(a, "dispatcher");
  assert.deepEqual([...MOVEMENT_SORTS].sort(), Object.keys(rows[0].values).sort(), "every column is tested");
  await assertSorted(d, "/hq/movements", "movement", MOVEMENT_SORTS, rows);
});

appTest("hq sorting: the open return trips order by each allowed column, asc and desc", async (a) => {
  const shops = await Promise.all(["SHOP-B", "SHOP-A", "SHOP-C"].map((n) => makeRepairer(a.db, n)));
  const hqs = await Promise.all(["HQ-C", "HQ-A", "HQ-B"].map((n) => makeHq(a.db, n)));
  const drivers = await Promise.all(
    ["DRIVER-C", "DRIVER-A", "DRIVER-B"].map((name) => makeUser(a.db, { name })),
  );
  const regos = ["REG-B", "REG-C", "REG-A"];
  const ups = [1, 2, 0];
  const rows = [];
  for (let i = 0; i < 3; i++) {
    const { claim } = await makeClaim(a.db, { registration: regos[i], management: shops[i].id });
    const m = await a.db.insertInto("parts_movements").values({
      claim_id: claim.id,
      movement_type: "reverse",
      movement_status: "Parts Picked Up",
      picked_up_by: drivers[i].id,
      pick_up_at: new Date(Date.UTC(2026, 10, 20, ups[i])),
      location_type: "HQ",
      hq_location_id: hqs[i].id,
    }).returning("id").executeTakeFirstOrThrow();
    rows.push({
      id: m.id,
      values: {
        id: m.id,
        rego: regos[i],
        driver: drivers[i].name,
        picked_up: ups[i],
        place: shops[i].name,
        hq: hqs[i].name,
        parts: 0,
      },
    });
  }
  const d = await signedIn(a, "dispatcher");
  assert.deepEqual([...TRIP_SORTS].sort(), Object.keys(rows[0].values).sort(), "every column is tested");
  await assertSorted(d, "/hq/trips", "trip", TRIP_SORTS, rows);
  assert.deepEqual(await idsOf(d, "/hq/trips", "trip"), expectedAsc(rows, "picked_up"), "oldest first");
});

appTest("hq sorting: a column outside the allow-list, or a bad direction, is refused (400)", async (a) => {
  const d = await signedIn(a, "dispatcher");
  for (
    const path of [
      "/hq/parts?sort=password_hash",
      "/hq/parts?sort=part_no&dir=sideways",
      "/hq/movements?sort=p.id",
      "/hq/movements?sort=id&dir=DESC",
      "/hq/exports/parts.csv?sort=nope",
      "/hq/trips?sort=claim_number",
    ]
  ) {
    const text = await pageText(await d.get(path), 400);
    assert.match(text, /Invalid search/, path);
    assert.match(text, /sort|dir/, path);
  }
});
