/**
 * The depot tablet (docs/tablet.md), mounted at /tablet. Every request loads the session and gets the idle
 * time left; each area then carries its own body limit (first: an oversized body is refused, signed in or
 * not), guard and cross-site check (D23, D24):
 * - sign-in and sign-out: open to all, small form bodies, sign-in attempts limited per address;
 * - /api: the islands' endpoints, for signed-in drivers and admins (routes/tablet/api.ts);
 * - everything else (the job pages, receipts, and any unknown path): signed-in drivers and admins.
 * Mount order matters: a route that answers ends the chain, so the open area is mounted first and the
 * signed-in guard of the catch-all area never sees sign-in.
 */
import { Hono } from "hono";
import type { AppDeps } from "@/lib/deps.ts";
import { apiRoutes } from "@/routes/tablet/api.ts";
import { idleHeader, requireTabletUser } from "@/routes/tablet/guard.ts";
import { jobRoutes } from "@/routes/tablet/jobs.tsx";
import { receiptRoutes } from "@/routes/tablet/receipt.tsx";
import { signInRoutes } from "@/routes/tablet/sign_in.tsx";
import { smallBodies } from "@/routes/web/body_limits.ts";
import { behind, withOwnMiddleware } from "@/routes/web/mount.ts";
import { limitPerAddress, LIMITS } from "@/routes/web/rate_limits.ts";
import { csrfProtect, loadSession, type SessionEnv } from "@/routes/web/session.ts";

const TOO_LARGE = "Request body too large.";

function openArea(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  // PIN guessing: attempts per client address.
  app.post("/sign-in", limitPerAddress(deps, LIMITS.signInPerAddress, "text"));
  app.route(
    "/",
    withOwnMiddleware(signInRoutes(deps), smallBodies(deps, TOO_LARGE), csrfProtect(deps, { signIn: true })),
  );
  return app;
}

function signedInArea(deps: AppDeps) {
  const pages = new Hono<SessionEnv>();
  pages.route("/movements", receiptRoutes(deps));
  pages.route("/", jobRoutes(deps));
  return behind(pages, smallBodies(deps, TOO_LARGE), requireTabletUser(), csrfProtect(deps));
}

export function tabletRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.use(loadSession(deps), idleHeader(deps));
  app.route("/", openArea(deps));
  app.route("/api", apiRoutes(deps));
  app.route("/", signedInArea(deps));
  return app;
}
