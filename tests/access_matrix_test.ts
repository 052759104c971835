/**
 * Every route of the built app, as every kind of visitor (docs/security.md "Controls and their tests"): no
 * one reads or changes what their role does not allow, and no answer is a 5xx. The routes come from the app
 * itself, so a route added without a row here fails the test until its rule is written down.
 *
 * Visitors: nobody signed in, the driver who made the movement (on an enrolled tablet), another driver (on
 * another enrolled tablet), a dispatcher and an admin (dashboard sessions). A refusal must also keep the
 * claim's registration off the page, so a 200 that leaks is caught as well as a wrong status.
 */
import assert from "node:assert/strict";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeRepairer, stagePhoto } from "@/testkit/factories.ts";
import { confirmed, dropOffPayload } from "@/testkit/movements.ts";
import { type HqClient, signedIn } from "@/tests/helpers/hq.ts";
import { makeDriver, Tablet } from "@/tests/helpers/tablet.ts";
import { sessionCookie } from "@/routes/web/session.ts";

type Visitor = "anonymous" | "driver" | "otherDriver" | "dispatcher" | "admin";
const VISITORS: Visitor[] = ["anonymous", "driver", "otherDriver", "dispatcher", "admin"];

/** Who may read a route: its area's rule (D24) or, for one driver's records, that driver and staff. */
type Rule = "public" | "staff" | "admin" | "tablet" | "ownerOrStaff" | "ownerOrTabletAdmin" | "shopLink";

const allowedBy: Record<Rule, readonly Visitor[]> = {
  public: VISITORS,
  staff: ["dispatcher", "admin"],
  admin: ["admin"],
  tablet: ["driver", "otherDriver", "admin"],
  // A photo: staff any, a driver only the photos of their own movements (docs/security.md "roles").
  ownerOrStaff: ["driver", "dispatcher", "admin"],
  // A receipt on the tablet: the driver who made it; other drivers get 404 (the dashboard has its own page).
  ownerOrTabletAdmin: ["driver", "admin"],
  // A repair shop's page: only its link opens it (docs/shop-page.md); no session does, so with a made-up
  // token every visitor is refused (tests/shop_page_test.ts opens it with a real one).
  shopLink: [],
};

/**
 * Every GET route pattern and its rule. Sign-in pages, health, metrics and assets are public (metrics is a
 * 404 without its token: tests/metrics_test.ts); everything else belongs to an area.
 */
const GET_RULES: Record<string, Rule> = {
  "/": "public",
  "/favicon.ico": "public",
  "/healthz": "public",
  "/readyz": "public",
  "/hq/sign-in": "public",
  "/tablet/sign-in": "public",
  "/static/dist/:name": "public",
  "/static/icons/icon-192.png": "public",
  "/static/icons/icon-512.png": "public",
  "/static/icons/icon.svg": "public",
  "/static/tablet-sw.js": "public",
  "/static/tablet.webmanifest": "public",
  "/hq": "staff",
  "/hq/announcements": "staff",
  "/hq/claims/:claim_number": "staff",
  "/hq/claims/:claim_number/evidence.zip": "staff",
  "/hq/claims/:claim_number/labels": "staff",
  "/hq/labels": "staff",
  "/hq/exports": "staff",
  "/hq/exports/movements.csv": "staff",
  "/hq/exports/parts.csv": "staff",
  "/hq/live": "staff",
  "/hq/movements": "staff",
  "/hq/movements/:id": "staff",
  "/hq/parts": "staff",
  "/hq/queue": "staff",
  "/hq/parts/:id": "staff",
  "/hq/search": "staff",
  "/hq/trips": "staff",
  "/hq/trends": "staff",
  "/hq/trends/movements.csv": "staff",
  "/hq/trends/turnaround.csv": "staff",
  "/hq/trends/drivers.csv": "staff",
  "/hq/return-requests": "staff",
  "/hq/runs": "staff",
  "/hq/admin/audit": "admin",
  "/hq/admin/audit/csv": "admin",
  "/hq/admin/import": "admin",
  "/hq/admin/import/templates/claims.csv": "admin",
  "/hq/admin/import/templates/repairers.csv": "admin",
  "/hq/admin/import/templates/hq_locations.csv": "admin",
  "/hq/admin/import/templates/users.csv": "admin",
  "/hq/admin/places": "admin",
  "/hq/admin/tablets": "admin",
  "/hq/admin/handover": "admin",
  "/hq/admin/ageing": "admin",
  "/hq/admin/users": "admin",
  "/hq/admin/two-factor": "admin",
  "/tablet": "tablet",
  "/tablet/collect": "tablet",
  "/tablet/deliver": "tablet",
  "/tablet/return": "tablet",
  "/tablet/api/return-requests/:id": "tablet",
  "/tablet/api/run-sheet": "tablet",
  "/tablet/api/live": "tablet",
  "/tablet/movements/:id{[1-9][0-9]{0,9}}": "ownerOrTabletAdmin",
  "/hq/problem-reports": "staff",
  "/shop/:token": "shopLink",
  "/shop/:token/photos/:id{[1-9][0-9]{0,9}}": "shopLink",
  "/shop/:token/photos/:id{[1-9][0-9]{0,9}}/thumb": "shopLink",
  "/photos/:id{[1-9][0-9]{0,9}}": "ownerOrStaff",
  "/photos/:id{[1-9][0-9]{0,9}}/thumb": "ownerOrStaff",
};

