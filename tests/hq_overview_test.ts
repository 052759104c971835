/**
 * The overview at `/hq` (docs/overview.md), on both databases: every figure computed here from seeded
 * histories (each part's history row into its status now, at the time `updated_at` holds, as every status
 * change writes them) and compared with the page; each count's link lands on a parts list of exactly that
 * many parts; "returned today" counts the depot's local day on the days summer time starts (23 hours) and
 * ends (25 hours) in Australia/Sydney; a dispatcher's change moves the figures.
 */
import assert from "node:assert/strict";
import type { PartStatus } from "@/db/schema.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeRepairer } from "@/testkit/factories.ts";
import { type HqClient, signedIn } from "@/tests/helpers/hq.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SYDNEY = { config: { depotTimeZone: "Australia/Sydney" } };

function setClock(a: TestApp, at: string) {
  a.clock.advance(new Date(at).getTime() - a.clock.now().getTime());
}

/** Part specs of one claim: each part's status and the time it entered it (its history row's time). */
interface Seeded {
  shop: number | null | false;
  parts: { status: PartStatus; since: Date; returnedAt?: Date }[];
}

/** A claim with these parts; every part gets its history row into its status (and a return, if any). */
async function seedClaim(a: TestApp, s: Seeded) {
  const { parts } = await makeClaim(a.db, {
    management: s.shop,
    parts: s.parts.map((p) => ({ status: p.status })),
  });
  for (const [i, part] of parts.entries()) {
    const spec = s.parts[i];
    await a.db.updateTable("parts_orders").set({ updated_at: spec.since }).where("id", "=", part.id)
      .execute();
    if (spec.returnedAt) {
      await a.db.insertInto("part_status_history").values({
        part_id: part.id,
        from_status: "Picked Up from Repair Shop",
        to_status: "Returned to HQ",
        changed_at: spec.returnedAt,
        via: "movement",
      }).execute();
    }
    if (spec.status !== "Returned to HQ" || !spec.returnedAt) {
      await a.db.insertInto("part_status_history").values({
        part_id: part.id,
        from_status: null,
        to_status: spec.status,
        changed_at: spec.since,
        via: "import",
      }).execute();
    }
  }
  return parts;
}

/** Every count on the page: its `data-figure` name, the number shown and its link. */
function figuresOf(html: string): Map<string, { count: number; href: string }> {
  const out = new Map<string, { count: number; href: string }>();
  for (const m of html.matchAll(/<a href="([^"]+)"[^>]*data-figure="([^"]+)"[^>]*>(\d+)/g)) {
    out.set(m[2], { count: Number(m[3]), href: m[1].replaceAll("&amp;", "&") });
  }
  return out;
}

async function overview(hq: HqClient) {
  const res = await hq.get("/hq");
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.match(html, /<h1[^>]*>Today<\/h1>/);
  return { html, figures: figuresOf(html) };
}

/** Each count's link opens the parts list showing exactly that many parts (they all fit one page). */
async function assertLinksShowTheirCounts(
  hq: HqClient,
  figures: Map<string, { count: number; href: string }>,
) {
  assert.ok(figures.size > 0);
  for (const [name, { count, href }] of figures) {
    assert.ok(count <= 25, `${name}: the seed fits one page`);
    const res = await hq.get(href);
    assert.equal(res.status, 200, `${name}: ${href}`);
    const rows = [...(await res.text()).matchAll(/<tr [^>]*data-part="\d+"/g)].length;
    assert.equal(rows, count, `${name}: ${href} lists ${rows}, the overview says ${count}`);
  }
}

