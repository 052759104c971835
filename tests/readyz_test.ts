/**
 * `/readyz` checks the photo store too (D26): a store that cannot take a write, or does not answer
 * at all, makes the instance not ready (503, reason `photo_store`) once the health bound ran out, while `/healthz`
 * (alive: the database answers) stays 200. So does too little free space under DATA_DIR (reason
 * `disk_space`), warned of before it gets there.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { S3PhotoStore } from "@/io/photo_stores/s3.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { createApp } from "@/main.ts";
import { appTest } from "@/testkit/app.ts";
import { configureLogging, resetLogging } from "@/io/log.ts";
import { statfsFreeBytes } from "@/lib/disk_space.ts";
import { within } from "@/tests/helpers/races.ts";

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
  "readyz: an S3 endpoint that accepts connections and never answers gives 503 once the health bound ran out",
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
      // The database first, under the test app's own bound: a fresh embedded database's first query can take
      // seconds on a loaded machine, and the probe below checks the database before the store.
      assert.equal((await a.app.request("/healthz")).status, 200);
      const bound = 15_000; // far below the SDK's 30 s, far above a loaded machine's database check
      const app = createApp({
        ...a,
        storage: store,
        config: { ...a.config, db: { ...a.config.db, healthMs: bound } },
      });
      // Without the bound this waits for the SDK's 30 s: the test fails at 25 s instead (no duration asserted).
      const res = await within(Promise.resolve(app.request("/readyz")), 25_000, "/readyz");
      assert.equal(res.status, 503);
      assert.equal((await res.json()).reason, "photo_store");
      // The cause, not a refusal for another reason: the store did reach the endpoint, which never answered.
      assert.ok(held.length >= 1, "the store connected to the silent endpoint");
    } finally {
      store.close();
      silent.close();
      for (const conn of held) conn.close();
      await accepting.catch(() => {});
      await Deno.remove(tmp, { recursive: true });
    }
  },
);

appTest(
  "readyz: free space under DATA_DIR below MIN_FREE_DISK_BYTES answers 503 disk_space; a warning comes once under twice that",
  async (a) => {
    const GIB = 1024 ** 3;
    let free = 10 * GIB;
    const measured: string[] = [];
    const lines: string[] = [];
    configureLogging({
      format: "text",
      level: "info",
      write: (line) => line.includes("Free disk space") && lines.push(line),
    });
    try {
      const app = createApp({
        ...a,
        config: { ...a.config, minFreeDiskBytes: GIB },
        freeDiskBytes: (path) => (measured.push(path), Promise.resolve(free)),
      });
      assert.equal((await app.request("/readyz")).status, 200);
      assert.deepEqual(measured, [a.dataDir]);
      assert.equal(lines.length, 0);

      // Under twice the threshold: still ready, one warning, not repeated while it stays there.
      free = 1.5 * GIB;
      assert.equal((await app.request("/readyz")).status, 200);
      assert.equal((await app.request("/readyz")).status, 200);
      assert.equal(lines.length, 1);
      assert.match(lines[0], /Free disk space under .* is 1\.50 GiB, under twice MIN_FREE_DISK_BYTES/);

      // Under the threshold: not ready, said once.
      free = 0.5 * GIB;
      const res = await app.request("/readyz");
      assert.equal(res.status, 503);
      assert.deepEqual(await res.json(), { status: "unavailable", reason: "disk_space" });
      assert.equal((await app.request("/readyz")).status, 503);
      assert.equal(lines.length, 2);
      assert.match(lines[1], /below MIN_FREE_DISK_BYTES .*: \/readyz answers not ready/);
      assert.equal((await app.request("/healthz")).status, 200, "alive all the same");

      // Space freed: ready again, and said.
      free = 5 * GIB;
      assert.equal((await app.request("/readyz")).status, 200);
      assert.equal(lines.length, 3);
      assert.match(lines[2], /is 5\.00 GiB again/);
    } finally {
      resetLogging();
    }
  },
);

appTest("readyz: the real measure (statfs) reads the free space of DATA_DIR's file system", async (a) => {
  const free = await statfsFreeBytes(a.dataDir);
  assert.ok(free > 0);
  // A DATA_DIR not made yet is measured on its nearest existing parent.
  assert.ok(await statfsFreeBytes(join(a.dataDir, "not", "yet")) > 0);
  const app = createApp({ ...a, config: { ...a.config, minFreeDiskBytes: free * 4 } });
  assert.deepEqual(await (await app.request("/readyz")).json(), {
    status: "unavailable",
    reason: "disk_space",
  });
});
