/**
 * The HQ dashboard (issue 6), mounted at /hq: server-rendered pages for dispatchers and admins. Order of
 * the middleware: the session, then the access guard (so nobody unauthorised makes us read a body), then
 * the body limit, then the CSRF check (which reads form bodies).
 */
import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppDeps } from "@/lib/deps.ts";
import { csrfProtect, loadSession, type SessionEnv } from "@/routes/web/session.ts";
import { hqAccessGuard } from "@/routes/hq/guards.ts";
import { signInRoutes } from "@/routes/hq/sign_in.tsx";
import { partsRoutes } from "@/routes/hq/parts.tsx";
import { partRoutes } from "@/routes/hq/part.tsx";
import { movementsRoutes } from "@/routes/hq/movements.tsx";
import { movementRoutes } from "@/routes/hq/movement.tsx";
import { tripsRoutes } from "@/routes/hq/trips.tsx";
import { announcementsRoutes } from "@/routes/hq/announcements.tsx";
import { exportsRoutes } from "@/routes/hq/exports.tsx";
import { adminUsersRoutes } from "@/routes/hq/admin_users.tsx";
import { adminPlacesRoutes } from "@/routes/hq/admin_places.tsx";
import { adminImportRoutes, IMPORT_MAX_BYTES, tooLarge } from "@/routes/hq/admin_import.tsx";

/** Dashboard forms are small; only the import takes a file. */
export const FORM_BODY_LIMIT = 64 * 1024;

function limitBodies(): MiddlewareHandler<SessionEnv> {
  const form = bodyLimit({ maxSize: FORM_BODY_LIMIT, onError: (c) => c.text("Form too large.", 413) });
  const upload = bodyLimit({ maxSize: IMPORT_MAX_BYTES + FORM_BODY_LIMIT, onError: (c) => tooLarge(c) });
  return (c, next) => (c.req.path === "/hq/admin/import" ? upload : form)(c, next);
}

export function hqRoutes(deps: AppDeps): Hono<SessionEnv> {
  const app = new Hono<SessionEnv>();
  app.use("*", loadSession(deps));
  app.use("*", hqAccessGuard());
  app.use("*", limitBodies());
  app.use("*", csrfProtect(deps));

  app.get("/", (c) => c.redirect("/hq/parts", 303));
  app.route("/", signInRoutes(deps));
  app.route("/parts", partsRoutes(deps));
  app.route("/parts", partRoutes(deps));
  app.route("/movements", movementsRoutes(deps));
  app.route("/movements", movementRoutes(deps));
  app.route("/trips", tripsRoutes(deps));
  app.route("/announcements", announcementsRoutes(deps));
  app.route("/exports", exportsRoutes(deps));
  app.route("/admin/users", adminUsersRoutes(deps));
  app.route("/admin/places", adminPlacesRoutes(deps));
  app.route("/admin/import", adminImportRoutes(deps));
  return app;
}
