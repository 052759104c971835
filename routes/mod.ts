/** Mounts every area's sub-app. */
import { Hono } from "hono";
import type { AppDeps } from "@/lib/deps.ts";
import { assetsRoutes } from "@/routes/assets.ts";
import { handlerRoutes } from "@/routes/api/handler.ts";
import { healthRoutes } from "@/routes/healthz.ts";

export function mountRoutes(app: Hono, deps: AppDeps): void {
  app.route("/healthz", healthRoutes(deps));
  app.route("/", assetsRoutes());
  app.route("/api/handler", handlerRoutes(deps));
}
