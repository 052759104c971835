/** Shared helpers of the dashboard's route modules: render a page in the HQ shell, read ids and pages. */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ComponentChildren } from "preact";
import { type HqSection, hqShell, type HqViewer } from "@/components/hq/HqShell.tsx";
import { renderPage } from "@/render/page.tsx";
import type { SessionEnv } from "@/routes/web/session.ts";

export type HqContext = Context<SessionEnv>;

export const SIGN_IN_PATH = "/hq/sign-in";
export const PAGE_SIZE = 25;

function viewerOf(c: HqContext): HqViewer | null {
  const s = c.var.session;
  return s ? { name: s.user.name, role: s.user.role, csrfToken: s.csrfToken } : null;
}

/** The signed-in viewer; routes behind the access guard always have one. */
export function mustViewer(c: HqContext): HqViewer & { userId: number } {
  const s = c.var.session;
  if (!s) throw new Error("dashboard route reached without a session: the access guard is missing");
  return { name: s.user.name, role: s.user.role, csrfToken: s.csrfToken, userId: s.user.id };
}

export async function hqPage(
  c: HqContext,
  opts: { title: string; section: HqSection; status?: ContentfulStatusCode },
  body: ComponentChildren,
): Promise<Response> {
  const html = await renderPage(body, { title: opts.title, layout: hqShell(viewerOf(c), opts.section) });
  return c.html(html, opts.status ?? 200);
}

/** A positive integer id from a path or form value, else null (the route answers 404). */
export function parseId(value: string | undefined | null): number | null {
  if (!value || !/^\d{1,10}$/.test(value)) return null;
  const n = Number(value);
  return n > 0 && n <= 2_147_483_647 ? n : null;
}

/** `?page=N` (1-based, capped so an offset stays sane). */
function parsePage(value: string | undefined): number {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 10_000 ? n : 1;
}

/** A list page's request: its filters (the query values named), its page number, and that page's rows. */
export function listRequest(c: HqContext, names: readonly string[]) {
  const query = filterQuery(c, names);
  const page = parsePage(c.req.query("page"));
  return { query, page, paging: { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE } };
}

/** A form field as a string ("" when absent or a file). */
export function field(form: Record<string, unknown>, name: string): string {
  const v = form[name];
  return typeof v === "string" ? v : "";
}

/** Query values without the page number and the one-off notice, for paging and export links. */
export function filterQuery(c: HqContext, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const v = c.req.query(name)?.trim();
    if (v) out[name] = v;
  }
  return out;
}

/** An HTML 404 inside the dashboard shell (the app-wide 404 answers JSON for the API). */
export function notFoundPage(c: HqContext, what = "page"): Promise<Response> {
  return hqPage(
    c,
    { title: "Not found", section: "none", status: 404 },
    <div class="rounded border border-slate-200 bg-white p-6">
      <h1 class="mb-2 text-xl font-semibold">Not found</h1>
      <p class="text-slate-700">
        This {what} does not exist. <a class="text-sky-800 underline" href="/hq/parts">Back to parts</a>
      </p>
    </div>,
  );
}
