/**
 * Rate limits (routes/web/rate_limiter.ts), created by the sub-app whose routes they guard: per client
 * address on the handler, the upload path and the sign-in forms; per (client address, e-mail) on the
 * handler (routes/api/handler.ts). Over the limit: 429 with Retry-After.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getConnInfo } from "hono/deno";
import type { AppDeps } from "@/lib/deps.ts";
import { CODE } from "@/routes/api/codes.ts";
import { type LimitDecision, RateLimiter } from "@/routes/web/rate_limiter.ts";

/** Requests a minute. Generous for a depot's drivers sharing one NAT address; tight for PIN guessing. */
export const LIMITS = {
  handlerPerAddress: 1200,
  handlerPerUser: 300,
  uploadPerAddress: 300,
  signInPerAddress: 30,
  // A shop's page and its forms (routes/shop/): a manager reloading, not a script walking tokens.
  shopPagePerAddress: 120,
};

/** The mobile API answers `{code, message}` JSON; the sign-in forms plain text. */
export type LimitAnswer = "json" | "text";

/**
 * The client's address: the connection's peer, or, when the peer is one of the trusted reverse proxies
 * (TRUSTED_PROXIES, e.g. deploy/nginx.conf), the last X-Forwarded-For entry, the one that proxy wrote.
 * Entries before it came from the client and are never believed.
 */
export function clientAddressOf(peer: string, forwardedFor: string | undefined, trusted: string[]): string {
  if (!trusted.includes(peer) || !forwardedFor) return peer;
  return forwardedFor.split(",").at(-1)!.trim() || peer;
}

declare module "hono" {
  interface ContextVariableMap {
    /** The client address of an app request (handler, upload), for its log line and audit entry. */
    sourceAddress: string;
  }
}

/** The request's client address (`clientAddressOf` over the connection); `local` in-process. */
export function clientAddress(c: Context, trusted: string[]): string {
  let peer: string;
  try {
    peer = getConnInfo(c).remote.address ?? "unknown";
  } catch {
    // In-process requests (tests' app.request) carry no connection.
    return "local";
  }
  // The header is read only from a trusted proxy: clientAddressOf would ignore it from anyone else.
  return trusted.includes(peer) ? clientAddressOf(peer, c.req.header("x-forwarded-for"), trusted) : peer;
}

/** The 429 answer. */
export function tooMany(c: Context, decision: LimitDecision, answer: LimitAnswer): Response {
  c.header("Retry-After", String(decision.retryAfterSeconds));
  const message = `Too many requests. Try again in ${decision.retryAfterSeconds} s.`;
  return answer === "json" ? c.json({ code: CODE.tooManyRequests, message }, 429) : c.text(message, 429);
}

/** A limit per client address for the routes it is attached to; passes everything when limits are off. */
export function limitPerAddress(deps: AppDeps, perMinute: number, answer: LimitAnswer): MiddlewareHandler {
  if (!deps.config.rateLimits) return async (_c, next) => await next();
  const limiter = new RateLimiter(perMinute, deps.clock);
  return async (c, next) => {
    const decision = limiter.hit(clientAddress(c, deps.config.trustedProxies));
    if (!decision.allowed) return tooMany(c, decision, answer);
    await next();
  };
}

/**
 * For the app's routes (handler, upload): notes the client address on the request (`sourceAddress`), which
 * the request's log line carries (routes/web/request_log.ts) and the handler's movements' audit entries
 * (lib/movements/submission.ts), and limits the requests per address (`perMinute`, JSON answer). One
 * middleware, not a note and a limit: each middleware is a frame of Hono's compose on every request
 * (docs/search-path.md).
 */
export function noteAndLimitAddress(deps: AppDeps, perMinute: number): MiddlewareHandler {
  const trusted = deps.config.trustedProxies;
  const limiter = deps.config.rateLimits ? new RateLimiter(perMinute, deps.clock) : null;
  return async (c, next) => {
    const address = clientAddress(c, trusted);
    c.set("sourceAddress", address);
    const decision = limiter?.hit(address);
    if (decision && !decision.allowed) return tooMany(c, decision, "json");
    await next();
  };
}

/**
 * The handler's per-user limiter, or null when limits are off. Its key is the client address with the
 * payload's e-mail, never the e-mail alone: anyone holding the public key could otherwise spend a driver's
 * quota from elsewhere; flooding an e-mail from one address leaves the driver's own address untouched, and
 * each address stays under its own cap (`handlerPerAddress`).
 */
export function handlerUserLimiter(
  deps: AppDeps,
): { hit(address: string, email: string): LimitDecision } | null {
  if (!deps.config.rateLimits) return null;
  const limiter = new RateLimiter(LIMITS.handlerPerUser, deps.clock);
  // A space never appears in an address or in an e-mail the schema accepts: the pair is unambiguous.
  return { hit: (address, email) => limiter.hit(`${address} ${email}`) };
}