appTest(
  "overview: /hq shows today's counts and the ageing, computed from the parts' histories",
  async (a) => {
    setClock(a, "2026-11-21T09:00:00Z"); // 20:00 AEDT
    const now = a.clock.now().getTime();
    const ago = (ms: number) => new Date(now - ms);
    const north = await makeRepairer(a.db, "North Panels");
    const south = await makeRepairer(a.db, "South Smash");
    const heldAges = {
      [north.id]: [1 * DAY, 7 * DAY - 1000, 7 * DAY, 13 * DAY, 14 * DAY, 29 * DAY, 30 * DAY, 100 * DAY],
      [south.id]: [2 * DAY],
    };
    const seeds: Seeded[] = [
      ...Object.entries(heldAges).map(([shop, ages]) => ({
        shop: Number(shop),
        parts: ages.map((age) => ({ status: "Delivered to Repair Shop directly" as const, since: ago(age) })),
      })),
      { shop: null, parts: [{ status: "Delivered to Repair Shop directly", since: ago(40 * DAY) }] },
      {
        shop: north.id,
        parts: [{ status: "Arrived", since: ago(HOUR) }, { status: "Arrived", since: ago(DAY) }],
      },
      { shop: south.id, parts: [{ status: "Arrived", since: ago(HOUR) }] },
      { shop: null, parts: [{ status: "Arrived", since: ago(HOUR) }] },
      { shop: false, parts: [{ status: "Arrived", since: ago(HOUR) }] },
      {
        shop: north.id,
        parts: [1 * DAY, 3 * DAY, 10 * DAY].map((age) => ({
          status: "Pending Repair Shop Pick-Up",
          since: ago(age),
        })),
      },
      { shop: south.id, parts: [{ status: "Pending Repair Shop Pick-Up", since: ago(4 * DAY) }] },
      {
        shop: south.id,
        parts: [23 * HOUR, 24 * HOUR, 50 * HOUR].map((age) => ({
          status: "Picked Up from Repair Shop",
          since: ago(age),
        })),
      },
      {
        shop: north.id,
        parts: [
          // Today in Sydney began at 2026-11-20T13:00Z.
          { status: "Returned to HQ", since: ago(2 * HOUR), returnedAt: ago(2 * HOUR) },
          {
            status: "Returned to HQ",
            since: new Date("2026-11-20T13:00:00Z"),
            returnedAt: new Date("2026-11-20T13:00:00Z"),
          },
          {
            status: "Returned to HQ",
            since: new Date("2026-11-20T12:59:59Z"),
            returnedAt: new Date("2026-11-20T12:59:59Z"),
          },
        ],
      },
      { shop: south.id, parts: [{ status: "Ordered", since: ago(HOUR) }] },
    ];
    for (const seed of seeds) await seedClaim(a, seed);

    // The expected figures, from the seeds alone.
    const all = seeds.flatMap((s) => s.parts.map((p) => ({ ...p, shop: s.shop === false ? null : s.shop })));
    const count = (f: (p: (typeof all)[number]) => boolean) => all.filter(f).length;
    const age = (p: { since: Date }) => now - p.since.getTime();
    const band = (p: { since: Date }) => [7, 14, 30].filter((d) => age(p) >= d * DAY).length;
    const dayStart = new Date("2026-11-20T13:00:00Z").getTime();

    const dispatcher = await signedIn(a, "dispatcher");
    const { figures } = await overview(dispatcher);
    const shown = (name: string) => figures.get(name)?.count;
    assert.equal(shown("ready"), count((p) => p.status === "Arrived"));
    assert.equal(shown(`ready:${north.id}`), count((p) => p.status === "Arrived" && p.shop === north.id));
    assert.equal(shown(`ready:${south.id}`), count((p) => p.status === "Arrived" && p.shop === south.id));
    assert.equal(shown("ready:none"), 2);
    assert.equal(shown("on-trucks"), count((p) => p.status === "Picked Up from Repair Shop"));
    assert.equal(shown("at-shops"), count((p) => p.status === "Delivered to Repair Shop directly"));
    assert.equal(shown("flagged"), count((p) => p.status === "Pending Repair Shop Pick-Up"));
    assert.equal(shown("returned-today"), count((p) => !!p.returnedAt && p.returnedAt.getTime() >= dayStart));
    assert.equal(shown("returned-today"), 2);
    for (const shop of [north.id, south.id, "none"]) {
      for (let i = 0; i < 4; i++) {
        assert.equal(
          shown(`held:${shop}:${i}`),
          count((p) =>
            p.status === "Delivered to Repair Shop directly" && (p.shop ?? "none") === shop && band(p) === i
          ),
          `held ${shop} band ${i}`,
        );
      }
    }
    assert.deepEqual([0, 1, 2, 3].map((i) => shown(`held:${north.id}:${i}`)), [2, 2, 2, 2]);
    assert.equal(
      shown("truck-late"),
      count((p) => p.status === "Picked Up from Repair Shop" && age(p) >= 24 * HOUR),
    );
    assert.equal(shown("truck-late"), 2);
    assert.equal(shown(`waiting-late:${north.id}`), 2);
    assert.equal(shown(`waiting-late:${south.id}`), 1);
    assert.equal(
      shown("waiting-late"),
      count((p) => p.status === "Pending Repair Shop Pick-Up" && age(p) >= 3 * DAY),
    );

    await assertLinksShowTheirCounts(dispatcher, figures);

    // An admin moves the thresholds: the bands and the late counts follow.
    const admin = await signedIn(a, "admin");
    const saved = await admin.post("/hq/admin/ageing", {
      held_band_1_days: "2",
      held_band_2_days: "10",
      held_band_3_days: "50",
      truck_hours: "48",
      return_waiting_days: "5",
    });
    assert.equal(saved.status, 303);
    const after = (await overview(admin)).figures;
    const band2 = (p: { since: Date }) => [2, 10, 50].filter((d) => age(p) >= d * DAY).length;
    for (let i = 0; i < 4; i++) {
      assert.equal(
        after.get(`held:${north.id}:${i}`)?.count,
        count((p) =>
          p.status === "Delivered to Repair Shop directly" && p.shop === north.id && band2(p) === i
        ),
      );
    }
    assert.equal(after.get("truck-late")?.count, 1);
    assert.equal(after.get("waiting-late")?.count, 1);
    await assertLinksShowTheirCounts(admin, after);
  },
  SYDNEY,
);

