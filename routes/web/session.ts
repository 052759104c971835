/**
 * The HTTP side of sessions (D23) for pages: the cookie, the signed-in user on `c.var.session`, role
 * checks (D24) and cross-site request protection. Shared by the tablet (routes/tablet) and the dashboard
 * (routes/hq).
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Role } from "@/db/schema.ts";
import type { Config } from "@/io/config.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { type ResolvedSession, resolveSession, type SessionEnd, type SessionUser } from "@/lib/sessions.ts";
import { secureEquals } from "@/io/secure_compare.ts";
import { isBufferedBody } from "@/routes/web/body_limits.ts";
import { type OwnCookie, ownCookie } from "@/routes/web/cookies.ts";
import { deviceCookie } from "@/routes/web/device.ts";
import { refusal } from "@/routes/web/error_pages.tsx";

/** The session cookie: `pm_session`, `__Host-pm_session` outside development (routes/web/cookies.ts). */
export const sessionCookie = (config: Pick<Config, "appEnv">): OwnCookie => ownCookie(config, "pm_session");

/** `sessionEnded`: why the session of the cookie the browser sent is over (null: no cookie, or signed in). */
export type SessionEnv = { Variables: { session: SessionUser | null; sessionEnded: SessionEnd | null } };

/** What a tablet says when HQ revoked it (lib/sessions.ts SessionEnd `revoked`, docs/sign-in.md). */
export const TABLET_REMOVED = "This tablet was removed by HQ";

/** The cookies that make a request's session: the session token and the device token (a tablet's). */
export interface SessionCookies {
  token: string | undefined;
  deviceToken: string | undefined;
}

export function sessionCookies(c: Context, config: Pick<Config, "appEnv">): SessionCookies {
  return { token: sessionCookie(config).get(c), deviceToken: deviceCookie(config).get(c) };
}

/**
 * The session of a request's cookies (lib/sessions.ts resolveSession: a tablet session counts only with
 * its device's cookie); null when there is no session cookie.
 */
export async function resolveCookies(
  deps: Pick<AppDeps, "db" | "clock">,
  cookies: SessionCookies,
  opts: { passive?: boolean } = {},
): Promise<ResolvedSession | null> {
  if (!cookies.token) return null;
  return await resolveSession(deps.db, deps.clock, cookies.token, {
    passive: opts.passive,
    deviceToken: cookies.deviceToken,
  });
}

/** Puts the signed-in user (or null) on `c.var.session`. Signed-in pages are never cached. */
export function loadSession(deps: AppDeps): MiddlewareHandler<SessionEnv> {
  const cookie = sessionCookie(deps.config);
  return async (c, next) => {
    const cookies = sessionCookies(c, deps.config);
    const token = cookies.token;
    const resolved = await resolveCookies(deps, cookies, { passive: isPassive(c) });
    c.set("session", resolved?.session ?? null);
    c.set("sessionEnded", resolved?.ended ?? null);
    // Kept for a revoked tablet: the session it names is gone, and each request keeps saying why.
    if (token && !c.var.session && c.var.sessionEnded !== "revoked") cookie.clear(c);
    await next();
    if (c.var.session) c.header("Cache-Control", "no-store");
  };
}

/**
 * A request the browser makes by itself, not the user: the live dashboard's event stream (EventSource
 * always asks for `text/event-stream`) and its refreshes (`X-HQ-Live: 1`, islands/HqLive.tsx). It does not
 * count as activity for the idle timeout (D23).
 */
function isPassive(c: Context): boolean {
  return c.req.header("x-hq-live") === "1" || (c.req.header("accept") ?? "").includes("text/event-stream");
}

/** Sets the session cookie: ends with the browser session; only over TLS outside development. */
export function setSessionCookie(c: Context, deps: Pick<AppDeps, "config">, token: string): void {
  sessionCookie(deps.config).set(c, token);
}

/**
 * Ends the browser side of a session: the session cookie, and whatever the browser cached over HTTP. Not
 * `"storage"`: the tablet keeps each driver's unsent work there (IndexedDB, by user id) and its offline
 * pages in the service worker's cache, which the worker itself drops at sign-out
 * (render/assets/tablet_sw.ts). Not `"cookies"`: that would also wipe an enrolled tablet's device cookie
 * (routes/web/device.ts), nor the dashboard's remembered-browser cookie (routes/web/remembered_browser.ts),
 * which opens nothing but keeps this browser's wrong passwords counted apart; the session cookie is the only
 * other cookie the site sets.
 */
export function clearSession(c: Context, deps: Pick<AppDeps, "config">): void {
  sessionCookie(deps.config).clear(c);
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
      // Inactivity only when that is why (lib/sessions.ts resolveSession): a deactivated user or a session
      // ended elsewhere is not told they were idle.
      return await refusal(c, 401, endedMessage(c.var.sessionEnded));
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

/** What a request whose session is over is told (routes/web/error_pages.tsx shows it, or the islands). */
export function endedMessage(ended: SessionEnd | null): string {
  if (ended === "idle") return "You were signed out after 10 minutes without activity. Sign in again.";
  if (ended === "revoked") return TABLET_REMOVED;
  return "You were signed out. Sign in again.";
}

/**
 * Refuses cross-site form posts: the request must come from this origin (Origin or Sec-Fetch-Site), and
 * a signed-in request must carry the session's CSRF token. SameSite=Strict already keeps the cookie off
 * cross-site requests; this is the second lock.
 *
 * The token comes from the `X-CSRF-Token` header, or (pages' forms, unless `headerOnly`: the JSON and
 * photo endpoints) from the `_csrf` field of a form body that a body limit already read whole under its
 * cap (routes/web/body_limits.ts bufferedBodies): this check never reads a body from the network, so an
 * oversized or streamed body (a photo) is refused here unread.
 *
 * `signIn`: for the sign-in areas. A sign-in post replaces whatever session the browser has (a driver's
 * on the tablet, say), so it is checked for origin only: its page was rendered for no session or another
 * one, and demanding that session's token would refuse the sign-in ("This form has expired").
 */
export function csrfProtect(
  deps: AppDeps,
  opts: { signIn?: boolean; headerOnly?: boolean } = {},
): MiddlewareHandler<SessionEnv> {
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
    if (!sameOrigin) return await refuse(c, "Cross-site request refused.");
    const session = c.var.session;
    const signingIn = opts.signIn && c.req.path.endsWith("/sign-in");
    if (session && !signingIn) {
      const sent = c.req.header("x-csrf-token") ?? (opts.headerOnly ? undefined : await formToken(c));
      if (!sent || !secureEquals(sent, session.csrfToken)) {
        return await refuse(c, "This form has expired. Go back, reload the page and try again.");
      }
    }
    await next();
  };
}

/** The `_csrf` field of a form body already held in memory; never reads a body from the network. */
async function formToken(c: Context): Promise<string | undefined> {
  if (!isBufferedBody(c.req.raw)) return undefined;
  if (
    !/^(application\/x-www-form-urlencoded|multipart\/form-data)/.test(c.req.header("content-type") ?? "")
  ) {
    return undefined;
  }
  const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
  return typeof form._csrf === "string" ? form._csrf : undefined;
}

/** A 403 that leaves any unread body unread (a no-op once a body limit read it). */
async function refuse(c: Context, message: string): Promise<Response> {
  if (!isBufferedBody(c.req.raw)) await c.req.raw.body?.cancel().catch(() => {});
  return await refusal(c, 403, message);
}
