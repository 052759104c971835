/**
 * `GET /metrics` (docs/operations.md "Metrics"): every metric in the Prometheus text format, for a scraper
 * holding `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time). Without METRICS_TOKEN no
 * route exists here, so the path answers the app's 404 like any unknown one.
 */
import { Hono } from "hono";
import { secretMatcher } from "@/io/secure_compare.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { diskSpaceOf } from "@/lib/disk_space.ts";

export function metricsRoutes(deps: AppDeps) {
  const app = new Hono();
  const { metrics, config } = deps;
  if (!metrics || !config.metricsToken) return app;
  const isToken = secretMatcher(config.metricsToken);
  app.get("/", async (c) => {
    const [scheme, token] = (c.req.header("authorization") ?? "").split(" ", 2);
    if (scheme?.toLowerCase() !== "bearer" || !isToken(token ?? "")) {
      return c.text("A bearer token is required.", 401, { "WWW-Authenticate": 'Bearer realm="metrics"' });
    }
    // The free disk space is measured now (it sets its gauge); a failed measure leaves the last value.
    await diskSpaceOf(deps).check().catch(() => {});
    return c.body(await metrics.scrape(deps), 200, {
      "Content-Type": metrics.contentType,
      "Cache-Control": "no-store",
    });
  });
  return app;
}
