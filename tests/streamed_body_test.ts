/**
 * What `limitStreamedBody` (routes/web/body_limits.ts) hands the route: the body, byte for byte, as a byte
 * stream read under the pace rule, whatever the source (Deno.serve's byte streams, or a stream built in JS
 * that may hand out empty chunks) and whatever the reader (default, or BYOB with any buffer size). A BYOB
 * reader reads a byte-stream source straight into its own buffer, in reads as large as that buffer.
 * The pace rule itself: tests/slow_body_test.ts.
 */
import assert from "node:assert/strict";
import { type Context, Hono } from "hono";
import { testConfig } from "@/io/config.ts";
import { limitStreamedBody } from "@/routes/web/body_limits.ts";

const deps = { config: testConfig() };
const BODY = Uint8Array.from({ length: 300 * 1024 + 7 }, (_, i) => (i * 31 + (i >> 9)) & 0xff);

/** A byte stream giving `bytes` in reads of at most `piece` bytes, into the reader's buffer when it has one. */
function byteSource(bytes: Uint8Array, piece: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      const request = controller.byobRequest;
      if (at === bytes.length) {
        controller.close();
        request?.respond(0);
        return;
      }
      const view = request?.view;
      const n = Math.min(piece, bytes.length - at, view?.byteLength ?? Infinity);
      if (view) {
        new Uint8Array(view.buffer, view.byteOffset, n).set(bytes.subarray(at, at + n));
        request!.respond(n);
      } else {
        controller.enqueue(bytes.slice(at, at + n));
      }
      at += n;
    },
  }, { highWaterMark: 0 });
}

/** A default stream of `chunks` (copies), empty ones included. */
const chunkSource = (chunks: Uint8Array[]) => ReadableStream.from(chunks.map((c) => c.slice()));

/** Reads the route's body with a default reader, or a BYOB one with a buffer of `byob` bytes. */
async function readAll(body: ReadableStream<Uint8Array>, byob?: number) {
  const parts: Uint8Array[] = [];
  if (byob === undefined) {
    for await (const chunk of body) parts.push(chunk.slice());
  } else {
    const reader = body.getReader({ mode: "byob" });
    let buffer = new Uint8Array(byob);
    while (true) {
      const { done, value } = await reader.read(buffer);
      if (done) break;
      parts.push(value.slice());
      buffer = new Uint8Array(value.buffer);
    }
  }
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) all.set(p, at), at += p.length;
  return { bytes: all, largestRead: Math.max(0, ...parts.map((p) => p.length)) };
}

async function throughLimit(source: ReadableStream<Uint8Array>, byob?: number) {
  let read: Awaited<ReturnType<typeof readAll>> | undefined;
  const app = new Hono().post(
    "/",
    limitStreamedBody(deps, 1 << 30, (c: Context) => c.text("too large", 413)),
    async (c) => {
      read = await readAll(c.req.raw.body!, byob);
      return c.text("ok");
    },
  );
  const res = await app.request("/", { method: "POST", body: source, duplex: "half" } as RequestInit);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "ok");
  return read!;
}

Deno.test("streamed bodies: the route reads the body byte for byte, whatever the source and the reader", async () => {
  const cuts = [0, 1, 5000, 5000, 70_000, 200_000, BODY.length];
  const sources = {
    "byte stream": () => byteSource(BODY, 100_000),
    "byte stream, small reads": () => byteSource(BODY, 777),
    "JS stream with empty chunks": () =>
      chunkSource(cuts.slice(1).map((end, i) => BODY.subarray(cuts[i], end)).concat([new Uint8Array(0)])),
  };
  for (const [name, source] of Object.entries(sources)) {
    for (const byob of [undefined, 1000, 256 * 1024]) {
      const { bytes } = await throughLimit(source(), byob);
      assert.deepEqual(bytes, BODY, `${name}, ${byob === undefined ? "default reader" : `BYOB ${byob} B`}`);
    }
  }
});

Deno.test("streamed bodies: an empty body, or one of empty chunks only, reads as empty", async () => {
  for (const byob of [undefined, 1000]) {
    for (
      const source of [byteSource(new Uint8Array(0), 10), chunkSource([new Uint8Array(0), new Uint8Array(0)])]
    ) {
      const { bytes } = await throughLimit(source, byob);
      assert.equal(bytes.length, 0);
    }
  }
});

Deno.test("streamed bodies: a BYOB reader gets a byte-stream source's reads whole, not in 64 KiB pieces", async () => {
  const { bytes, largestRead } = await throughLimit(byteSource(BODY, 200_000), 256 * 1024);
  assert.deepEqual(bytes, BODY);
  assert.equal(largestRead, 200_000);
});
