/**
 * `/readyz` checks the photo store too (D26): a store that cannot take a write, or does not answer
 * at all, makes the instance not ready (503, reason `photo_store`) within the health bound, while `/healthz`
 * (alive: the database answers) stays 200.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { S3PhotoStore } from "@/io/photo_stores/s3.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { createApp } from "@/main.ts";
import { appTest } from "@/testkit/app.ts";

appTest(
  "readyz: a disk store that cannot be written answers 503 photo_store; healthz stays 200",
  async (a) => {
    const root = await Deno.makeTempDir({ prefix: "pm-readyz-" });
    try {
      // A file where the photos folder should be: nothing can be staged under it, whoever runs the test.
      await Deno.writeTextFile(join(root, "photos"), "not a folder");
      a.storage = new DiskPhotoStore(join(root, "photos"));
      const app = createApp(a);
      const res = await app.request("/readyz");
      assert.equal(res.status, 503);
      assert.deepEqual(await res.json(), { status: "unavailable", reason: "photo_store" });
      assert.equal((await app.request("/healthz")).status, 200);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
);

appTest(
  "readyz: an S3 endpoint that accepts connections and never answers gives 503 within the health bound",
  async (a) => {
    // A real socket that takes the connection and stays silent: the store's own timeouts are far longer.
    const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const held: Deno.Conn[] = [];
    const accepting = (async () => {
      for await (const conn of silent) held.push(conn);
    })();
    const tmp = await Deno.makeTempDir({ prefix: "pm-readyz-" });
    const store = new S3PhotoStore({
      endpoint: `http://127.0.0.1:${silent.addr.port}`,
      bucket: "pm-photos",
      region: "us-east-1",
      accessKeyId: "key",
      secretAccessKey: "secret",
      forcePathStyle: true,
    }, tmp);
    try {
      const bound = 500;
      const app = createApp({
        ...a,
        storage: store,
        config: { ...a.config, db: { ...a.config.db, healthMs: bound } },
      });
      const started = performance.now();
      const res = await app.request("/readyz");
      const took = performance.now() - started;
      assert.equal(res.status, 503);
      assert.equal((await res.json()).reason, "photo_store");
      // Generous slack for a loaded 2-core machine; without the bound this waits for the SDK's 30 s.
      assert.ok(took < bound + 5_000, `answered after ${Math.round(took)} ms`);
    } finally {
      store.close();
      silent.close();
      for (const conn of held) conn.close();
      await accepting.catch(() => {});
      await Deno.remove(tmp, { recursive: true });
    }
  },
);
