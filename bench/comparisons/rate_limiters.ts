// Question: is hono-rate-limiter faster than our rate limiter (routes/web/rate_limiter.ts)? Run: deno run -A --lock=deno.dev.lock bench/comparisons/rate_limiters.ts [--rounds 3]
/**
 * docs/build-or-buy.md, in process. Not part of `deno task bench`.
 *
 * Two figures, each pair alternating who goes first, `--rounds` times: the counter alone (hits/s over
 * 1000 keys: RateLimiter.hit against the library's MemoryStore.increment) and the middleware in a Hono
 * app (requests/s through app.request: our per-address middleware as applyRateLimits builds it, against
 * rateLimiter() with standardHeaders off, as the service would have to configure it).
 */
import { parseArgs } from "node:util";
import { Hono, type MiddlewareHandler } from "hono";
// deno-lint-ignore no-import-prefix -- a test-only package stays out of the service's import map
import { MemoryStore, rateLimiter } from "npm:hono-rate-limiter@0.5.4";
import { systemClock } from "@/io/clock.ts";
import { RateLimiter } from "@/routes/web/rate_limiter.ts";
import { tooMany } from "@/routes/web/rate_limits.ts";

const { values } = parseArgs({ args: Deno.args, options: { rounds: { type: "string", default: "3" } } });
const rounds = Number(values.rounds);
const KEYS = Array.from({ length: 1000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
const HUGE = 1e12; // nobody is refused: the figures are the counting cost

function counterOurs(n: number): number {
  const limiter = new RateLimiter(HUGE, systemClock);
  let allowed = 0;
  for (let i = 0; i < n; i++) if (limiter.hit(KEYS[i % KEYS.length]).allowed) allowed++;
  return allowed;
}

function counterLibrary(n: number): number {
  const store = new MemoryStore();
  store.init({ windowMs: 60_000 } as Parameters<MemoryStore["init"]>[0]);
  let allowed = 0;
  for (let i = 0; i < n; i++) if (store.increment(KEYS[i % KEYS.length]).totalHits <= HUGE) allowed++;
  store.shutdown();
  return allowed;
}

function app(middleware: MiddlewareHandler): Hono {
  const a = new Hono();
  a.use("/api/handler", middleware);
  a.post("/api/handler", (c) => c.json({ code: 3000 }));
  return a;
}

/** As routes/web/rate_limits.ts's limitPerAddress (the address comes from the request here). */
const ours = (): MiddlewareHandler => {
  const limiter = new RateLimiter(HUGE, systemClock);
  return async (c, next) => {
    const decision = limiter.hit(c.req.header("x-address") ?? "local");
    if (!decision.allowed) return tooMany(c, decision, "json");
    await next();
  };
};

const library = (): MiddlewareHandler =>
  rateLimiter({
    windowMs: 60_000,
    limit: HUGE,
    standardHeaders: false,
    keyGenerator: (c) => c.req.header("x-address") ?? "local",
    handler: (c) => tooMany(c, { allowed: false, retryAfterSeconds: 60 }, "json"),
  });

async function requests(make: () => MiddlewareHandler, n: number): Promise<number> {
  const a = app(make());
  for (let i = 0; i < n; i++) {
    const res = await a.request("/api/handler", {
      method: "POST",
      headers: { "x-address": KEYS[i % KEYS.length] },
    });
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    await res.body?.cancel();
  }
  return n;
}

async function rate(work: () => number | Promise<number>): Promise<number> {
  const t0 = performance.now();
  const n = await work();
  return n / ((performance.now() - t0) / 1000);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs: number[]) =>
  `${(median(xs) / 1e3).toFixed(0)}k (${(Math.min(...xs) / 1e3).toFixed(0)}k–${
    (Math.max(...xs) / 1e3).toFixed(0)
  }k)`;

const figures: [string, string, () => number | Promise<number>, () => number | Promise<number>][] = [
  ["counter, 1000 keys", "hits/s", () => counterOurs(2_000_000), () => counterLibrary(2_000_000)],
  [
    "Hono middleware, app.request",
    "requests/s",
    () => requests(ours, 30_000),
    () => requests(library, 30_000),
  ],
];
console.log(`rate limiters: ours (routes/web/rate_limiter.ts) vs hono-rate-limiter, ${rounds} rounds each`);
for (const [label, unit, runOurs, runLibrary] of figures) {
  await rate(runOurs); // warm-up (JIT)
  await rate(runLibrary);
  const samples = { ours: [] as number[], library: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (["ours", "library"] as const) : (["library", "ours"] as const);
    for (const who of order) samples[who].push(await rate(who === "ours" ? runOurs : runLibrary));
  }
  console.log(
    `${label.padEnd(30)} ${unit.padEnd(11)} ours ${fmt(samples.ours).padEnd(20)} library ${
      fmt(samples.library).padEnd(20)
    } ratio ${(median(samples.library) / median(samples.ours)).toFixed(2)}`,
  );
}
