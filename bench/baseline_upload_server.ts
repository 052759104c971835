/**
 * Baseline for the upload benchmark: a bare `Deno.serve` that does what storing a photo must do and no more:
 * streams the request body to a file while hashing it (SHA-256), fsyncs the file, renames it to its hash and
 * fsyncs the folder, and keeps a row for it in `photos` (bare pg/PGlite). No framework, multipart parsing,
 * type check, token or thumbnail. Reads PORT, UPLOAD_DIR, and DATABASE_URL (server) or DATA_DIR (embedded)
 * from the environment; run only by tasks/bench.ts and bench/profiles/upload.ts.
 *
 * How it streams (UPLOAD_TECHNIQUE) is the fastest bare technique measured (docs/performance.md "Upload
 * path"; `deno run -A bench/profiles/upload.ts baseline` interleaves both):
 * - `chunk` (the default): one hash update and one write per chunk as Deno hands the body over (64 KiB).
 * - `batched`: a BYOB reader straight into reused 1 MiB buffers, one hash update and one write a buffer, one
 *   write in flight while the next fills (what io/batched_writer.ts does in the service). On the shared
 *   2-core host it ran at 0.4–0.7 of `chunk`.
 */
import { createHash } from "node:crypto";
import { openBareDb } from "@/bench/bare_db.ts";

const BATCHED = Deno.env.get("UPLOAD_TECHNIQUE") === "batched";
/** `batched`: bytes read before a buffer is hashed and written (4 a photo; 16 MiB for 8 uploads at once). */
const BATCH_BYTES = 1024 * 1024;
/** Buffers of finished uploads, reused by the next ones (two an upload in flight). */
const spare: ArrayBuffer[] = [];

const dir = Deno.env.get("UPLOAD_DIR")!;
await Deno.mkdir(`${dir}/tmp`, { recursive: true });

const query = await openBareDb();

async function writeAll(file: Deno.FsFile, data: Uint8Array): Promise<void> {
  for (let written = 0; written < data.byteLength;) written += await file.write(data.subarray(written));
}

/** Streams `body` into `file` chunk by chunk, hashed on the way; the SHA-256 (hex) and the byte count. */
async function storeChunks(body: ReadableStream<Uint8Array>, file: Deno.FsFile) {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of body) {
    hash.update(chunk);
    bytes += chunk.byteLength;
    await writeAll(file, chunk);
  }
  return { key: hash.digest("hex"), bytes };
}

/** Streams `body` into `file` in full buffers, hashed on the way; the SHA-256 (hex) and the byte count. */
async function storeBatches(body: ReadableStream<Uint8Array>, file: Deno.FsFile) {
  const reader = body.getReader({ mode: "byob" });
  const hash = createHash("sha256");
  const buffers = [spare.pop() ?? new ArrayBuffer(BATCH_BYTES), spare.pop() ?? new ArrayBuffer(BATCH_BYTES)];
  let current = 0;
  let inFlight: Promise<void> = Promise.resolve();
  let bytes = 0;
  try {
    let done = false;
    while (!done) {
      // Fill the current buffer whole (a read hands back at most what the network delivered).
      let filled = 0;
      let buffer = buffers[current];
      while (filled < BATCH_BYTES) {
        const read = await reader.read(new Uint8Array(buffer, filled));
        if (read.value) buffer = read.value.buffer as ArrayBuffer; // the read transferred it
        if (read.done) {
          done = true;
          break;
        }
        filled += read.value.byteLength;
      }
      buffers[current] = buffer;
      if (filled === 0) break;
      const data = new Uint8Array(buffer, 0, filled);
      hash.update(data); // while the previous buffer is still on its way to the file
      await inFlight; // that buffer is free again: the next read may fill it
      inFlight = writeAll(file, data);
      inFlight.catch(() => {}); // observed by the next await; not an unhandled rejection meanwhile
      bytes += filled;
      current = 1 - current;
    }
    await inFlight;
  } finally {
    reader.releaseLock();
    for (const b of buffers) if (b.byteLength === BATCH_BYTES && spare.length < 16) spare.push(b);
  }
  return { key: hash.digest("hex"), bytes };
}

Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
  if (new URL(req.url).pathname === "/healthz") {
    await query("select 1", []);
    return new Response("ok");
  }
  const temp = `${dir}/tmp/${crypto.randomUUID()}`;
  const file = await Deno.open(temp, { write: true, createNew: true });
  const { key, bytes } = BATCHED ? await storeBatches(req.body!, file) : await storeChunks(req.body!, file);
  await file.sync();
  file.close();
  await Deno.rename(temp, `${dir}/${key}`);
  const folder = await Deno.open(dir);
  await folder.sync();
  folder.close();
  await query(
    `insert into photos (storage_key, content_type, byte_size, width, height) values ($1, 'image/jpeg', $2, 1, 1)`,
    [key, bytes],
  );
  return Response.json({ code: 3000 });
});