/**
 * Every POST route and the visitors who may post to it. The mobile API's two routes have their own guards
 * (the public key, an upload token) and are covered by tests/handler_test.ts and tests/upload_test.ts; the
 * sign-in and sign-out forms are open to anyone (tests/hq_access_test.ts, tests/tablet_sign_in_test.ts).
 */
const POST_RULES: Record<string, Rule | "own guard"> = {
  "/api/handler": "own guard",
  "/api/v2.1/data/:appOwner/:appName/report/:reportName/:recordId/:fieldName/upload": "own guard",
  "/hq/sign-in": "public",
  "/hq/sign-out": "public",
  "/tablet/sign-in": "public",
  "/tablet/sign-out": "public",
  "/hq/parts/:id/status": "staff",
  "/hq/announcements/:id/retry": "staff",
  "/hq/return-requests/:id/approve": "staff",
  "/hq/return-requests/:id/decline": "staff",
  "/hq/runs/assign": "staff",
  "/hq/runs/move": "staff",
  "/hq/runs/suggest": "staff",
  "/hq/admin/import": "admin",
  "/hq/admin/places/hq": "admin",
  "/hq/admin/places/hq/:id": "admin",
  "/hq/admin/places/repairers": "admin",
  "/hq/admin/places/repairers/:id": "admin",
  "/hq/admin/places/repairers/:id/active": "admin",
  "/hq/admin/tablets": "admin",
  "/hq/admin/handover": "admin",
  "/hq/admin/ageing": "admin",
  "/hq/admin/tablets/:id/revoke": "admin",
  "/hq/admin/tablets/:id/rename": "admin",
  "/hq/admin/users": "admin",
  "/hq/admin/users/:id/active": "admin",
  "/hq/admin/users/:id/pin": "admin",
  "/hq/admin/users/:id/role": "admin",
  "/hq/admin/users/:id/password": "admin",
  "/hq/admin/two-factor/start": "admin",
  "/hq/admin/two-factor/confirm": "admin",
  "/hq/admin/two-factor/remove": "admin",
  "/hq/admin/two-factor/users/:id/remove": "admin",
  "/tablet/api/movements": "tablet",
  "/tablet/api/photos": "tablet",
  "/tablet/api/handover-images": "tablet",
  "/tablet/api/ping": "tablet",
  "/tablet/api/search": "tablet",
  "/tablet/api/scan": "tablet",
  "/tablet/api/return-requests": "tablet",
  "/tablet/api/return-requests/:id/photo": "tablet",
  "/hq/admin/places/repairers/:id/link": "admin",
  "/hq/admin/places/repairers/:id/link/off": "admin",
  "/hq/problem-reports/:id/resolve": "staff",
  // The shop's link is their guard, and their origin check is csrfProtect's (tests/shop_page_test.ts).
  "/shop/:token/ready": "own guard",
  "/shop/:token/problems": "own guard",
  "/shop/:token/problems/:id/photo": "own guard",
};

