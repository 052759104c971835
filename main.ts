/**
 * `createApp(deps)` builds the Hono app over its dependencies; tests call it directly, and tasks/start.ts
 * (`deno task start`) calls it once it has read the configuration and opened the database.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppDeps } from "@/lib/deps.ts";
import { mountRoutes } from "@/routes/mod.ts";
import { applyRateLimits } from "@/routes/web/rate_limits.ts";
import { securityHeaders } from "@/routes/web/security_headers.ts";

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.use(securityHeaders());
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    // Unexpected faults (database down, a bug) are logged with an id and answered without internals.
    const requestId = crypto.randomUUID();
    console.error(`[${requestId}] ${c.req.method} ${c.req.path}: ${error.stack ?? error}`);
    return c.json(
      { code: 5030, message: `Service temporarily unavailable. Try again (ref ${requestId}).` },
      503,
    );
  });
  app.notFound((c) => c.json({ code: 4040, message: "Not found." }, 404));
  applyRateLimits(app, deps);
  mountRoutes(app, deps);
  return app;
}
