/**
 * The tablet's session plumbing on top of routes/web/session.ts: who may use the tablet, the
 * "you were signed out" redirect for a session that ended while the page was open, and the idle time left
 * on every answer (the idle warning counts down from it).
 */
import type { Context, MiddlewareHandler } from "hono";
import type { AppDeps } from "@/lib/deps.ts";
import { TABLET_ROLES } from "@/lib/tablet_data.ts";
import { requireRole, returnTarget, sessionCookie, type SessionEnv } from "@/routes/web/session.ts";

export const SIGN_IN_PATH = "/tablet/sign-in";

/** Signed-in drivers and admins only (D24). A GET whose session just ended is told why on the sign-in page. */
export function requireTabletUser(deps: Pick<AppDeps, "config">): MiddlewareHandler<SessionEnv> {
  const byRole = requireRole(TABLET_ROLES, SIGN_IN_PATH);
  const cookie = sessionCookie(deps.config);
  return async (c, next) => {
    if (!c.var.session && c.req.method === "GET" && cookie.get(c)) {
      // The browser still had a session cookie, so the session ended on the server: idle timeout.
      return c.redirect(`${SIGN_IN_PATH}?reason=idle&next=${returnTarget(c)}`, 303);
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
