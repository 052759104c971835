/**
 * Who may reach what (D24). The dashboard denies by default: every path under /hq except sign-in and
 * sign-out needs a dispatcher or admin session, and every path under /hq/admin an admin session, whatever
 * route modules are added later. Photos need any signed-in session.
 */
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { AppDeps } from "@/lib/deps.ts";
import { resolveSession } from "@/lib/sessions.ts";
import { requireRole, SESSION_COOKIE, type SessionEnv } from "@/routes/web/session.ts";

export const HQ_SIGN_IN = "/hq/sign-in";
const PUBLIC_PATHS = new Set(["/hq/sign-in", "/hq/sign-out"]);

/** Runs after loadSession: picks the role check by path. */
export function hqAccessGuard(): MiddlewareHandler<SessionEnv> {
  const staff = requireRole(["dispatcher", "admin"], HQ_SIGN_IN);
  const admin = requireRole(["admin"], HQ_SIGN_IN);
  return (c, next) => {
    const path = c.req.path;
    if (PUBLIC_PATHS.has(path)) return next();
    if (path === "/hq/admin" || path.startsWith("/hq/admin/")) return admin(c, next);
    return staff(c, next);
  };
}

/**
 * Any signed-in user (driver, dispatcher or admin), else 401. For `/photos/*`: it reads the session without
 * loadSession, which would mark the answer `no-store` and undo the photos' long-lived private caching.
 */
export function requireSignedIn(deps: AppDeps): MiddlewareHandler {
  return async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    const session = token ? await resolveSession(deps.db, deps.clock, token) : null;
    if (!session) return c.text("Sign in to see photos.", 401);
    await next();
  };
}
