// Question: what does the handler's old Content-Length shortcut in front of Hono's bodyLimit save against bodyLimit alone? Run: deno run -A bench/comparisons/body_limit.ts
/**
 * On the handler's typical request (a ~1 KiB JSON body with a Content-Length, read with `c.req.text()` and
 * parsed), in process. Figures and what the handler does now: routes/api/handler.ts, docs/build-or-buy.md.
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

const LIMIT = 64 * 1024;
const tooLarge = (c: Context) => c.json({ code: 1001, message: "too large" }, 413);
const limit = bodyLimit({ maxSize: LIMIT, onError: tooLarge });

const shortcut: MiddlewareHandler = (c, next) => {
  const length = c.req.raw.headers.get("content-length");
  if (length === null || c.req.raw.headers.has("transfer-encoding")) return limit(c, next);
  return parseInt(length, 10) > LIMIT ? Promise.resolve(tooLarge(c)) : next();
};

const read = async (c: Context) => c.json(JSON.parse(await c.req.text()));
const apps = {
  "own shortcut + bodyLimit": new Hono().post("/", shortcut, read),
  "bodyLimit alone": new Hono().post("/", limit, read),
};

const body = JSON.stringify({
  payload: {
    event_type: "parts_drop_off",
    user_email: "dana@depot.example",
    details: {
      rego: "ABC123",
      movement_type: "direct",
      delivery_location: { id: 7 },
      parts: Array.from({ length: 12 }, (_, i) => ({ parts_order_id: 1000 + i, confirm: true, image_id: i })),
    },
  },
});
const headers = { "content-type": "application/json", "content-length": String(body.length) };

async function run(app: Hono, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const res = await app.request("/", { method: "POST", headers, body });
    await res.arrayBuffer();
  }
  return ((performance.now() - t0) * 1000) / n;
}

const N = 20_000;
for (const app of Object.values(apps)) await run(app, 2_000); // warm-up
const times: Record<string, number[]> = {};
for (let round = 1; round <= 6; round++) {
  // Alternate the order, so neither variant always runs on a warmer (or busier) machine.
  const entries = Object.entries(apps);
  for (const [name, app] of round % 2 ? entries : entries.reverse()) {
    (times[name] ??= []).push(await run(app, N));
  }
}
for (const [name, t] of Object.entries(times)) {
  const sorted = t.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(26)} median ${sorted[sorted.length >> 1].toFixed(1)} µs/request (${
      sorted.map((x) => x.toFixed(1)).join(", ")
    })`,
  );
}
