/** Mounts every area's sub-app; each carries its own guards, body limits and rate limits. */
import { Hono } from "hono";
import type { AppDeps } from "@/lib/deps.ts";
import { assetsRoutes } from "@/routes/assets.ts";
import { handlerRoutes } from "@/routes/api/handler.ts";
import { metricsRoutes } from "@/routes/metrics.ts";
import { healthRoutes, readyRoutes } from "@/routes/healthz.ts";
import { uploadRoutes } from "@/routes/api/upload.ts";
import { photoRoutes } from "@/routes/photos.ts";
import { hqRoutes } from "@/routes/hq/mod.ts";
import { requireSignedIn } from "@/routes/hq/guards.ts";
import { shopRoutes } from "@/routes/shop/mod.tsx";
import { tabletRoutes } from "@/routes/tablet/mod.ts";
import { landingRoutes } from "@/routes/web/landing.tsx";
import type { HttpLayer } from "@/routes/web/http_layer.ts";

export function mountRoutes(app: Hono, deps: AppDeps, layer: Readonly<HttpLayer>): void {
  app.route("/healthz", healthRoutes(deps));
  app.route("/metrics", metricsRoutes(deps)); // no route at all without METRICS_TOKEN: 404
  app.route("/readyz", readyRoutes(deps));
  app.route("/", assetsRoutes());
  app.route("/api/handler", handlerRoutes(deps, layer));
  app.route("/api/v2.1", uploadRoutes(deps));
  app.route("/photos", photoRoutes(deps, requireSignedIn(deps)));
  app.route("/hq", hqRoutes(deps));
  app.route("/tablet", tabletRoutes(deps));
  app.route("/shop", shopRoutes(deps));
  app.route("/", landingRoutes(deps)); // an enrolled tablet to /tablet; anyone else: both doors
}
