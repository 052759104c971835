/**
 * Attaching middleware to the routes it protects, Hono style: a sub-app carries its guard, body limit and
 * cross-site check, and a route gets them by being mounted in it.
 */
import { type Env, Hono, type MiddlewareHandler } from "hono";

/** `sub` behind `middleware` (run in order on every path under it), for mounting at a prefix of its own. */
export function behind<E extends Env>(sub: Hono<E>, ...middleware: MiddlewareHandler<E>[]): Hono<E> {
  const app = new Hono<E>();
  for (const handler of middleware) app.use(handler);
  return app.route("/", sub);
}

/**
 * `sub`, with `middleware` run (in order) before each of its own routes, whatever their method, and on no
 * other path. For a sub-app mounted at "/" beside others (the sign-in pages beside the signed-in ones),
 * where `behind`'s `use("*")` would reach its neighbours too.
 */
export function withOwnMiddleware<E extends Env>(
  sub: Hono<E>,
  ...middleware: MiddlewareHandler<E>[]
): Hono<E> {
  const app = new Hono<E>();
  // Method "ALL" entries are the sub-app's own middleware (`use`), not routes.
  const paths = new Set(sub.routes.filter((r) => r.method !== "ALL").map((r) => r.path));
  for (const path of paths) for (const handler of middleware) app.use(path, handler);
  return app.route("/", sub);
}
