/**
 * Body limits, attached by each sub-app to the routes it serves (routes/hq/mod.ts, routes/tablet/mod.ts,
 * routes/api/*): a route gets its limit by being mounted, and tests/body_limits_test.ts proves every POST
 * route of the app has one. Two kinds:
 * - `bufferedBodies`: forms and JSON, read whole (at most the cap) before anything else looks at them;
 *   the buffered request is marked, so the cross-site check may read a form field from it and from
 *   nothing else (routes/web/session.ts csrfProtect);
 * - `limitStreamedBody`: photos, streamed to storage by the route's own reader under the same cap.
 * Both read under the pace rule (config.bodyPace): a body that stalls, or trickles in slower than the
 * minimum rate, is refused with 408 and its connection closed (docs/security.md "slow clients").
 */
import type { Context, HonoRequest, MiddlewareHandler } from "hono";
import { declaredLength } from "@/io/declared_length.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { BodyTooSlow, pacedBody, readAtMost } from "@/routes/web/body_pace.ts";

type Pace = AppDeps["config"]["bodyPace"];

/** Forms and JSON: a few KiB in practice; only the photo uploads and the CSV import take more. */
export const SMALL_BODY_LIMIT = 64 * 1024;

/** Requests whose body this module read whole under a cap (see csrfProtect). */
const buffered = new WeakSet<Request>();

/** True when `request`'s body was read whole, under a body cap, before the route ran. */
export const isBufferedBody = (request: Request): boolean => buffered.has(request);

declare module "hono" {
  interface ContextVariableMap {
    /**
     * The bytes `bufferedBodies` read. A context variable, not a WeakMap keyed by the request: V8's young
     * generation collections keep a WeakMap's values alive, so every body would be copied into the old
     * generation and freed only by a full collection (docs/performance.md "Search path").
     */
    bufferedBody: Uint8Array;
  }
}

/**
 * The body `readBodyUnderCap` (or `bufferedBodies`) read for this request, straight from memory. Undefined
 * when the request had no body.
 */
export const bufferedBody = (c: Context): Uint8Array | undefined => c.get("bufferedBody");

const BUILD = Symbol("build");
const BUILT = Symbol("built");
type Rebuilt = HonoRequest & { [BUILD]: () => Request; [BUILT]?: Request };

/**
 * The one accessor pair of every rebuilt `raw`, its state in the request's own (symbol) properties. An
 * accessor made of new closures for each request gave each HonoRequest a hidden class of its own; V8 keeps
 * hidden classes in the old generation, so through them every request's raw Request, body and headers
 * survived young-generation collections and were copied into the old generation (about 2 KB of
 * every search's garbage, left for the full collections).
 */
const REBUILT_RAW: PropertyDescriptor = {
  configurable: true,
  enumerable: true,
  get(this: Rebuilt): Request {
    return this[BUILT] ??= this[BUILD]();
  },
  set(this: Rebuilt, request: Request) {
    this[BUILT] = request;
  },
};

/**
 * Makes `c.req.raw` the Request that `build` returns, built on first use, for the routes and guards that read
 * `c.req.raw` (forms, csrfProtect). Building one costs more than parsing the handler's JSON (its URL parsed
 * again, its headers copied: ~70 µs a search on the shared 2-core machine), and even this accessor (a
 * property redefined on each request) was the body item's largest cost on the search: the mobile handler
 * reads `bufferedBody` and takes `readBodyUnderCap` alone (docs/search-path.md).
 */
function rebuiltLazily(req: HonoRequest, build: () => Request): void {
  (req as Rebuilt)[BUILD] = build;
  Object.defineProperty(req, "raw", REBUILT_RAW);
}

/**
 * Reads the request's body whole, at most `maxSize` bytes, under the pace rule, before the route: a declared
 * length over the cap is refused unread, an undeclared one as soon as the count passes it (both `false`, the
 * body cancelled). The bytes are kept for `bufferedBody(c)`; `c.req.raw` stays the request as it came, its
 * body read. For a route that reads its body only through `bufferedBody` (the mobile handler): the others
 * take `bufferedBodies`, which also rebuilds `c.req.raw` around the bytes.
 */
export async function readBodyUnderCap(c: Context, pace: Pace, maxSize: number): Promise<boolean> {
  const raw = c.req.raw;
  const length = declaredLength(raw);
  if (length !== null && length > maxSize) {
    await raw.body?.cancel().catch(() => {});
    return false;
  }
  if (!raw.body) return true;
  const bytes = await readAtMost(raw.body, pace, maxSize, length);
  if (!bytes) return false;
  c.set("bufferedBody", bytes);
  return true;
}

/**
 * A form or JSON body of at most `maxSize` bytes, read whole (under the pace rule) before the route and
 * everything after this middleware (`readBodyUnderCap`); over the cap, `tooLarge` answers 413. The route then
 * reads the body from memory: `c.req.raw` is rebuilt around the bytes, on first use.
 */
export function bufferedBodies(
  deps: Pick<AppDeps, "config">,
  maxSize: number,
  tooLarge: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  const pace = deps.config.bodyPace;
  return async (c, next) => {
    const raw = c.req.raw;
    if (!await readBodyUnderCap(c, pace, maxSize)) return await tooLarge(c);
    const bytes = bufferedBody(c);
    if (!bytes) return await next();
    // Built from the parts the routes read, not from `raw` itself: copying a Request copies its abort signal,
    // which makes Deno create that signal and a DOMException for it on every answer (docs/performance.md
    // "Search path").
    rebuiltLazily(c.req, () => {
      const request = new Request(raw.url, {
        method: raw.method,
        headers: raw.headers,
        body: bytes as Uint8Array<ArrayBuffer>,
      });
      buffered.add(request);
      return request;
    });
    await next();
  };
}

/** Forms and JSON of at most SMALL_BODY_LIMIT, else 413 with `message` as text. */
export const smallBodies = (deps: Pick<AppDeps, "config">, message: string): MiddlewareHandler =>
  bufferedBodies(deps, SMALL_BODY_LIMIT, (c) => c.text(message, 413));

/**
 * For streamed bodies (photos): a declared Content-Length over `maxSize` is refused before the route runs;
 * an undeclared body is counted by the route's own streaming reader at the same cap (io/multipart.ts,
 * io/photo_storage.ts), which reads it under the pace rule. `refuse` throws or answers the route's own 413.
 * A body cut for slowness answers 408 whatever the reader made of the error.
 */
export function limitStreamedBody(
  deps: Pick<AppDeps, "config">,
  maxSize: number,
  refuse: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  return async (c, next) => {
    const raw = c.req.raw;
    if ((declaredLength(raw) ?? 0) > maxSize) {
      await raw.body?.cancel().catch(() => {});
      return await refuse(c);
    }
    if (!raw.body) return await next();
    let tooSlow = false;
    const paced = pacedBody(raw.body, deps.config.bodyPace, () => tooSlow = true);
    // Rebuilt from its parts, not copied from `raw` (see bufferedBodies: copying creates the abort signal).
    c.req.raw = new Request(raw.url, { method: raw.method, headers: raw.headers, body: paced });
    try {
      await next();
    } catch (error) {
      if (!tooSlow) throw error;
    }
    if (tooSlow) c.res = new BodyTooSlow().getResponse();
  };
}
