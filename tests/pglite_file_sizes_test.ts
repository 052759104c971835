/**
 * db/pglite_file_sizes.ts: a data folder's file sizes are remembered between changes, and a remembered
 * size is never served after a change. Proven on a real data folder, through the Emscripten file system
 * PostgreSQL itself uses (any sequence of writes, truncates, re-opens, renames and unlinks), and at the SQL
 * level (any sequence of inserts, deletes, updates, truncates and vacuums gives the same tables as an
 * in-memory database, before and after the folder is opened again).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import fc from "@/tests/helpers/fast_check.ts";
import type { PGlite } from "@electric-sql/pglite";
import { newPGlite } from "@/db/pglite.ts";
import { countingCalls } from "@/tests/helpers/count_calls.ts";

const SEEK_END = 2;

/** The parts of PGlite's Emscripten file system these tests drive. */
interface Stream {
  fd: number;
}
interface EmscriptenFs {
  mkdir(path: string): void;
  open(path: string, flags: string): Stream;
  close(stream: Stream): void;
  write(stream: Stream, bytes: Uint8Array, offset: number, length: number, position: number): number;
  llseek(stream: Stream, offset: number, whence: number): number;
  ftruncate(fd: number, length: number): void;
  fstat(fd: number): { size: number };
  rename(from: string, to: string): void;
  unlink(path: string): void;
}

/** Runs `fn` on a new data folder's database and its Emscripten file system, then removes the folder. */
async function onFolder(
  fn: (folder: { fs: EmscriptenFs; root: string; dir: string }) => void | Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  const pglite = newPGlite({ dataDir: dir });
  try {
    await pglite.waitReady;
    await fn({
      fs: pglite.Module.FS as unknown as EmscriptenFs,
      root: (pglite.Module as unknown as { ENV: { PGDATA: string } }).ENV.PGDATA,
      dir,
    });
  } finally {
    await pglite.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("pglite file sizes: a size is asked of the folder once, then remembered until the file changes", () =>
  onFolder(async ({ fs: efs, root }) => {
    const stream = efs.open(`${root}/size-once`, "w+");
    efs.write(stream, new Uint8Array(100), 0, 100, 0);
    const first = await countingCalls(
      fs,
      "fstatSync",
      () => [1, 2, 3].map(() => efs.llseek(stream, 0, SEEK_END)),
    );
    assert.deepEqual(first.result, [100, 100, 100]);
    assert.equal(first.calls, 1, "asked once, then remembered");
    efs.write(stream, new Uint8Array(50), 0, 50, 100);
    const after = await countingCalls(fs, "fstatSync", () => efs.llseek(stream, 0, SEEK_END));
    assert.equal(after.result, 150);
    assert.equal(after.calls, 1, "a write forgets the remembered size");
    assert.equal(efs.llseek(stream, -10, SEEK_END), 140, "the offset counts from the end");
    assert.throws(() => efs.llseek(stream, -151, SEEK_END), "before the start is refused, as before");
    efs.close(stream);
  }));

type Command =
  | { kind: "write"; file: number; offset: number; length: number }
  | { kind: "truncate"; file: number; length: number }
  | { kind: "reopen"; file: number; truncate: boolean }
  | { kind: "rename"; from: number; to: number }
  | { kind: "unlink"; file: number };

const FILES = 3;
const file = fc.nat(FILES - 1);
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    kind: fc.constant("write"),
    file,
    offset: fc.nat(20_000),
    length: fc.integer({ min: 1, max: 9000 }),
  }),
  fc.record({ kind: fc.constant("truncate"), file, length: fc.nat(25_000) }),
  fc.record({ kind: fc.constant("reopen"), file, truncate: fc.boolean() }),
  fc.record({ kind: fc.constant("rename"), from: file, to: file }),
  fc.record({ kind: fc.constant("unlink"), file }),
);

