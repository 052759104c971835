/**
 * Baseline for the upload benchmark: a bare `Deno.serve` that does what storing a photo must do and no more:
 * streams the request body to a file while hashing it (SHA-256), fsyncs the file, renames it to its hash
 * and fsyncs the folder, and keeps a row for it in `photos` (bare pg/PGlite). No framework, multipart
 * parsing, type check, token or thumbnail. Reads PORT, UPLOAD_DIR, and DATABASE_URL (server) or DATA_DIR
 * (embedded) from the environment; run only by tasks/bench.ts.
 */
import { createHash } from "node:crypto";
import { openBareDb } from "@/bench/bare_db.ts";

const dir = Deno.env.get("UPLOAD_DIR")!;
await Deno.mkdir(`${dir}/tmp`, { recursive: true });

const query = await openBareDb();

Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
  if (new URL(req.url).pathname === "/healthz") {
    await query("select 1", []);
    return new Response("ok");
  }
  const temp = `${dir}/tmp/${crypto.randomUUID()}`;
  const file = await Deno.open(temp, { write: true, createNew: true });
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of req.body!) {
    hash.update(chunk);
    bytes += chunk.byteLength;
    for (let written = 0; written < chunk.byteLength;) written += await file.write(chunk.subarray(written));
  }
  await file.sync();
  file.close();
  const key = hash.digest("hex");
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