/** The registered routes of a method, as patterns (middleware's `ALL` entries left out). */
function routesOf(a: TestApp, method: "GET" | "POST"): string[] {
  return [...new Set(a.app.routes.filter((r) => r.method === method).map((r) => r.path))];
}

interface World {
  rego: string;
  claimNumber: string;
  movementId: number;
  partId: number;
  photoId: number;
}

/** A claim whose part the driver dropped off (through the mobile handler), with its photo. */
async function makeWorld(a: TestApp, driverId: number, driverEmail: string): Promise<World> {
  const shop = await makeRepairer(a.db);
  const rego = "LEAK42";
  const { claim, parts } = await makeClaim(a.db, {
    registration: rego,
    management: shop.id,
    parts: [{ status: "Arrived" }],
  });
  const staged = await stagePhoto(a, {
    partId: parts[0].id,
    claimId: claim.id,
    stage: "direct_dropoff",
    userId: driverId,
  });
  const answer = await a.call(
    dropOffPayload(driverEmail, rego, shop, confirmed([{ part: parts[0].id, image: staged.id }])),
  );
  assert.equal(answer.result.status, "success", JSON.stringify(answer));
  // A driver's return request, open: id 1 on a fresh database, as `pathFor` names every `:id`.
  const request = await a.db.insertInto("return_requests").values({
    claim_id: claim.id,
    repairer_id: shop.id,
    requested_by: driverId,
    requested_at: a.clock.now(),
    client_key: crypto.randomUUID(),
    note: null,
  }).returning("id").executeTakeFirstOrThrow();
  await a.db.insertInto("return_request_parts").values({ request_id: request.id, part_id: parts[0].id })
    .execute();
  return {
    rego,
    claimNumber: claim.claim_number,
    movementId: Number(answer.result.data!.parts_movement_id),
    partId: parts[0].id,
    photoId: staged.photo_id!,
  };
}

/** Hono's pattern of a numeric id parameter. */
const ID = ":id{[1-9][0-9]{0,9}}";

/** The world, and one signed-in poster per area: a driver on a tablet, a dispatcher, an admin. */
async function posters(a: TestApp) {
  const driver = await makeDriver(a);
  const world = await makeWorld(a, driver.id, driver.email);
  const tablet = new Tablet(a);
  await tablet.signIn(driver);
  const hq = { dispatcher: await signedIn(a, "dispatcher"), admin: await signedIn(a, "admin") };
  return { world, tablet, hq };
}

/** A concrete path for a pattern, with the world's ids in its parameters. */
function pathFor(pattern: string, w: World, names: string[]): string {
  const assetName = names.find((n) => n.endsWith(".css")) ?? names[0];
  return pattern
    .replace(":claim_number", encodeURIComponent(w.claimNumber))
    .replace("/hq/movements/:id", `/hq/movements/${w.movementId}`)
    .replace("/hq/parts/:id", `/hq/parts/${w.partId}`)
    .replace(/^\/hq\/labels$/, `/hq/labels?part=${w.partId}`)
    .replace(`/tablet/movements/${ID}`, `/tablet/movements/${w.movementId}`)
    .replace(`/photos/${ID}`, `/photos/${w.photoId}`)
    .replace(":name", assetName)
    .replace(":token", "A".repeat(43))
    .replaceAll(":id", "1");
}

type Requester = (path: string, init?: RequestInit) => Promise<Response>;

