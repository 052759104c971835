/**
 * `createApp(deps)` builds the Hono app over its dependencies; tests call it directly, and tasks/start.ts
 * (`deno task start`) calls it once it has read the configuration and opened the database. Each area's
 * sub-app carries its own guards and limits (routes/mod.ts); only what every answer needs is set here.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppDeps } from "@/lib/deps.ts";
import { mountRoutes } from "@/routes/mod.ts";
import { faultAnswer, notFoundAnswer } from "@/routes/web/error_pages.tsx";
import { securityHeaders } from "@/routes/web/security_headers.ts";

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.use(securityHeaders(deps.config));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    // Unexpected faults (database down, a bug) are logged with an id and answered without internals.
    const requestId = crypto.randomUUID();
    console.error(`[${requestId}] ${c.req.method} ${c.req.path}: ${error.stack ?? error}`);
    return faultAnswer(c, requestId);
  });
  app.notFound(notFoundAnswer);
  mountRoutes(app, deps);
  return app;
}
