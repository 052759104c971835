/**
 * `createApp(deps)` builds the Hono app over its dependencies; tests call it directly, and tasks/start.ts
 * (`deno task start`) calls it once it has read the configuration and opened the database. Each area's
 * sub-app carries its own guards and limits (routes/mod.ts); only what every answer needs is set here.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { isDatabaseUnavailable } from "@/db/client.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { ClientAbortError } from "@/io/multipart.ts";
import { mountRoutes } from "@/routes/mod.ts";
import { faultAnswer, notFoundAnswer } from "@/routes/web/error_pages.tsx";
import { securityHeaders } from "@/routes/web/security_headers.ts";
import { logger } from "@/io/log.ts";
import { requestLog, routeOf } from "@/routes/web/request_log.ts";
import { type HttpLayer, WHOLE_HTTP_LAYER } from "@/routes/web/http_layer.ts";

/** How long a client is asked to wait after the database did not answer in time. */
const RETRY_AFTER_SECONDS = "5";

/** `layer`: every guarantee, unless a bench measures what one costs (routes/web/http_layer.ts). */
export function createApp(deps: AppDeps, layer: Readonly<HttpLayer> = WHOLE_HTTP_LAYER): Hono {
  const app = new Hono();
  if (layer.requestLog) app.use(requestLog(deps.metrics)); // first: its id and timing cover everything below
  if (layer.securityHeaders) app.use(securityHeaders(deps.config));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    if (error instanceof ClientAbortError) {
      // The client closed its connection mid-body: its doing, not a fault of ours, so one short line
      // (no reference, no stack) and a 400 nobody will read.
      logger("http").warning("{method} {route}: client aborted the request body (request {request_id})", {
        request_id: c.var.requestId,
        method: c.req.method,
        route: routeOf(c),
      });
      return c.text("The request body was cut off by the client.", 400);
    }
    // Unexpected faults (database down, a bug) are logged with the request's id and answered without
    // internals, that id as the answer's reference.
    const requestId = c.var.requestId;
    const fields = { request_id: requestId, method: c.req.method, route: routeOf(c) };
    if (isDatabaseUnavailable(error)) {
      // A bound of db/client.ts ran out (or no connection): the same 503 as any fault (code 5030 on the
      // APIs), told apart by kind, logged in one line without a stack, with a hint of when to retry.
      logger("http").warning("Database unavailable in {method} {route} (request {request_id}): {error}", {
        ...fields,
        error: error.message,
      });
      c.header("Retry-After", RETRY_AFTER_SECONDS);
    } else {
      logger("http").error("Fault in {method} {route} (request {request_id}): {error}", {
        ...fields,
        error: error.stack ?? String(error),
      });
    }
    return faultAnswer(c, requestId);
  });
  app.notFound(notFoundAnswer);
  mountRoutes(app, deps, layer);
  return app;
}