appTest("access matrix: every GET route answers each visitor by its rule, never a 5xx", async (a) => {
  const driverA = await makeDriver(a);
  const driverB = await makeDriver(a);
  const world = await makeWorld(a, driverA.id, driverA.email);
  const tablets = { driver: new Tablet(a), otherDriver: new Tablet(a) };
  await tablets.driver.signIn(driverA);
  await tablets.otherDriver.signIn(driverB);
  const hq: Record<"dispatcher" | "admin", HqClient> = {
    dispatcher: await signedIn(a, "dispatcher"),
    admin: await signedIn(a, "admin", await makeDriver(a, { role: "admin" })),
  };
  // An admin on the tablet face signs in there like a driver (an admin may use the tablet, D24).
  const adminTablet = new Tablet(a);
  await adminTablet.signIn(hq.admin.user);
  const anonymous = new Tablet(a, { enrolled: false });

  const requesterFor = (visitor: Visitor, path: string): Requester => {
    const onTablet = path === "/tablet" || path.startsWith("/tablet/");
    switch (visitor) {
      case "anonymous":
        return (p, init) => anonymous.request(p, init);
      case "driver":
      case "otherDriver":
        return (p, init) => tablets[visitor].request(p, init);
      case "admin":
        return onTablet ? (p, init) => adminTablet.request(p, init) : hq.admin.request;
      case "dispatcher":
        return hq.dispatcher.request;
    }
  };

  const assetNames = (await (await anonymous.request("/hq/sign-in")).text())
    .match(/\/static\/dist\/[^"']+/g)?.map((p) => p.slice("/static/dist/".length)) ?? [];
  assert.ok(assetNames.length > 0, "the sign-in page links its built assets");

  const routes = routesOf(a, "GET");
  assert.deepEqual(
    routes.filter((r) => !(r in GET_RULES)),
    [],
    "every GET route has a rule in this test",
  );
  const failures: string[] = [];
  for (const pattern of routes) {
    const rule = GET_RULES[pattern];
    const path = pathFor(pattern, world, assetNames);
    for (const visitor of VISITORS) {
      const controller = new AbortController();
      const res = await requesterFor(visitor, path)(path, { signal: controller.signal });
      const allowed = allowedBy[rule].includes(visitor);
      // The live stream never ends by itself: its status and headers are the answer.
      const body = pattern.endsWith("/live") ? "" : new TextDecoder().decode(await res.arrayBuffer());
      controller.abort();
      await res.body?.cancel().catch(() => {});
      const label = `${visitor} GET ${path}: ${res.status}`;
      const toSignIn = [302, 303].includes(res.status) && /sign-in/.test(res.headers.get("location") ?? "");
      const refused = [401, 403, 404].includes(res.status) || toSignIn;
      if (res.status >= 500) failures.push(`${label} (a fault)`);
      else if (rule === "public") continue;
      else if (allowed && (refused || ![200, 302, 303].includes(res.status))) {
        failures.push(`${label} (expected an answer)`);
      } else if (!allowed && !refused) failures.push(`${label} (expected a refusal)`);
      else if (!allowed && body.includes(world.rego)) failures.push(`${label} (leaks the rego)`);
    }
  }
  assert.deepEqual(failures, []);
});

appTest(
  "access matrix: every POST route refuses visitors outside its rule before changing anything",
  async (a) => {
    const { world, tablet, hq } = await posters(a);
    const anonymous = new Tablet(a, { enrolled: false });

    const routes = routesOf(a, "POST");
    assert.deepEqual(
      routes.filter((r) => !(r in POST_RULES)),
      [],
      "every POST route has a rule in this test",
    );
    const before = await snapshot(a);
    const failures: string[] = [];
    for (const pattern of routes) {
      const rule = POST_RULES[pattern];
      if (rule === "own guard" || rule === "public") continue;
      const path = pathFor(pattern, world, []);
      // Each visitor posts with its own valid CSRF token: only the role can refuse it.
      const attempts: [Visitor, () => Promise<Response>][] = [
        ["anonymous", () => anonymous.request(path, formPost({}))],
        ["driver", () => tablet.request(path, formPost({ _csrf: tablet.csrf }, tablet.csrf))],
        ["dispatcher", () => hq.dispatcher.post(path, {}, { "x-csrf-token": hq.dispatcher.csrf })],
      ];
      for (const [visitor, attempt] of attempts) {
        if (allowedBy[rule].includes(visitor)) continue;
        const res = await attempt();
        await res.body?.cancel();
        if (![302, 303, 401, 403, 404].includes(res.status)) {
          failures.push(`${visitor} POST ${path}: ${res.status} (expected a refusal)`);
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.deepEqual(await snapshot(a), before, "refused posts changed nothing");
  },
);

function formPost(fields: Record<string, string>, csrf?: string): RequestInit {
  return {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(csrf ? { "x-csrf-token": csrf } : {}),
    },
    body: new URLSearchParams(fields).toString(),
  };
}

/** What a refused post could change: the rows of the records it names, and the count of what it adds. */
async function snapshot(a: TestApp): Promise<unknown> {
  const count = async (table: "parts_movements" | "part_status_history" | "audit_log" | "announcements") =>
    Number(
      (await a.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow()).n,
    );
  return {
    users: await a.db.selectFrom("users").selectAll().orderBy("id").execute(),
    devices: await a.db.selectFrom("devices").select(["id", "name"]).orderBy("id").execute(),
    repairers: await a.db.selectFrom("repairers").selectAll().orderBy("id").execute(),
    hq: await a.db.selectFrom("hq_locations").selectAll().orderBy("id").execute(),
    parts: await a.db.selectFrom("parts_orders").select(["id", "status"]).orderBy("id").execute(),
    movements: await count("parts_movements"),
    history: await count("part_status_history"),
    audit: await count("audit_log"),
    announcements: await count("announcements"),
  };
}

appTest(
  "session fixation: a session token planted before sign-in never becomes the signed-in session",
  async (a) => {
    const driver = await makeDriver(a);
    const victim = new Tablet(a);
    await victim.enrol();
    const planted = `${sessionCookie(a.config).name}=attacker-chosen-token`;
    victim.cookie = planted;
    await victim.signIn(driver);
    assert.ok(victim.cookie && victim.cookie !== planted, "sign-in set a new session cookie");
    assert.equal((await victim.request("/tablet")).status, 200);
    // The planted value, on the same enrolled tablet, is still nobody's session.
    const attacker = new Tablet(a);
    attacker.device = victim.device;
    attacker.deviceId = victim.deviceId;
    await attacker.enrol();
    attacker.device = victim.device;
    attacker.cookie = planted;
    const res = await attacker.request("/tablet");
    assert.equal(res.status, 303);
    assert.match(res.headers.get("location") ?? "", /^\/tablet\/sign-in/);
  },
);

appTest(
  "access matrix: every POST route behind a session wants this origin and the CSRF token",
  async (a) => {
    const { world, tablet, hq } = await posters(a);
    const before = await snapshot(a);
    const failures: string[] = [];
    for (const pattern of routesOf(a, "POST")) {
      const rule = POST_RULES[pattern];
      if (rule === "own guard" || rule === "public") continue;
      const path = pathFor(pattern, world, []);
      // A visitor the route allows: only the missing token or the foreign origin can refuse the post.
      const send = (headers: Record<string, string>, fields: Record<string, string>) =>
        rule === "tablet"
          ? tablet.request(path, {
            ...formPost(fields),
            headers: { ...formPost(fields).headers, ...headers },
          })
          : hq[rule === "admin" ? "admin" : "dispatcher"].post(path, fields, headers);
      const csrf = rule === "tablet" ? tablet.csrf : hq[rule === "admin" ? "admin" : "dispatcher"].csrf;
      const attempts: [string, Record<string, string>, Record<string, string>][] = [
        ["no token", {}, { _csrf: "" }],
        ["a wrong token", { "x-csrf-token": "wrong" }, { _csrf: "wrong" }],
        ["another origin", { "x-csrf-token": csrf, origin: "https://evil.example" }, { _csrf: csrf }],
        ["a cross-site fetch", { "x-csrf-token": csrf, "sec-fetch-site": "cross-site" }, { _csrf: csrf }],
      ];
      for (const [what, headers, fields] of attempts) {
        const res = await send(headers, fields);
        await res.body?.cancel();
        if (res.status !== 403) failures.push(`POST ${path} with ${what}: ${res.status} (expected 403)`);
      }
    }
    assert.deepEqual(failures, []);
    assert.deepEqual(await snapshot(a), before, "refused posts changed nothing");
  },
);
