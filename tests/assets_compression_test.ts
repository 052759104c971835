/**
 * Static assets on the wire: each built script and stylesheet is precompressed at build time (brotli and
 * gzip), and the assets route sends the copy the browser accepts with Content-Encoding, Vary and an ETag
 * per encoding. The bytes are checked by decompressing them and comparing with the file itself.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { DIST_DIR, ensureAssets } from "@/render/assets.ts";
import { acceptedEncodings, assetsRoutes } from "@/routes/assets.ts";

const quiet = () => {};

async function built() {
  const manifest = await ensureAssets({ log: quiet });
  const files = [...Object.values(manifest.files), ...Object.values(manifest.islands)];
  return { manifest, files, app: assetsRoutes() };
}

const get = (app: ReturnType<typeof assetsRoutes>, file: string, headers: Record<string, string> = {}) =>
  app.request(`/static/dist/${file}`, { headers });

Deno.test("assets compression: the build writes a brotli and a gzip copy of every script and stylesheet", async () => {
  const { manifest, files } = await built();
  for (const file of files) {
    const plain = await Deno.readFile(join(DIST_DIR, file));
    if (plain.byteLength < 200) continue; // a tiny chunk may not shrink; it is then sent as it is
    const br = await Deno.readFile(join(DIST_DIR, `${file}.br`));
    const gz = await Deno.readFile(join(DIST_DIR, `${file}.gz`));
    assert.deepEqual(new Uint8Array(brotliDecompressSync(br)), plain, `${file}.br`);
    assert.deepEqual(new Uint8Array(gunzipSync(gz)), plain, `${file}.gz`);
    assert.ok(br.byteLength < plain.byteLength && gz.byteLength < plain.byteLength, file);
    assert.ok(manifest.compressed.includes(`${file}.br`) && manifest.compressed.includes(`${file}.gz`));
  }
});

Deno.test("assets compression: brotli when accepted, else gzip, else the file; same bytes once decoded", async () => {
  const { manifest, app } = await built();
  for (const file of [manifest.files["boot.js"], manifest.files["styles.css"], manifest.islands.TabletFlow]) {
    const plain = await Deno.readFile(join(DIST_DIR, file));
    const identity = await get(app, file, { "accept-encoding": "identity" });
    assert.equal(identity.status, 200);
    assert.equal(identity.headers.get("content-encoding"), null);
    assert.equal(identity.headers.get("vary"), "Accept-Encoding");
    assert.equal(identity.headers.get("etag"), `"${file}"`);
    assert.deepEqual(new Uint8Array(await identity.arrayBuffer()), plain);

    const br = await get(app, file, { "accept-encoding": "gzip, deflate, br, zstd" });
    assert.equal(br.status, 200);
    assert.equal(br.headers.get("content-encoding"), "br");
    assert.equal(br.headers.get("vary"), "Accept-Encoding");
    assert.equal(br.headers.get("etag"), `"${file}.br"`);
    assert.match(br.headers.get("content-type")!, file.endsWith(".js") ? /^text\/javascript/ : /^text\/css/);
    assert.equal(br.headers.get("cache-control"), "public, max-age=31536000, immutable");
    const brBytes = new Uint8Array(await br.arrayBuffer());
    assert.ok(brBytes.byteLength < plain.byteLength);
    assert.deepEqual(new Uint8Array(brotliDecompressSync(brBytes)), plain);

    const gz = await get(app, file, { "accept-encoding": "gzip, br;q=0" });
    assert.equal(gz.headers.get("content-encoding"), "gzip");
    assert.equal(gz.headers.get("etag"), `"${file}.gz"`);
    assert.deepEqual(new Uint8Array(gunzipSync(new Uint8Array(await gz.arrayBuffer()))), plain);

    // No Accept-Encoding at all: the file as it is.
    const none = await get(app, file);
    assert.equal(none.headers.get("content-encoding"), null);
    assert.deepEqual(new Uint8Array(await none.arrayBuffer()), plain);
  }
});

Deno.test("assets compression: a revalidation with the encoding's ETag answers 304, another encoding's does not", async () => {
  const { manifest, app } = await built();
  const file = manifest.files["boot.js"];
  const br = { "accept-encoding": "br", "if-none-match": `"${file}.br"` };
  const notModified = await get(app, file, br);
  assert.equal(notModified.status, 304);
  assert.equal(notModified.headers.get("etag"), `"${file}.br"`);
  assert.equal(notModified.headers.get("vary"), "Accept-Encoding");
  const other = await get(app, file, { "accept-encoding": "gzip", "if-none-match": `"${file}.br"` });
  assert.equal(other.status, 200);
  assert.equal(other.headers.get("content-encoding"), "gzip");
  await other.body?.cancel();
});

Deno.test("assets compression: the copies are reached only through their file's name", async () => {
  const { manifest, app } = await built();
  const file = manifest.files["boot.js"];
  for (const name of [`${file}.br`, `${file}.gz`]) {
    const res = await get(app, name, { "accept-encoding": "br, gzip" });
    assert.equal(res.status, 404, name);
    await res.body?.cancel();
  }
});

Deno.test("assets compression: Accept-Encoding is read with its q-values and wildcard", () => {
  assert.deepEqual(acceptedEncodings(undefined), []);
  assert.deepEqual(acceptedEncodings(""), []);
  assert.deepEqual(acceptedEncodings("gzip, deflate, br"), ["br", "gzip"]);
  assert.deepEqual(acceptedEncodings("GZIP;q=0.5, BR;q=1.0"), ["br", "gzip"]);
  assert.deepEqual(acceptedEncodings("br;q=0, gzip"), ["gzip"]);
  assert.deepEqual(acceptedEncodings("*"), ["br", "gzip"]);
  assert.deepEqual(acceptedEncodings("*;q=0"), []);
  assert.deepEqual(acceptedEncodings("br;q=0, *"), ["gzip"]);
  assert.deepEqual(acceptedEncodings("identity"), []);
  assert.deepEqual(acceptedEncodings("gzip;q=abc"), []);
});
