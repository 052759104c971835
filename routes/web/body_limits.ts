/**
 * Body limits, attached by each sub-app to the routes it serves (routes/hq/mod.ts, routes/tablet/mod.ts,
 * routes/api/*): a route gets its limit by being mounted, and tests/body_limits_test.ts proves every POST
 * route of the app has one.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { declaredLength } from "@/io/declared_length.ts";

/** Forms and JSON: a few KiB in practice; only the photo uploads and the CSV import take more. */
export const SMALL_BODY_LIMIT = 64 * 1024;

/**
 * A form or JSON body of at most SMALL_BODY_LIMIT, else 413 with `message` as text. Hono's bodyLimit: a
 * declared Content-Length is compared without reading; an undeclared (chunked) body is read and counted,
 * at most the limit held in memory, which suits bodies the route reads whole anyway.
 */
export const smallBodies = (message: string): MiddlewareHandler =>
  bodyLimit({ maxSize: SMALL_BODY_LIMIT, onError: (c) => c.text(message, 413) });

/**
 * For streamed bodies (photos): a declared Content-Length over `maxSize` is refused before the route runs;
 * an undeclared body is counted by the route's own streaming reader at the same cap (io/multipart.ts,
 * io/photo_storage.ts), because bodyLimit would hold the whole photo in memory first. `refuse` throws or
 * answers the route's own 413.
 */
export function limitStreamedBody(
  maxSize: number,
  refuse: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  return async (c, next) => {
    if ((declaredLength(c.req.raw) ?? 0) > maxSize) {
      await c.req.raw.body?.cancel().catch(() => {});
      return await refuse(c);
    }
    await next();
  };
}
