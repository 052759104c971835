/**
 * The HQ dashboard (docs/dashboard.md), mounted at /hq: server-rendered pages for dispatchers and admins.
 * Every request loads the session; each area then carries, in this order, its role check (so nobody
 * unauthorised makes us read a body), its body limit and the cross-site check (which reads form bodies):
 * - sign-in and sign-out: open to all; sign-in attempts limited per address;
 * - /admin: admins; the import takes a file, the other forms are small;
 * - everything else (the staff pages, and any unknown path: deny by default): dispatchers and admins.
 * Mount order matters: a route that answers ends the chain, so the open area comes first and the
 * catch-all staff area last.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { depotTimeZoneOf } from "@/components/hq/page.tsx";
import type { AppDeps } from "@/lib/deps.ts";
import { requireAdmin, requireStaff } from "@/routes/hq/guards.ts";
import { signInRoutes } from "@/routes/hq/sign_in.tsx";
import { overviewRoutes } from "@/routes/hq/overview.tsx";
import { partsRoutes } from "@/routes/hq/parts.tsx";
import { partRoutes } from "@/routes/hq/part.tsx";
import { movementsRoutes } from "@/routes/hq/movements.tsx";
import { movementRoutes } from "@/routes/hq/movement.tsx";
import { tripsRoutes } from "@/routes/hq/trips.tsx";
import { returnRequestsRoutes } from "@/routes/hq/return_requests.tsx";
import { problemReportRoutes } from "@/routes/hq/problem_reports.tsx";
import { runsRoutes } from "@/routes/hq/runs.tsx";
import { openReturnRequestCount } from "@/lib/return_requests.ts";
import { actionQueueCount } from "@/lib/dashboard/action_queue.ts";
import { queueRoutes } from "@/routes/hq/queue.tsx";
import { announcementsRoutes } from "@/routes/hq/announcements.tsx";
import { exportsRoutes } from "@/routes/hq/exports.tsx";
import { trendsRoutes } from "@/routes/hq/trends.tsx";
import { claimRoutes } from "@/routes/hq/claim.tsx";
import { searchRoutes } from "@/routes/hq/search.tsx";
import { labelRoutes } from "@/routes/hq/labels.tsx";
import { liveRoutes } from "@/routes/hq/live.ts";
import { adminUsersRoutes } from "@/routes/hq/admin_users.tsx";
import { adminTwoFactorRoutes } from "@/routes/hq/admin_two_factor.tsx";
import { adminPlacesRoutes } from "@/routes/hq/admin_places.tsx";
import { adminTabletsRoutes } from "@/routes/hq/admin_tablets.tsx";
import { adminHandoverRoutes } from "@/routes/hq/admin_handover.tsx";
import { adminAgeingRoutes } from "@/routes/hq/admin_ageing.tsx";
import { adminAuditRoutes } from "@/routes/hq/admin_audit.tsx";
import { adminImportRoutes, IMPORT_MAX_BYTES, tooLarge } from "@/routes/hq/admin_import.tsx";
import { bufferedBodies, SMALL_BODY_LIMIT, smallBodies } from "@/routes/web/body_limits.ts";
import { behind, withOwnMiddleware } from "@/routes/web/mount.ts";
import { limitPerAddress, LIMITS } from "@/routes/web/rate_limits.ts";
import { csrfProtect, loadSession, type SessionEnv } from "@/routes/web/session.ts";

const formBodies = (deps: AppDeps) => smallBodies(deps, "Form too large.");

function openArea(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  // PIN and password guessing: attempts per client address.
  app.post("/sign-in", limitPerAddress(deps, LIMITS.signInPerAddress, "text"));
  app.route(
    "/",
    withOwnMiddleware(signInRoutes(deps), formBodies(deps), csrfProtect(deps, { signIn: true })),
  );
  return app;
}

function adminArea(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.use(requireAdmin());
  app.route("/users", behind(adminUsersRoutes(deps), formBodies(deps), csrfProtect(deps)));
  app.route("/two-factor", behind(adminTwoFactorRoutes(deps), formBodies(deps), csrfProtect(deps)));
  app.route("/places", behind(adminPlacesRoutes(deps), formBodies(deps), csrfProtect(deps)));
  app.route("/tablets", behind(adminTabletsRoutes(deps), formBodies(deps), csrfProtect(deps)));
  app.route("/handover", behind(adminHandoverRoutes(deps), formBodies(deps), csrfProtect(deps)));
  app.route("/ageing", behind(adminAgeingRoutes(deps), formBodies(deps), csrfProtect(deps)));
  app.route("/audit", behind(adminAuditRoutes(deps), formBodies(deps), csrfProtect(deps)));
  // The CSV file and the form around it.
  const importBodies = bufferedBodies(deps, IMPORT_MAX_BYTES + SMALL_BODY_LIMIT, (c) => tooLarge(c));
  app.route("/import", behind(adminImportRoutes(deps), importBodies, csrfProtect(deps)));
  return app;
}

function staffArea(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.use(requireStaff(), formBodies(deps), csrfProtect(deps));
  app.route("/", overviewRoutes(deps));
  app.route("/queue", queueRoutes(deps));
  app.route("/parts", partsRoutes(deps));
  app.route("/parts", partRoutes(deps));
  app.route("/movements", movementsRoutes(deps));
  app.route("/movements", movementRoutes(deps));
  app.route("/trips", tripsRoutes(deps));
  app.route("/runs", runsRoutes(deps));
  app.route("/return-requests", returnRequestsRoutes(deps));
  app.route("/problem-reports", problemReportRoutes(deps));
  app.route("/announcements", announcementsRoutes(deps));
  app.route("/exports", exportsRoutes(deps));
  app.route("/trends", trendsRoutes(deps));
  app.route("/claims", claimRoutes(deps));
  app.route("/search", searchRoutes(deps));
  // Label sheets: /hq/claims/:claim_number/labels and /hq/labels.
  app.route("/", labelRoutes(deps));
  app.route("/live", liveRoutes(deps));
  return app;
}

/**
 * The header's figures, read for a staff member's page (a GET; not for the live stream, whose answer has no
 * navigation): the open return requests' count beside their link (docs/return-requests.md), one indexed
 * count, and the action queue's (docs/action-queue.md "Header count"), one bounded statement.
 */
function openRequestCountOf(deps: AppDeps): MiddlewareHandler<SessionEnv> {
  return async (c, next) => {
    const role = c.var.session?.user.role;
    if (
      c.req.method === "GET" && (role === "dispatcher" || role === "admin") && !c.req.path.endsWith("/live")
    ) {
      const [open, queue] = await Promise.all([
        openReturnRequestCount(deps.db),
        actionQueueCount(deps.db, deps.clock.now()),
      ]);
      c.set("openReturnRequests", open);
      c.set("actionQueueCount", queue);
    }
    await next();
  };
}

export function hqRoutes(deps: AppDeps): Hono<SessionEnv> {
  const app = new Hono<SessionEnv>();
  app.use(loadSession(deps), depotTimeZoneOf(deps.config.depotTimeZone), openRequestCountOf(deps));
  app.route("/", openArea(deps));
  app.route("/admin", adminArea(deps));
  app.route("/", staffArea(deps));
  return app;
}
