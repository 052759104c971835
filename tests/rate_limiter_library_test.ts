/**
 * What hono-rate-limiter does with the needs tests/rate_limit_test.ts pins (429 with Retry-After and our
 * answer shape, a key per address or user, a window that reopens when the injected clock moves a
 * minute), next to our RateLimiter (routes/web/rate_limiter.ts). docs/build-or-buy.md sums it up.
 */
import assert from "node:assert/strict";
import { type Context, Hono, type MiddlewareHandler } from "hono";
// deno-lint-ignore no-import-prefix -- a test-only package stays out of the service's import map
import { type ClientRateLimitInfo, rateLimiter, type Store } from "npm:hono-rate-limiter@0.5.4";
import { FakeClock } from "@/io/clock.ts";
import { RateLimiter } from "@/routes/web/rate_limiter.ts";
import { tooMany } from "@/routes/web/rate_limits.ts";

type Limiter = MiddlewareHandler;

function appWith(limiter: Limiter, path = "/api/handler"): Hono {
  const app = new Hono();
  app.use(limiter);
  app.all(path, (c) => c.json({ code: 3000 }));
  return app;
}

/** The library's answer when over the limit, made ours: tooMany() with the seconds to the reset. */
const ourAnswer = (now: () => number) => (c: Context) => {
  const info = c.get("rateLimit" as never) as { resetTime?: Date };
  const seconds = Math.max(1, Math.ceil(((info.resetTime?.getTime() ?? now()) - now()) / 1000));
  return tooMany(c, { allowed: false, retryAfterSeconds: seconds }, "json");
};

/** A store on an injected clock: what the library needs so tests can move time (our RateLimiter's job). */
class ClockStore implements Store {
  #windows = new Map<string, { totalHits: number; resetTime: Date }>();
  constructor(private readonly clock: FakeClock) {}
  increment(key: string): ClientRateLimitInfo {
    const now = this.clock.now().getTime();
    let w = this.#windows.get(key);
    if (!w || w.resetTime.getTime() <= now) {
      this.#windows.set(key, w = { totalHits: 0, resetTime: new Date(now + 60_000) });
    }
    w.totalHits++;
    return w;
  }
  decrement(key: string) {
    const w = this.#windows.get(key);
    if (w && w.totalHits > 0) w.totalHits--;
  }
  resetKey(key: string) {
    this.#windows.delete(key);
  }
}

Deno.test("rate limiter library: per key, 429 after the limit, our JSON answer through a custom handler", async () => {
  let address = "10.0.0.1";
  const app = appWith(rateLimiter({
    windowMs: 60_000,
    limit: 3,
    standardHeaders: false,
    keyGenerator: () => address,
    handler: ourAnswer(Date.now),
  }));
  for (let i = 0; i < 3; i++) {
    assert.equal((await app.request("/api/handler", { method: "POST" })).status, 200);
  }
  const refused = await app.request("/api/handler", { method: "POST" });
  assert.equal(refused.status, 429);
  const retryAfter = Number(refused.headers.get("retry-after"));
  assert.ok(retryAfter >= 1 && retryAfter <= 60);
  assert.equal((await refused.json()).code, 1429);
  address = "10.0.0.2"; // another address is not held back
  assert.equal((await app.request("/api/handler", { method: "POST" })).status, 200);
});

Deno.test("rate limiter library: its MemoryStore reads Date.now(), so a fake clock moved a minute does not reopen the window", async () => {
  const clock = new FakeClock();
  const ours = new RateLimiter(1, clock);
  assert.equal(ours.hit("k").allowed, true);
  assert.equal(ours.hit("k").allowed, false);
  clock.advance(60_000);
  assert.equal(ours.hit("k").allowed, true, "ours follows the injected clock");

  const app = appWith(
    rateLimiter({ windowMs: 60_000, limit: 1, standardHeaders: false, keyGenerator: () => "k" }),
  );
  assert.equal((await app.request("/api/handler")).status, 200);
  assert.equal((await app.request("/api/handler")).status, 429);
  clock.advance(60_000);
  assert.equal((await app.request("/api/handler")).status, 429, "the library's store has no clock to move");
});

Deno.test("rate limiter library: with a store on our clock, its own Retry-After is computed against Date.now()", async () => {
  const clock = new FakeClock("2020-01-01T00:00:00Z"); // far from real time, as a test clock may be
  const app = appWith(
    rateLimiter({ windowMs: 60_000, limit: 1, keyGenerator: () => "k", store: new ClockStore(clock) }),
  );
  assert.equal((await app.request("/api/handler")).status, 200);
  const refused = await app.request("/api/handler");
  assert.equal(refused.status, 429);
  // The window ends a minute after the fake now; the library compares that with the real now.
  assert.equal(refused.headers.get("retry-after"), "0");
  clock.advance(60_000);
  assert.equal((await app.request("/api/handler")).status, 200, "the window does follow the store's clock");
});

Deno.test("rate limiter library: by default every answer gains RateLimit-* headers (our answers have none)", async () => {
  const app = appWith(rateLimiter({ windowMs: 60_000, limit: 5, keyGenerator: () => "k" }));
  const res = await app.request("/api/handler");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("ratelimit-limit"), "5");
  assert.equal(res.headers.get("ratelimit-remaining"), "4");
  assert.equal(res.headers.get("ratelimit-policy"), "5;w=60");
  // standardHeaders: false removes them, and with them the library's Retry-After on a 429.
  const quiet = appWith(
    rateLimiter({ windowMs: 60_000, limit: 0, standardHeaders: false, keyGenerator: () => "k" }),
  );
  const refused = await quiet.request("/api/handler");
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get("retry-after"), null);
  assert.equal(refused.headers.get("ratelimit-limit"), null);
});
