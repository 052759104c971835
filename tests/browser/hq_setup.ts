/**
 * The dashboard's browser tests share this set-up: the app over a fresh PGlite database with the demo data
 * imported (importData), a few real movements submitted through the handler (with stored photos), served on
 * a local port, and Chromium. Helpers sign in through the real sign-in page.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContextOptions, Page } from "@/testkit/browser.ts";
import { importData } from "@/lib/import.ts";
import { ensureAssets } from "@/render/assets.ts";
import { DEMO_DATA_URL } from "@/lib/demo_data.ts";
import { buildTestApp, type TestApp } from "@/testkit/app.ts";
import { freshDb, type TestDb } from "@/testkit/db.ts";
import { stagePhoto } from "@/testkit/factories.ts";
import { confirmed, dropOffPayload, pickUpPayload } from "@/testkit/movements.ts";
import { launchBrowser, serveApp, type ServedApp } from "@/testkit/browser.ts";

export const DEMO = {
  dispatcher: { email: "priya@depot.example", password: "dispatcher-demo-2468", name: "Priya Dispatch" },
  admin: { email: "admin@depot.example", password: "admin-demo-9999", name: "Alex Admin" },
  driver: { email: "dana@depot.example", pin: "4821", name: "Dana Driver" },
};

export interface HqWorld {
  t: TestDb;
  a: TestApp;
  served: ServedApp;
  browser: Browser;
  url(path: string): string;
  /** Movement ids made by the set-up. */
  directId: number;
  tripId: number;
  close(): Promise<void>;
}

async function partByNo(a: TestApp, partNo: string) {
  return await a.db.selectFrom("parts_orders").selectAll().where("part_no", "=", partNo)
    .executeTakeFirstOrThrow();
}

async function userByEmail(a: TestApp, email: string) {
  return await a.db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirstOrThrow();
}

/** A driver's direct drop-off of one demo part, through the handler, with a stored photo. */
export async function driverDelivers(
  a: TestApp,
  partNo: string,
): Promise<{ result: { status: string; text?: string } }> {
  const part = await partByNo(a, partNo);
  const driver = await userByEmail(a, DEMO.driver.email);
  const claim = await a.db.selectFrom("claims").selectAll().where("id", "=", part.claim_id)
    .executeTakeFirstOrThrow();
  const shop = await a.db.selectFrom("claim_management").select("repairer_id").where(
    "claim_id",
    "=",
    claim.id,
  )
    .executeTakeFirstOrThrow();
  const image = await stagePhoto(a, {
    partId: part.id,
    claimId: claim.id,
    stage: "direct_dropoff",
    userId: driver.id,
  });
  return await a.call(
    dropOffPayload(
      driver.email,
      claim.registration,
      { id: shop.repairer_id! },
      confirmed([{ part: part.id, image: image.id }]),
    ),
  );
}

export async function hqWorld(): Promise<HqWorld> {
  await ensureAssets({ log: () => {} });
  const t = await freshDb("pglite");
  const a = await buildTestApp(t);
  await importData(a.db, JSON.parse(await Deno.readTextFile(DEMO_DATA_URL)), a.clock);

  // A return trip picked up yesterday, and a direct delivery this morning: things to look at.
  const driver = await userByEmail(a, DEMO.driver.email);
  const pending = await a.db.selectFrom("parts_orders").selectAll()
    .where("status", "=", "Pending Repair Shop Pick-Up").orderBy("id").execute();
  const claim = await a.db.selectFrom("claims").selectAll().where("id", "=", pending[0].claim_id)
    .executeTakeFirstOrThrow();
  const pairs = [];
  for (const p of pending.filter((p) => p.claim_id === claim.id)) {
    const image = await stagePhoto(a, {
      partId: p.id,
      claimId: claim.id,
      stage: "reverse_pickup",
      userId: driver.id,
    });
    pairs.push({ part: p.id, image: image.id });
  }
  const leg1 = await a.call(pickUpPayload(driver.email, claim.registration, confirmed(pairs)));
  assert.equal(leg1.result.status, "success", JSON.stringify(leg1));
  a.clock.advance(27 * 3_600_000 + 20 * 60_000);
  const direct = await driverDelivers(a, "81110-0K530");
  assert.equal(direct.result.status, "success", JSON.stringify(direct));

  const served = serveApp(a.app);
  const browser = await launchBrowser();
  return {
    t,
    a,
    served,
    browser,
    url: (path) => served.baseUrl + path,
    tripId: (leg1.result.data as { parts_movement_id: number }).parts_movement_id,
    directId:
      ((direct as { result: { data?: { parts_movement_id: number } } }).result.data!).parts_movement_id,
    close: async () => {
      await browser.close();
      await served.close();
      await t.close();
      await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * Signs in through /hq/sign-in; a page of a fresh context, so sessions never mix. `options` adds to the
 * context's (the accessibility test lets axe-core's injected script past the CSP).
 */
export async function signInAs(
  world: HqWorld,
  who: { email: string; password: string },
  next = "/hq/parts",
  options: BrowserContextOptions = {},
): Promise<Page> {
  const context = await world.browser.newContext({
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
    ...options,
  });
  const page = await context.newPage();
  await page.goto(world.url(next));
  assert.ok(page.url().startsWith(world.url("/hq/sign-in")), `sent to sign-in, got ${page.url()}`);
  await page.getByLabel("E-mail").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => !u.pathname.startsWith("/hq/sign-in"));
  return page;
}

/** Dashboard pages have no islands: no script element, nothing to hydrate. */
/**
 * The dashboard ships no JavaScript but the live-update island (islands/HqLive.tsx, on the pages with a live
 * region): every page works without it.
 */
export async function assertNoScript(page: Page): Promise<void> {
  const islands = await page.locator("[data-island]").evaluateAll((els) =>
    els.map((e) => e.getAttribute("data-island"))
  );
  assert.ok(
    islands.every((name) => name === "HqLive"),
    `${page.url()} ships only the live island: ${islands}`,
  );
  if (islands.length === 0) {
    assert.equal(await page.locator("script").count(), 0, `${page.url()} ships no JavaScript`);
  }
}
