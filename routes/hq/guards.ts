/**
 * Who may reach what (D24): the role checks the dashboard's areas attach (routes/hq/mod.ts: dispatchers
 * and admins on every path under /hq but sign-in and sign-out, admins only under /hq/admin), and the
 * signed-in check of the photos.
 */
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { AppDeps } from "@/lib/deps.ts";
import { resolveSession } from "@/lib/sessions.ts";
import { requireRole, SESSION_COOKIE, type SessionEnv } from "@/routes/web/session.ts";

export const HQ_SIGN_IN = "/hq/sign-in";

/** Dispatchers and admins: the dashboard. */
export const requireStaff = (): MiddlewareHandler<SessionEnv> =>
  requireRole(["dispatcher", "admin"], HQ_SIGN_IN);

/** Admins only: users, places, import. */
export const requireAdmin = (): MiddlewareHandler<SessionEnv> => requireRole(["admin"], HQ_SIGN_IN);

/**
 * Any signed-in user (driver, dispatcher or admin), else 401. For `/photos/*`: it reads the session without
 * loadSession, which would mark the answer `no-store` and undo the photos' long-lived private caching.
 */
export function requireSignedIn(deps: AppDeps): MiddlewareHandler {
  return async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    const session = token ? (await resolveSession(deps.db, deps.clock, token)).session : null;
    if (!session) return c.text("Sign in to see photos.", 401);
    await next();
  };
}