Deno.test("pglite file sizes: after any sequence of changes, every open stream's end is its file's real size", () =>
  onFolder(({ fs: efs, root, dir }) => {
    let run = 0;
    fc.assert(
      fc.property(fc.array(command, { minLength: 1, maxLength: 25 }), (commands) => {
        const base = `${root}/sizes-${run++}`;
        efs.mkdir(base);
        const path = (n: number) => `${base}/f${n}`;
        // Two streams per file name (as PostgreSQL may have), each asked for its end after every command.
        const open = new Map<number, Stream[]>();
        const openTwice = (n: number, flags: string) => {
          for (const s of open.get(n) ?? []) efs.close(s);
          open.set(n, [efs.open(path(n), flags), efs.open(path(n), "r+")]);
        };
        for (let n = 0; n < FILES; n++) openTwice(n, "w+");
        for (const c of commands) {
          const streams = open.get("file" in c ? c.file : c.from);
          if (c.kind === "write" && streams) {
            efs.write(streams[c.offset % 2], new Uint8Array(c.length).fill(7), 0, c.length, c.offset);
          } else if (c.kind === "truncate" && streams) {
            efs.ftruncate(streams[1].fd, c.length);
          } else if (c.kind === "reopen") {
            openTwice(c.file, c.truncate ? "w+" : "a+");
          } else if (c.kind === "rename" && streams && c.from !== c.to) {
            for (const s of open.get(c.to) ?? []) efs.close(s);
            efs.rename(path(c.from), path(c.to));
            open.set(c.to, streams);
            open.delete(c.from);
          } else if (c.kind === "unlink" && streams) {
            efs.unlink(path(c.file));
            for (const s of streams) efs.close(s);
            open.delete(c.file);
          }
          for (const [n, ss] of open) {
            for (const s of ss) {
              // The truth: the operating system's own fstat of the stream's file, never remembered.
              const real = efs.fstat(s.fd).size;
              assert.equal(efs.llseek(s, 0, SEEK_END), real, `f${n} after ${JSON.stringify(c)}`);
              assert.equal(real, Deno.statSync(`${dir}/${path(n).slice(root.length + 1)}`).size);
            }
          }
        }
        for (const ss of open.values()) for (const s of ss) efs.close(s);
      }),
      { numRuns: 150 },
    );
  }));

type Step =
  | { kind: "insert"; table: number; rows: number; pad: number }
  | { kind: "delete"; table: number; modulo: number }
  | { kind: "update"; table: number; modulo: number }
  | { kind: "truncate"; table: number }
  | { kind: "vacuum"; table: number; full: boolean }
  | { kind: "reindex"; table: number }
  | { kind: "checkpoint" };

const table = fc.nat(1);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("insert"),
      table,
      rows: fc.integer({ min: 1, max: 3000 }),
      pad: fc.nat(300),
    }),
  },
  fc.record({ kind: fc.constant("delete"), table, modulo: fc.integer({ min: 2, max: 5 }) }),
  fc.record({ kind: fc.constant("update"), table, modulo: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant("truncate"), table }),
  fc.record({ kind: fc.constant("vacuum"), table, full: fc.boolean() }),
  fc.record({ kind: fc.constant("reindex"), table }),
  fc.record({ kind: fc.constant("checkpoint") }),
);

function sqlOf(s: Step): string {
  if (s.kind === "checkpoint") return "checkpoint";
  const t = `t${s.table}`;
  switch (s.kind) {
    case "insert":
      return `insert into ${t} (x, pad) select g, repeat('p', ${s.pad}) from generate_series(1, ${s.rows}) g`;
    case "delete":
      return `delete from ${t} where x % ${s.modulo} = 0`;
    case "update":
      return `update ${t} set x = x + 1, pad = pad || 'u' where x % ${s.modulo} = 0`;
    case "truncate":
      return `truncate ${t}`;
    case "vacuum":
      return `vacuum ${s.full ? "full " : ""}${t}`;
    case "reindex":
      return `reindex table ${t}`;
  }
}

/** Each table's rows in summary, read once by a sequential scan and once through its index. */
async function contents(db: PGlite): Promise<unknown[]> {
  const out = [];
  for (const t of ["t0", "t1"]) {
    for (const seqscan of ["on", "off"]) {
      await db.exec(`set enable_seqscan = ${seqscan}; set enable_bitmapscan = ${seqscan}`);
      const { rows } = await db.query(
        `select count(*)::int as n, coalesce(sum(x), 0)::bigint::text as xs, coalesce(sum(length(pad)), 0)::int as pads,
           max(id) as top from ${t} where id > 0`,
      );
      out.push({ t, seqscan, ...rows[0] as object });
    }
  }
  await db.exec("reset enable_seqscan; reset enable_bitmapscan");
  return out;
}

const SCHEMA = [0, 1].map((n) =>
  `create table t${n} (id serial primary key, x int not null, pad text not null);
   create index t${n}_x on t${n} (x);`
).join("\n");

Deno.test("pglite file sizes: any sequence of writes leaves a data folder's tables as an in-memory database's, reopened too", async () => {
  const dir = await Deno.makeTempDir();
  let folder = newPGlite({ dataDir: dir });
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        const memory = newPGlite({});
        try {
          for (const db of [folder, memory]) await db.exec(`drop table if exists t0, t1; ${SCHEMA}`);
          for (const s of steps) {
            for (const db of [folder, memory]) await db.exec(sqlOf(s));
            assert.deepEqual(await contents(folder), await contents(memory), `after ${sqlOf(s)}`);
          }
          // Everything the folder holds, read by a new instance that remembers nothing yet.
          await folder.close();
          folder = newPGlite({ dataDir: dir });
          assert.deepEqual(await contents(folder), await contents(memory), "after reopening the folder");
        } finally {
          await memory.close();
        }
      }),
      { numRuns: 6 },
    );
  } finally {
    await folder.close();
    await Deno.remove(dir, { recursive: true });
  }
});
