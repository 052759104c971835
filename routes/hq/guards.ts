/**
 * Who may reach what (D24): the role checks the dashboard's areas attach (routes/hq/mod.ts: dispatchers
 * and admins on every path under /hq but sign-in and sign-out, admins only under /hq/admin), and the
 * signed-in check of the photos.
 */
import type { MiddlewareHandler } from "hono";
import type { AppDeps } from "@/lib/deps.ts";
import { requireRole, resolveCookies, sessionCookies, type SessionEnv } from "@/routes/web/session.ts";

export const HQ_SIGN_IN = "/hq/sign-in";

/** Dispatchers and admins: the dashboard. */
export const requireStaff = (): MiddlewareHandler<SessionEnv> =>
  requireRole(["dispatcher", "admin"], HQ_SIGN_IN);

/** Admins only: users, places, import. */
export const requireAdmin = (): MiddlewareHandler<SessionEnv> => requireRole(["admin"], HQ_SIGN_IN);

/**
 * Any signed-in user (driver, dispatcher or admin) on `c.var.session`, else 401. For `/photos/*`: it reads
 * the session without loadSession, which would mark the answer `no-store` and undo the photos' long-lived
 * private caching. Which photos the user may see is the route's rule (lib/photos/access.ts).
 */
export function requireSignedIn(deps: AppDeps): MiddlewareHandler<SessionEnv> {
  return async (c, next) => {
    const session = (await resolveCookies(deps, sessionCookies(c, deps.config)))?.session ?? null;
    if (!session) return c.text("Sign in to see photos.", 401);
    c.set("session", session);
    await next();
  };
}
