/**
 * `/shop/<token>`: a repair shop's private page (docs/shop-page.md), no account and no session. The token in
 * the path is the shop's link (lib/shops/link.ts); an unknown one is a styled 404, a replaced or turned-off one
 * a 410 saying so. Every answer is `noindex` and not cached; the app's `Referrer-Policy: same-origin` keeps
 * the path (the secret) from any other site (and `no-referrer` would make the browser send `Origin: null` on
 * the page's own forms, which the origin check refuses).
 * Rate limited per client address; forms are checked for origin (csrfProtect: no session, so origin only).
 *
 *   GET  /shop/:token                      the page
 *   POST /shop/:token/ready                form `part` (repeated) → 303 back with what was done
 *   POST /shop/:token/problems             form `part`, `reason`, `note` → 303 back, at the report
 *   POST /shop/:token/problems/:id/photo   multipart `file` → 303 back
 *   GET  /shop/:token/photos/:id[/thumb]   photos of the shop's deliveries, collections and reports
 */
import { type Context, Hono } from "hono";
import { z } from "zod";
import { ShopLinkGone, type ShopNotice, ShopPage } from "@/components/shop_page.tsx";
import { ShopLayout } from "@/components/ShopLayout.tsx";
import { problemReportsOfShop } from "@/db/queries/shop_problems.ts";
import { isPhotoOfShop } from "@/db/queries/shop_page.ts";
import { ENVELOPE_ALLOWANCE, readFilePart } from "@/io/multipart.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import { photoTooLarge, UploadRefused } from "@/lib/photos/upload.ts";
import { lookUpShopLink } from "@/lib/shops/link.ts";
import { shopPageData } from "@/lib/shops/page.ts";
import {
  attachProblemPhoto,
  PROBLEM_NOTE_MAX,
  PROBLEM_REASONS,
  reportProblem,
} from "@/lib/shops/problems.ts";
import { markReadyForCollection, type ReadyResult } from "@/lib/shops/ready.ts";
import { idField, parseId, parseInput } from "@/lib/validation.ts";
import { renderPage } from "@/render/page.tsx";
import { photoServing } from "@/routes/photos.ts";
import { limitStreamedBody, smallBodies } from "@/routes/web/body_limits.ts";
import { limitPerAddress, LIMITS } from "@/routes/web/rate_limits.ts";
import { csrfProtect } from "@/routes/web/session.ts";

type ShopEnv = { Variables: { shop: { repairerId: number; repairerName: string } } };

const readySchema = z.object({ part: z.union([idField, z.array(idField).max(500)]).optional() });
const problemSchema = z.object({
  part: idField,
  reason: z.enum(Object.keys(PROBLEM_REASONS) as [keyof typeof PROBLEM_REASONS]),
  // The use case cleans and checks the note; the cap here only bounds what is read.
  note: z.string().max(PROBLEM_NOTE_MAX * 2).optional(),
});

const GONE = {
  replaced: [
    "This link was replaced",
    "The depot gave your shop a new link. Use the newest one they sent you.",
  ],
  revoked: ["This link was turned off", "Ask the depot for a new link to your shop's page."],
  unknown: [
    "This link does not work",
    "Check that you copied the whole link, or ask the depot for it again.",
  ],
} as const;

async function page(
  c: Context,
  title: string,
  body: preact.ComponentChildren,
  status: 200 | 404 | 410 | 422 = 200,
) {
  c.header("X-Robots-Tag", "noindex, nofollow");
  c.header("Cache-Control", "no-store");
  return c.html(await renderPage(body, { title: `${title} · Parts Movement`, layout: ShopLayout }), status);
}

/** What a "Ready for collection" did, in the shop's words. */
function readyNotice(r: ReadyResult): ShopNotice {
  const said = [
    r.flagged.length
      ? `Thank you: ${r.flagged.join(", ")} ${
        r.flagged.length === 1 ? "is" : "are"
      } ready for collection. A driver will collect ${r.flagged.length === 1 ? "it" : "them"}.`
      : "",
    r.alreadyFlagged.length
      ? `${r.alreadyFlagged.join(", ")} ${
        r.alreadyFlagged.length === 1 ? "was" : "were"
      } already waiting for collection.`
      : "",
    r.leftAlone.length
      ? `Not changed: ${r.leftAlone.map((p) => p.partNo).join(", ")} (no longer at your shop).`
      : "",
  ];
  return { kind: r.leftAlone.length ? "error" : "ok", text: said.filter(Boolean).join(" ") };
}

