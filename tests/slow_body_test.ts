/**
 * Slow clients, the part the app does itself (routes/web/body_pace.ts): a request body
 * that stalls, or trickles in under the minimum average rate once the grace time has passed, is refused
 * with 408 and its connection closed. Headers and connection counts are the reverse proxy's job
 * (tests/nginx_proxy_test.ts). The pace here is short (a few hundred ms) so the tests are quick; the
 * assertions are on the answers, not on wall-clock time, except the spawned service's generous bound.
 */
import assert from "node:assert/strict";
import { type Context, Hono } from "hono";
import { testConfig } from "@/io/config.ts";
import { createApp } from "@/main.ts";
import { bufferedBodies, limitStreamedBody } from "@/routes/web/body_limits.ts";
import { RawConnection, requestHead } from "@/tests/helpers/raw_http.ts";
import { serveWithSessions } from "@/tests/helpers/served_sessions.ts";
import { captureLogs } from "@/tests/helpers/observed.ts";

const config = testConfig({ bodyPace: { timeoutMs: 300, minBytesPerSecond: 1000 } });
const deps = { config };
const tooLarge = (c: Context) => c.text("too large", 413);

/** A body that sends `pieces` of `size` bytes, `everyMs` apart, then ends (or stalls when `stall`). */
function trickle(pieces: number, size: number, everyMs: number, stall = false): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent === pieces) {
        if (stall) return await new Promise(() => {}); // never another byte
        return controller.close();
      }
      if (sent > 0) await new Promise((r) => setTimeout(r, everyMs));
      sent++;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
  }, { highWaterMark: 0 });
}

const post = (app: Hono, body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  app.request("/", { method: "POST", body, headers, duplex: "half" } as RequestInit);

const bufferedApp = () =>
  new Hono().post("/", bufferedBodies(deps, 64 * 1024, tooLarge), async (c) => {
    return c.text(`read ${(await c.req.arrayBuffer()).byteLength}`);
  });

/** 408 with its message, then the answer's body breaks off: that is what drops the connection. */
async function assertTooSlow(res: Response) {
  assert.equal(res.status, 408);
  assert.equal(res.headers.get("connection"), "close");
  const reader = res.body!.getReader();
  const first = await reader.read();
  assert.equal(new TextDecoder().decode(first.value), "Request body too slow.");
  await assert.rejects(reader.read());
}

Deno.test("slow bodies: a form or JSON body that stalls is refused with 408", async () => {
  await assertTooSlow(await post(bufferedApp(), trickle(3, 10, 10, true)));
});

Deno.test("slow bodies: a body trickled under the minimum rate is refused once the grace time passed", async () => {
  // 10 bytes every 50 ms: never stalls for 300 ms, but 200 B/s is under the 1000 B/s minimum.
  await assertTooSlow(await post(bufferedApp(), trickle(1000, 10, 50)));
});

Deno.test("slow bodies: a declared length that never fully arrives is refused with 408", async () => {
  await assertTooSlow(await post(bufferedApp(), trickle(1, 10, 0, true), { "content-length": "100" }));
});

Deno.test("slow bodies: a body declared within the grace time's bytes is due whole by its end", async () => {
  // 250 bytes declared, at most the 300 the grace time allows at 1000 B/s: one deadline for the whole body.
  // 10 bytes every 50 ms: no byte is late, but the body is not complete 300 ms after the start.
  await assertTooSlow(await post(bufferedApp(), trickle(25, 10, 50), { "content-length": "250" }));
  // 50 bytes every 50 ms: whole in 150 ms, read as before.
  const res = await post(bufferedApp(), trickle(4, 50, 50), { "content-length": "200" });
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "read 200");
});

Deno.test("slow bodies: a body at a fair pace passes whole", async () => {
  // 2 KiB every 100 ms: about 20 KB/s.
  const res = await post(bufferedApp(), trickle(8, 2048, 100));
  assert.equal(res.status, 200);
  assert.equal(await res.text(), `read ${8 * 2048}`);
});

Deno.test("slow bodies: a streamed photo body that stalls answers 408 whatever its reader made of it", async () => {
  for (
    const route of [
      // The reader lets the error through (to the app's error handler).
      async (c: Context) => c.text(`read ${(await new Response(c.req.raw.body).arrayBuffer()).byteLength}`),
      // The reader turns it into its own refusal: the limit still answers 408.
      async (c: Context) => {
        try {
          await new Response(c.req.raw.body).arrayBuffer();
        } catch {
          return c.json({ message: "Upload failed." }, 400);
        }
        return c.text("read");
      },
    ]
  ) {
    const app = new Hono().post("/", limitStreamedBody(deps, 1 << 30, tooLarge), route);
    app.onError((error, c) =>
      error instanceof Error && "getResponse" in error
        ? (error as unknown as { getResponse(): Response }).getResponse()
        : c.text("fault", 500)
    );
    await assertTooSlow(await post(app, trickle(3, 10, 10, true)));
  }
});

Deno.test("slow bodies: the app answers a stalled body 408 through its own error handler, no fault logged", async () => {
  const app = createApp({
    config,
    db: undefined as never,
    clock: undefined as never,
    storage: undefined as never,
  });
  // Warnings and errors are what an operator is paged on: a slow client is neither.
  using logs = captureLogs({ format: "text", level: "warning" });
  const res = await app.request(`/api/handler?publickey=${config.publicKey}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: trickle(3, 10, 10, true),
    duplex: "half",
  } as RequestInit);
  await assertTooSlow(res);
  assert.deepEqual(logs.lines, []);
});

Deno.test({
  name: "slow bodies: the real service answers a trickled body 408 and closes the connection",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const served = await serveWithSessions("pglite", {
      BODY_TIMEOUT_SECONDS: "1",
      BODY_MIN_BYTES_PER_SECOND: "1000",
    });
    try {
      const host = new URL(served.service.url).host;
      const cases = [
        requestHead("POST", `/api/handler?publickey=${served.service.publicKey}`, {
          Host: host,
          "Content-Type": "application/json",
          "Content-Length": "1000",
        }),
        requestHead("POST", "/hq/sign-in", {
          Host: host,
          "Content-Type": "application/x-www-form-urlencoded",
          "Transfer-Encoding": "chunked",
        }),
      ];
      for (const head of cases) {
        const conn = await RawConnection.open(served.service.url);
        await conn.write(head);
        const chunked = head.includes("chunked");
        // A byte every 200 ms, for at most 60 s (a generous bound; the rule allows about 1 s here).
        for (let i = 0; i < 300 && !conn.ended; i++) {
          await conn.write(chunked ? "1\r\na\r\n" : "a");
          await new Promise((r) => setTimeout(r, 200));
        }
        const closedByService = conn.ended;
        conn.close();
        assert.match(conn.answer().text, /^HTTP\/1\.1 408 /, head.split("\r\n")[0]);
        assert.ok(closedByService, "the service closed the connection");
      }
    } finally {
      await served.close();
    }
  },
});
