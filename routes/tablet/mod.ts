/**
 * The depot tablet (issue 5), mounted at /tablet: sign-in on a shared tablet, the three jobs, the JSON
 * endpoints the islands call, and receipts. Every page and endpoint loads the session and refuses
 * cross-site posts; all but sign-in need a signed-in driver or admin (D23, D24).
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppDeps } from "@/lib/deps.ts";
import { csrfProtect, loadSession, type SessionEnv } from "@/routes/web/session.ts";
import { apiRoutes } from "@/routes/tablet/api.ts";
import { idleHeader } from "@/routes/tablet/guard.ts";
import { jobRoutes } from "@/routes/tablet/jobs.tsx";
import { receiptRoutes } from "@/routes/tablet/receipt.tsx";
import { signInRoutes } from "@/routes/tablet/sign_in.tsx";

export const TABLET_BODY_LIMIT = 64 * 1024;

export function tabletRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  // Bodies are small forms and JSON, except photos, whose own streaming cap (MAX_PHOTO_BYTES) applies.
  const small = bodyLimit({
    maxSize: TABLET_BODY_LIMIT,
    onError: (c) => c.text("Request body too large.", 413),
  });
  app.on("POST", ["/sign-in", "/sign-out", "/api/search", "/api/movements", "/api/ping"], small);
  app.use("*", loadSession(deps), csrfProtect(deps), idleHeader(deps));
  // Order matters: sign-in first, so the signed-in guard of the others never sees it.
  app.route("/", signInRoutes(deps));
  app.route("/api", apiRoutes(deps));
  app.route("/movements", receiptRoutes(deps));
  app.route("/", jobRoutes(deps));
  return app;
}
