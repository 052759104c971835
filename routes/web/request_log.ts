/**
 * The outermost middleware (main.ts): gives every request an id, answers it in `X-Request-Id` (a fault's
 * reference in routes/web/error_pages.tsx is the same id), and once the answer is ready writes one log
 * record and, when metrics are on, counts it (docs/operations.md "Logs", "Metrics").
 *
 * The record holds the route pattern that answered (`/photos/:id`, never the path: paths carry ids and the
 * handler's `?publickey=`), the method, the status, the duration to the answer's headers, the signed-in
 * user's id, and on the app's routes (handler, upload) the source address (routes/web/rate_limits.ts
 * `noteAndLimitAddress`: the peer, or what a trusted proxy wrote in X-Forwarded-For). Nothing else of the
 * request is read: no query, other header, cookie or body reaches a log.
 */
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { LogRecord } from "@logtape/logtape";
import { logger } from "@/io/log.ts";
import type { Metrics } from "@/lib/metrics.ts";
import type { SessionEnv } from "@/routes/web/session.ts";

declare module "hono" {
  interface ContextVariableMap {
    /** Set by requestLog for every request; X-Request-Id and a fault's reference. */
    requestId: string;
  }
}

/** The route label of a request no route answered (unknown paths, a method no route takes). */
export const UNMATCHED = "unmatched";

const log = logger("http");

/** The request line's template (the JSON lines show it as the message). */
const REQUEST_LINE = "{method} {route} {status} in {duration_ms} ms";
/** An app request's line: the same, with where it came from. */
const APP_REQUEST_LINE = `${REQUEST_LINE} from {source_address}`;

/**
 * The pattern of the route that answered. A middleware that answered itself (a guard's refusal, a rate
 * limit) counts under the route it stood in front of; a request no route matched is `unmatched`.
 */
export function routeOf(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = c.req.routeIndex; i < routes.length; i++) {
    if (routes[i].method !== "ALL") return routes[i].path;
  }
  return UNMATCHED;
}

export function requestLog(metrics: Metrics | undefined): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    // Read before the routes: body_limits.ts may put a Request built on first use behind `c.req`.
    const method = c.req.method;
    const requestId = crypto.randomUUID();
    c.set("requestId", requestId);
    await next();
    try {
      c.res.headers.set("X-Request-Id", requestId);
    } catch {
      // Immutable headers (a Response from fetch or Response.redirect): `c.header` copies the answer.
      c.header("X-Request-Id", requestId);
    }
    const logging = log.isEnabledFor("info");
    if (!metrics && !logging) return;
    const route = routeOf(c);
    const status = c.res.status;
    const ms = performance.now() - started;
    metrics?.request(method, route, status, ms / 1000);
    if (!logging) return;
    // Set by routes/web/session.ts loadSession on the faces with sign-in; absent elsewhere. `c.get`, not
    // `c.var`: Hono builds `c.var` as a new object of every variable on each read.
    const session = (c as Context<SessionEnv>).get("session");
    const source_address = c.get("sourceAddress");
    const duration_ms = Math.round(ms * 10) / 10;
    const record: LogRecord = {
      // With the logger's own category in it, LogTape dispatches the record as it is; without, it copies the
      // record through property descriptors to add the category (the same line either way).
      category: log.category,
      level: "info",
      timestamp: Date.now(),
      rawMessage: source_address === undefined ? REQUEST_LINE : APP_REQUEST_LINE,
      // REQUEST_LINE with its values in place, the record `log.info` would make (the same line, text or
      // JSON) without its work per request: `log.info` parses the template again, and its record's getters
      // are new closures each time, which gives every record a hidden class of its own in V8's old
      // generation; through it each record and its properties survived young-generation collections into
      // the old generation (docs/performance.md "Search path").
      message: source_address === undefined
        ? ["", method, " ", route, " ", status, " in ", duration_ms, " ms"]
        : ["", method, " ", route, " ", status, " in ", duration_ms, " ms from ", source_address, ""],
      properties: { request_id: requestId, method, route, status, duration_ms },
    };
    // Added in place, not spread from a new object each (`...(a ? {…} : {})`): two objects fewer a request.
    if (session) record.properties.user_id = session.user.id;
    if (source_address !== undefined) record.properties.source_address = source_address;
    log.emit(record);
  };
}