appTest("overview: returned today counts the depot's 23-hour day when summer time starts", async (a) => {
  // 2026-10-04 in Sydney: from 2026-10-03T14:00Z (AEST) to 2026-10-04T13:00Z (AEDT): 23 hours.
  setClock(a, "2026-10-04T12:59:00Z");
  const returned = (at: string) => ({
    status: "Returned to HQ" as const,
    since: new Date(at),
    returnedAt: new Date(at),
  });
  await seedClaim(a, {
    shop: null,
    parts: [
      returned("2026-10-03T13:59:59Z"), // 23:59:59 the day before (AEST); a day taken at today's offset counts it
      returned("2026-10-03T14:00:00Z"), // local midnight
      returned("2026-10-04T12:58:00Z"), // 23:58 AEDT
      returned("2026-10-04T13:30:00Z"), // 00:30 the next day; a day of 24 hours counts it
    ],
  });
  const dispatcher = await signedIn(a, "dispatcher");
  const { figures } = await overview(dispatcher);
  assert.equal(figures.get("returned-today")?.count, 2);
  assert.equal(figures.get("returned-today")?.href, "/hq/parts?returned=2026-10-04");
  await assertLinksShowTheirCounts(dispatcher, new Map([["returned-today", figures.get("returned-today")!]]));
}, SYDNEY);

appTest("overview: returned today counts the depot's 25-hour day when summer time ends", async (a) => {
  // 2027-04-04 in Sydney: from 2027-04-03T13:00Z (AEDT) to 2027-04-04T14:00Z (AEST): 25 hours.
  setClock(a, "2027-04-04T13:45:00Z");
  const returned = (at: string) => ({
    status: "Returned to HQ" as const,
    since: new Date(at),
    returnedAt: new Date(at),
  });
  await seedClaim(a, {
    shop: null,
    parts: [
      returned("2027-04-03T12:59:59Z"), // 23:59:59 the day before
      returned("2027-04-03T13:00:00Z"), // local midnight (AEDT)
      returned("2027-04-04T13:30:00Z"), // 23:30 AEST: in the 25th hour, which a 24-hour day leaves out
    ],
  });
  const dispatcher = await signedIn(a, "dispatcher");
  const { figures } = await overview(dispatcher);
  assert.equal(figures.get("returned-today")?.count, 2);
  await assertLinksShowTheirCounts(dispatcher, figures);
}, SYDNEY);

appTest(
  "overview: a dispatcher's status change moves the figures; since is the change's history time",
  async (a) => {
    const shop = await makeRepairer(a.db, "Eastside");
    const [part] = await seedClaim(a, {
      shop: shop.id,
      parts: [{ status: "Arrived", since: a.clock.now() }],
    });
    const dispatcher = await signedIn(a, "dispatcher");
    const before = (await overview(dispatcher)).figures;
    assert.equal(before.get(`ready:${shop.id}`)?.count, 1);
    assert.equal(before.get("flagged")?.count, 0);

    a.clock.advance(4 * DAY);
    // A new session: the first ended while idle.
    const later = await signedIn(a, "dispatcher", dispatcher.user);
    const res = await later.post(`/hq/parts/${part.id}/status`, {
      from: "Arrived",
      to: "Pending Repair Shop Pick-Up",
    });
    assert.equal(res.status, 303);
    const row = await a.db.selectFrom("parts_orders").select("updated_at").where("id", "=", part.id)
      .executeTakeFirstOrThrow();
    const history = await a.db.selectFrom("part_status_history").select("changed_at")
      .where("part_id", "=", part.id).where("to_status", "=", "Pending Repair Shop Pick-Up")
      .executeTakeFirstOrThrow();
    assert.equal(row.updated_at.getTime(), history.changed_at.getTime());
    assert.equal(row.updated_at.getTime(), a.clock.now().getTime());

    const after = (await overview(later)).figures;
    assert.equal(after.get(`ready:${shop.id}`), undefined);
    assert.equal(after.get("ready")?.count, 0);
    assert.equal(after.get("flagged")?.count, 1);
    // Flagged just now, though the part arrived 4 days ago: not waiting long yet.
    assert.equal(after.get(`waiting-late:${shop.id}`)?.count, 0);
    a.clock.advance(3 * DAY);
    const latest = await signedIn(a, "dispatcher", dispatcher.user);
    assert.equal((await overview(latest)).figures.get(`waiting-late:${shop.id}`)?.count, 1);
  },
);

appTest(
  "overview: /hq is the staff's page; a driver gets 403; the parts list refuses a returned date that is none",
  async (a) => {
    const admin = await signedIn(a, "admin");
    assert.equal((await admin.get("/hq")).status, 200);
    const driver = await signedIn(a, "driver");
    assert.equal((await driver.get("/hq")).status, 403);
    const dispatcher = await signedIn(a, "dispatcher");
    assert.equal((await dispatcher.get("/hq/parts?returned=2026-02-30")).status, 400);
    const csv = await dispatcher.get("/hq/exports/parts.csv?returned=today");
    assert.equal(csv.status, 400);
    await csv.body?.cancel();
  },
);
