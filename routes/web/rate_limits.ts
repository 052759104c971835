/**
 * Where the rate limits apply (routes/web/rate_limiter.ts): per client address on the handler, the upload path and
 * the sign-in forms; per user on the handler (routes/api/handler.ts). Over the limit: 429 with Retry-After.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import { getConnInfo } from "hono/deno";
import type { AppDeps } from "@/lib/deps.ts";
import { type LimitDecision, RateLimiter } from "@/routes/web/rate_limiter.ts";

/** Requests a minute. Generous for a depot's drivers sharing one NAT address; tight for PIN guessing. */
export const LIMITS = {
  handlerPerAddress: 1200,
  handlerPerUser: 300,
  uploadPerAddress: 300,
  signInPerAddress: 30,
};

function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    // In-process requests (tests' app.request) carry no connection.
    return "local";
  }
}

/** The 429 answer: JSON for API paths, text for pages. */
export function tooMany(c: Context, decision: LimitDecision): Response {
  c.header("Retry-After", String(decision.retryAfterSeconds));
  const message = `Too many requests. Try again in ${decision.retryAfterSeconds} s.`;
  return c.req.path.startsWith("/api/") ? c.json({ code: 1429, message }, 429) : c.text(message, 429);
}

function byAddress(limiter: RateLimiter): MiddlewareHandler {
  return async (c, next) => {
    const decision = limiter.hit(clientAddress(c));
    if (!decision.allowed) return tooMany(c, decision);
    await next();
  };
}

/** A per-user limiter for the handler, or null when limits are off. */
export function handlerUserLimiter(deps: AppDeps): RateLimiter | null {
  return deps.config.rateLimits ? new RateLimiter(LIMITS.handlerPerUser, deps.clock) : null;
}

export function applyRateLimits(app: Hono, deps: AppDeps): void {
  if (!deps.config.rateLimits) return;
  app.use("/api/handler", byAddress(new RateLimiter(LIMITS.handlerPerAddress, deps.clock)));
  app.use("/api/v2.1/*", byAddress(new RateLimiter(LIMITS.uploadPerAddress, deps.clock)));
  const signIn = byAddress(new RateLimiter(LIMITS.signInPerAddress, deps.clock));
  app.on("POST", ["/tablet/sign-in", "/hq/sign-in"], signIn);
}
