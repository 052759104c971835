/**
 * The tablet's session plumbing on top of routes/web/session.ts: who may use the tablet, the
 * "you were signed out" redirect for a session that ended while the page was open, and the idle time left
 * on every answer (the idle warning counts down from it).
 */
import type { Context, MiddlewareHandler } from "hono";
import type { AppDeps } from "@/lib/deps.ts";
import { TABLET_ROLES } from "@/lib/tablet_data.ts";
import { endedMessage, requireRole, returnTarget, type SessionEnv } from "@/routes/web/session.ts";
import { refusal } from "@/routes/web/error_pages.tsx";

export const SIGN_IN_PATH = "/tablet/sign-in";

/**
 * Signed-in drivers and admins only (D24). A GET whose session just ended is told why on the sign-in page:
 * `idle` only when it timed out (lib/sessions.ts resolveSession tells that apart from a deactivated user,
 * a sign-out elsewhere or a new PIN, which get the plain `ended`). A tablet HQ revoked (`revoked`) has no
 * sign-in page to go back to: every request, a page as well as the islands' JSON and photo uploads, gets a
 * 401 saying "This tablet was removed by HQ" (docs/sign-in.md "Sessions on a tablet").
 */
export function requireTabletUser(): MiddlewareHandler<SessionEnv> {
  const byRole = requireRole(TABLET_ROLES, SIGN_IN_PATH);
  return async (c, next) => {
    const ended = c.var.sessionEnded;
    if (!c.var.session && ended === "revoked") return await refusal(c, 401, endedMessage(ended));
    if (!c.var.session && c.req.method === "GET" && ended) {
      return c.redirect(`${SIGN_IN_PATH}?reason=${ended}&next=${returnTarget(c)}`, 303);
    }
    return await byRole(c, next);
  };
}

/** Milliseconds until the session ends if nothing else happens; 0 when signed out. */
export function idleLeftMs(c: Context<SessionEnv>, deps: AppDeps): number {
  const session = c.var.session;
  return session ? Math.max(0, session.expiresAt.getTime() - deps.clock.now().getTime()) : 0;
}

/** Adds `X-Session-Expires-In` (ms) to every answer of a signed-in request. */
export function idleHeader(deps: AppDeps): MiddlewareHandler<SessionEnv> {
  return async (c, next) => {
    await next();
    if (c.var.session) c.header("X-Session-Expires-In", String(idleLeftMs(c, deps)));
  };
}
