/**
 * The answers of the dashboard's pages: a page in the HQ shell, and its styled error pages (so a browser
 * never gets a bare text or JSON answer inside /hq). Every route module of routes/hq renders through here.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ComponentChildren } from "preact";
import { type HqSection, hqShell, type HqViewer } from "@/components/hq/HqShell.tsx";
import type { CappedCount } from "@/db/queries/announcements.ts";
import { ValidationError } from "@/lib/errors.ts";
import { DepotTimeZone } from "@/components/hq/ui.tsx";
import { renderPage } from "@/render/page.tsx";
import type { SessionEnv } from "@/routes/web/session.ts";

export type HqContext = Context<SessionEnv>;

declare module "hono" {
  interface ContextVariableMap {
    /** The depot's time zone for the dashboard's times (set by `depotTimeZoneOf`). */
    depotTimeZone: string;
    /** How many return requests are open, for the navigation (set by `openRequestCountOf`). */
    openReturnRequests: number | undefined;
    /** How many items wait in the action queue, for the header (set by `openRequestCountOf`). */
    actionQueueCount: CappedCount | undefined;
  }
}

/** Puts the depot's time zone on the request, for hqPage to hand to every <Time> of the page. */
export function depotTimeZoneOf(timeZone: string): MiddlewareHandler {
  return async (c, next) => {
    c.set("depotTimeZone", timeZone);
    await next();
  };
}

function viewerOf(c: HqContext): HqViewer | null {
  const s = c.var.session;
  return s
    ? {
      name: s.user.name,
      role: s.user.role,
      csrfToken: s.csrfToken,
      openReturnRequests: c.get("openReturnRequests"),
      queueCount: c.get("actionQueueCount"),
    }
    : null;
}

/** The signed-in viewer; routes behind the access guard always have one. */
export function mustViewer(c: HqContext): HqViewer & { userId: number } {
  const s = c.var.session;
  if (!s) throw new Error("dashboard route reached without a session: the access guard is missing");
  return { name: s.user.name, role: s.user.role, csrfToken: s.csrfToken, userId: s.user.id };
}

/**
 * `body` inside the HQ shell (navigation for the viewer, `section` marked as current, `searched` in the
 * search box); `rootStyle` gives a printed page's margins their text (components/hq/print_margins.ts).
 */
export async function hqPage(
  c: HqContext,
  opts: {
    title: string;
    section: HqSection;
    status?: ContentfulStatusCode;
    rootStyle?: string;
    searched?: string;
  },
  body: ComponentChildren,
): Promise<Response> {
  const zone = c.get("depotTimeZone") ?? "UTC";
  const html = await renderPage(
    <DepotTimeZone.Provider value={zone}>{body}</DepotTimeZone.Provider>,
    {
      title: opts.title,
      layout: hqShell(viewerOf(c), opts.section, opts.searched),
      rootStyle: opts.rootStyle,
    },
  );
  return c.html(html, opts.status ?? 200);
}

/** An error answer as a dashboard page: a heading, what happened, and a way on. */
export function errorPage(
  c: HqContext,
  opts: { status: ContentfulStatusCode; title: string; children: ComponentChildren },
): Promise<Response> {
  return hqPage(
    c,
    { title: opts.title, section: "none", status: opts.status },
    <div class="rounded border border-slate-200 bg-white p-6">
      <h1 class="mb-2 text-xl font-semibold">{opts.title}</h1>
      <p class="text-slate-700">{opts.children}</p>
    </div>,
  );
}

/** The dashboard's 404: this `what` (part, movement, …) does not exist. */
export function notFoundPage(c: HqContext, what = "page"): Promise<Response> {
  return errorPage(c, {
    status: 404,
    title: "Not found",
    children: (
      <>
        This {what} does not exist. <a class="text-sky-800 underline" href="/hq/parts">Back to parts</a>
      </>
    ),
  });
}

/**
 * A list or export asked with a filter the dashboard refuses (a control character, lib/validation.ts): 400
 * with the reason, before any row is read or any byte of an export is sent. Anything else is rethrown.
 */
export function refusedQueryPage(c: HqContext, error: unknown, back: string): Promise<Response> {
  if (!(error instanceof ValidationError)) throw error;
  return errorPage(c, {
    status: 400,
    title: "Invalid search",
    children: (
      <>
        {error.message} <a class="text-sky-800 underline" href={back}>Clear the filters</a>
      </>
    ),
  });
}