export function shopRoutes(deps: AppDeps) {
  const app = new Hono<ShopEnv>();
  const base = (c: Context) => `/shop/${c.req.param("token")}`;

  app.use("/:token/*", limitPerAddress(deps, LIMITS.shopPagePerAddress, "text"));
  app.use("/:token", limitPerAddress(deps, LIMITS.shopPagePerAddress, "text"));
  // Bodies are capped before the link is looked up: an oversized post costs no query.
  const maxBytes = deps.config.maxPhotoBytes;
  app.use("/:token/ready", smallBodies(deps, "Request body too large."));
  app.use("/:token/problems", smallBodies(deps, "Request body too large."));
  app.use(
    "/:token/problems/:id/photo",
    limitStreamedBody(
      deps,
      maxBytes + ENVELOPE_ALLOWANCE,
      (c) => c.text(photoTooLarge(maxBytes).message, 413),
    ),
  );
  const resolve = async (c: Context<ShopEnv>, next: () => Promise<void>) => {
    const found = await lookUpShopLink(deps.db, deps.config, c.req.param("token") ?? "");
    if (found.state !== "current") {
      await c.req.raw.body?.cancel().catch(() => {});
      const [title, text] = GONE[found.state];
      return await page(
        c,
        title,
        <ShopLinkGone title={title} text={text} />,
        found.state === "unknown" ? 404 : 410,
      );
    }
    c.set("shop", { repairerId: found.repairerId, repairerName: found.repairerName });
    await next();
  };
  app.use("/:token", resolve);
  app.use("/:token/*", resolve);

  const render = async (c: Context<ShopEnv>, notice?: ShopNotice, status: 200 | 422 = 200) => {
    const shop: ShopEnv["Variables"]["shop"] = c.var.shop;
    const zone = deps.config.depotTimeZone;
    const [data, reports] = await Promise.all([
      shopPageData(deps.db, deps.clock, zone, { repairerId: shop.repairerId, name: shop.repairerName }),
      problemReportsOfShop(deps.db, shop.repairerId, 20),
    ]);
    const reportedId = parseId(c.req.query("reported") ?? "") ?? undefined;
    return await page(
      c,
      shop.repairerName,
      <ShopPage
        data={data}
        reports={reports}
        base={base(c)}
        zone={zone}
        notice={notice}
        reportedId={reportedId}
      />,
      status,
    );
  };

  // A refusal re-renders the page with the reason; a photo refused likewise (its own words).
  app.onError(async (error, c) => {
    if (!(error instanceof DomainError || error instanceof UploadRefused) || !c.var.shop) throw error;
    await c.req.raw.body?.cancel().catch(() => {});
    return await render(c, { kind: "error", text: error.message }, 422);
  });

  app.get("/:token", async (c) => {
    const done = c.req.query("done");
    const notice: ShopNotice | undefined = done === "reported"
      ? { kind: "ok", text: "Thank you: HQ has your report. You can add a photo to it below." }
      : done === "photo"
      ? { kind: "ok", text: "Photo sent to HQ." }
      : undefined;
    return await render(c, notice);
  });

  const forms = new Hono<ShopEnv>();
  forms.use(csrfProtect(deps));
  forms.post("/ready", async (c) => {
    const { part } = parseInput(readySchema, await c.req.parseBody({ all: true }));
    const ids = part === undefined ? [] : Array.isArray(part) ? part : [part];
    const shop = c.var.shop;
    const result = await markReadyForCollection(deps, {
      repairerId: shop.repairerId,
      name: shop.repairerName,
    }, ids);
    return await render(c, readyNotice(result));
  });
  forms.post("/problems", async (c) => {
    const input = parseInput(problemSchema, await c.req.parseBody());
    const id = await reportProblem(deps, c.var.shop.repairerId, {
      partId: input.part,
      reason: input.reason,
      note: input.note ?? null,
    });
    return c.redirect(`${base(c)}?done=reported&reported=${id}#report-${id}`, 303);
  });
  app.route("/:token", forms);

  app.post(
    "/:token/problems/:id/photo",
    csrfProtect(deps),
    async (c) => {
      const id = parseId(c.req.param("id"));
      if (id === null) throw new DomainError("not_found", "Report not found.");
      await attachProblemPhoto(
        deps,
        c.var.shop.repairerId,
        id,
        (sink) => readFilePart(c.req.raw, { maxBytes }, sink),
      );
      return c.redirect(`${base(c)}?done=photo#report-${id}`, 303);
    },
  );

  app.route(
    "/:token/photos",
    photoServing<ShopEnv>(deps, (c, id) => isPhotoOfShop(deps.db, c.var.shop.repairerId, id)),
  );
  return app;
}
