/**
 * The HTTP side of sessions (D23) for pages: the cookie, the signed-in user on `c.var.session`, role
 * checks (D24) and cross-site request protection. Shared by the tablet (routes/tablet) and the dashboard
 * (routes/hq).
 */
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Role } from "@/db/schema.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { resolveSession, type SessionEnd, type SessionUser } from "@/lib/sessions.ts";
import { secureEquals } from "@/io/secure_compare.ts";
import { refusal } from "@/routes/web/error_pages.tsx";

export const SESSION_COOKIE = "pm_session";

/** `sessionEnded`: why the session of the cookie the browser sent is over (null: no cookie, or signed in). */
export type SessionEnv = { Variables: { session: SessionUser | null; sessionEnded: SessionEnd | null } };

/** Puts the signed-in user (or null) on `c.var.session`. Signed-in pages are never cached. */
export function loadSession(deps: AppDeps): MiddlewareHandler<SessionEnv> {
  return async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    const resolved = token ? await resolveSession(deps.db, deps.clock, token) : null;
    c.set("session", resolved?.session ?? null);
    c.set("sessionEnded", resolved?.ended ?? null);
    if (token && !c.var.session) deleteCookie(c, SESSION_COOKIE, { path: "/" });
    await next();
    if (c.var.session) c.header("Cache-Control", "no-store");
  };
}

export function setSessionCookie(c: Context, deps: AppDeps, token: string): void {
  setCookie(c, SESSION_COOKIE, token, {
    path: "/",
    httpOnly: true,
    sameSite: "Strict",
    // Development runs on plain http://localhost; everywhere else the cookie only travels over TLS.
    secure: deps.config.appEnv !== "development",
  });
}

/**
 * Ends the browser side of a session: the session cookie, and whatever the browser cached over HTTP. Not
 * `"storage"`: the tablet keeps each driver's unsent work there (IndexedDB, by user id) and its offline
 * pages in the service worker's cache, which the worker itself drops at sign-out
 * (render/assets/tablet_sw.ts). Not `"cookies"`: that would also wipe an enrolled tablet's device cookie
 * (routes/web/device.ts); the session cookie is the only other cookie the site sets.
 */
export function clearSession(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/" });
  c.header("Clear-Site-Data", '"cache"');
}

/** The request's path and query, URL-encoded for a sign-in page's `next`. */
export function returnTarget(c: Context): string {
  const url = new URL(c.req.url);
  return encodeURIComponent(url.pathname + url.search);
}

/**
 * The page to go to after signing in: `value` when it is a path inside `area` (not its sign-in pages),
 * else `home`. Never another site (`//host`, `/\\host`) and no dot segments.
 */
export function safeNext(value: unknown, area: "/tablet" | "/hq", home: string): string {
  return typeof value === "string" && value.startsWith(area) && /^([/?]|$)/.test(value.slice(area.length)) &&
      !/[\\\s]/.test(value) && !value.includes("..") && !value.includes("//") &&
      !value.startsWith(`${area}/sign-`)
    ? value
    : home;
}

/**
 * Lets only signed-in users of the given roles through. Not signed in: a GET is sent to `signInPath`
 * with `next` set (so the driver lands back where they were), anything else gets 401. Wrong role: 403.
 * Refusals are answered for the request's face (routes/web/error_pages.tsx: a styled page, or JSON).
 */
export function requireRole(roles: readonly Role[], signInPath: string): MiddlewareHandler<SessionEnv> {
  return async (c, next) => {
    const session = c.var.session;
    if (!session) {
      if (c.req.method === "GET") {
        return c.redirect(`${signInPath}?next=${returnTarget(c)}`, 303);
      }
      return await refusal(c, 401, "Signed out. Sign in again.");
    }
    if (!roles.includes(session.user.role)) {
      return await refusal(
        c,
        403,
        `This page is for ${roles.join(" and ")} users. You are signed in as a ${session.user.role}.`,
      );
    }
    await next();
  };
}

/**
 * Refuses cross-site form posts: the request must come from this origin (Origin or Sec-Fetch-Site), and
 * a signed-in request must carry the session's CSRF token (`_csrf` form field or `X-CSRF-Token` header).
 * SameSite=Strict already keeps the cookie off cross-site requests; this is the second lock.
 */
export function csrfProtect(deps: AppDeps): MiddlewareHandler<SessionEnv> {
  // Behind a proxy the request URL may be internal; the public address counts as this origin too.
  const publicOrigin = new URL(deps.config.publicUrl).origin;
  return async (c, next) => {
    if (["GET", "HEAD", "OPTIONS"].includes(c.req.method)) return await next();
    const origin = c.req.header("origin");
    const site = c.req.header("sec-fetch-site");
    const sameOrigin = origin
      ? origin === new URL(c.req.url).origin || origin === publicOrigin
      : site
      ? site === "same-origin" || site === "none"
      : true;
    if (!sameOrigin) return await refusal(c, 403, "Cross-site request refused.");
    const session = c.var.session;
    if (session) {
      let sent = c.req.header("x-csrf-token");
      if (
        !sent &&
        /^(application\/x-www-form-urlencoded|multipart\/form-data)/.test(c.req.header("content-type") ?? "")
      ) {
        const form = await c.req.parseBody();
        sent = typeof form._csrf === "string" ? form._csrf : undefined;
      }
      if (!sent || !secureEquals(sent, session.csrfToken)) {
        return await refusal(c, 403, "This form has expired. Go back, reload the page and try again.");
      }
    }
    await next();
  };
}
