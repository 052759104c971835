/**
 * The repair shops' private links on the admin's places page (docs/shop-page.md "The private link"): each
 * shop's row shows its link (opening the shop's page), "New link" (the old one then answers "replaced") and
 * "Turn off". Mounted by routes/hq/admin_places.tsx under `/hq/admin/places`:
 *
 *   POST /repairers/:id/link       a new link
 *   POST /repairers/:id/link/off   no link (until a new one is made)
 */
import { Hono } from "hono";
import { type HqContext, mustViewer, notFoundPage } from "@/components/hq/page.tsx";
import { buttonClass, Csrf, dangerButtonClass, linkClass, Time } from "@/components/hq/ui.tsx";
import type { AppDeps } from "@/lib/deps.ts";
import { replaceShopLink, revokeShopLink, type ShopLinkState } from "@/lib/shops/link.ts";
import { parseId } from "@/lib/validation.ts";
import { answerRefusal, type Refusal } from "@/routes/hq/refusals.ts";
import type { SessionEnv } from "@/routes/web/session.ts";

export const LINK_DONE = {
  "link-new": "New private link made: the old one no longer opens the shop's page.",
  "link-off": "Private link turned off: the shop's page no longer opens, and e-mails go without a link.",
} as const;

/** `show` draws the places page with a refusal's notice. */
export function shopLinkRoutes(deps: AppDeps, show: (c: HqContext, refusal: Refusal) => Promise<Response>) {
  const app = new Hono<SessionEnv>();
  const act = async (
    c: HqContext,
    work: (id: number, adminId: number) => Promise<unknown>,
    done: keyof typeof LINK_DONE,
  ) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "repair shop");
    try {
      await work(id, mustViewer(c).userId);
      return c.redirect(`/hq/admin/places?done=${done}#repairer-${id}`, 303);
    } catch (error) {
      return answerRefusal(c, error, { show: (r) => show(c, r) });
    }
  };
  app.post("/repairers/:id/link", (c) => act(c, (id, admin) => replaceShopLink(deps, admin, id), "link-new"));
  app.post(
    "/repairers/:id/link/off",
    (c) => act(c, (id, admin) => revokeShopLink(deps, admin, id), "link-off"),
  );
  return app;
}

/** A shop's link in its row of the places page. */
export function ShopLinkCell(
  { id, name, link, csrfToken }: {
    id: number;
    name: string;
    link: ShopLinkState | undefined;
    csrfToken: string;
  },
) {
  if (!link || link.state === "off") {
    return <span class="text-sm text-slate-600">Private pages are off (SHOP_LINK_SECRET).</span>;
  }
  return (
    <div class="flex flex-col gap-2 text-sm">
      {link.state === "current"
        ? (
          <span>
            <a class={linkClass} href={link.url} data-testid="shop-link">{name}'s page</a>{" "}
            <span class="text-slate-600">
              since <Time at={link.since} />
            </span>
            <input
              class="mt-1 block w-full font-mono text-xs"
              readOnly
              value={link.url}
              aria-label={`Private link of ${name}`}
            />
          </span>
        )
        : <span>{link.state === "revoked" ? "Turned off" : "No link yet"}</span>}
      <div class="flex flex-wrap gap-2">
        <form method="post" action={`/hq/admin/places/repairers/${id}/link`}>
          <Csrf token={csrfToken} />
          <button type="submit" class={buttonClass} aria-label={`New private link for ${name}`}>
            New link
          </button>
        </form>
        {link.state === "current" && (
          <form method="post" action={`/hq/admin/places/repairers/${id}/link/off`}>
            <Csrf token={csrfToken} />
            <button
              type="submit"
              class={dangerButtonClass}
              aria-label={`Turn off the private link of ${name}`}
            >
              Turn off
            </button>
          </form>
        )}
      </div>
    </div>
  );
}
