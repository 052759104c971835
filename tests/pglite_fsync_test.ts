/**
 * db/pglite_fsync.ts: the embedded database forces its commits to the disk. A power cut itself cannot be
 * staged here; what is proven is that PostgreSQL runs with fsync on, and that a commit, and a checkpoint,
 * reach the kernel's fsync through node:fs while a read reaches nothing.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { newPGlite } from "@/db/pglite.ts";
import { countingCalls } from "@/tests/helpers/count_calls.ts";

Deno.test("pglite fsync: a data folder's and an in-memory database run with fsync on, by a method that reaches the disk", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // One at a time, each closed before the next opens, and the folder removed whatever the outcome.
    for (const open of [() => newPGlite({ dataDir: dir }), () => newPGlite({})]) {
      const db = open();
      try {
        const { rows } = await db.query<{ fsync: string; method: string }>(
          "select current_setting('fsync') as fsync, current_setting('wal_sync_method') as method",
        );
        assert.deepEqual(rows, [{ fsync: "on", method: "fsync" }]);
      } finally {
        await db.close();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pglite fsync: each commit syncs the WAL, a checkpoint the data files, a read nothing", async () => {
  const dir = await Deno.makeTempDir();
  const db = newPGlite({ dataDir: dir });
  try {
    await db.exec("create table t (id serial primary key, v text)");
    const commits = await countingCalls(fs, "fsyncSync", async () => {
      for (let i = 0; i < 5; i++) await db.query("insert into t (v) values ($1)", [`row ${i}`]);
    });
    assert.ok(commits.calls >= 5, `5 commits, ${commits.calls} fsyncs`);
    const read = await countingCalls(fs, "fsyncSync", () => db.query("select count(*) from t"));
    assert.equal(read.calls, 0);
    const checkpoint = await countingCalls(fs, "fsyncSync", () => db.exec("checkpoint"));
    assert.ok(checkpoint.calls >= 1, `checkpoint: ${checkpoint.calls} fsyncs`);
  } finally {
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
