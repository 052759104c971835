/**
 * The embedded database's data folder, with each file's size remembered between changes.
 *
 * PostgreSQL asks for a relation file's size (`lseek` to its end) for every table and index a statement
 * plans or scans: about 80 times for one search. PGlite's Emscripten file system (NODEFS) answers each with
 * `node:fs` `fstatSync`, which in Deno 2.9 builds a whole Stats object, Dates and all: 10 µs a call against
 * 0.4 µs for the seek itself, and a fifth of the embedded service's CPU under search load (docs/pglite.md,
 * "Defects to report upstream"). Here the answer is kept per file until anything that could change a file's
 * size happens in the folder.
 *
 * Why this is safe: every byte PostgreSQL writes, and every truncate, create, rename and unlink, reaches
 * the folder through NODEFS's operations, which every file and stream of the mount share. Each of those
 * operations except the few that only read or sync is wrapped to forget every kept size (not just its own
 * file's: nothing has to be known about what an operation touches). Nothing else writes the folder while
 * the database is open: db/embedded_lock.ts keeps other processes out. A size is therefore only ever
 * served when no change has happened since it was read from the file itself.
 */
// Emscripten's `whence` for a seek relative to the end of the file.
const SEEK_END = 2;

/**
 * The operations of NODEFS that never change a file's size or the set of files: they only read, or (fsync,
 * db/pglite_fsync.ts) force what is written to the disk.
 */
const KEEP_SIZES = new Set([
  "read",
  "llseek",
  "getattr",
  "lookup",
  "readdir",
  "readlink",
  "statfs",
  "close",
  "dup",
  "fsync",
]);

/** A stream as NODEFS's `llseek` sees it: its file system node is the file's identity. */
interface Stream {
  node: object;
}

type Operation = (this: unknown, ...args: never[]) => unknown;
type Llseek = (this: unknown, stream: Stream, offset: number, whence: number) => number;

/** What this module needs of Emscripten's NODEFS: its two tables of operations, shared by all its nodes. */
export interface NodeFsOperations {
  node_ops: Record<string, Operation>;
  stream_ops: Record<string, Operation>;
}

/**
 * Makes `nodefs` remember file sizes (see the module comment). Call once per Emscripten module, before the
 * folder is mounted and after any operation is added (db/pglite.ts); `nodefs` is that module's own NODEFS
 * (each PGlite instance has one).
 */
export function rememberFileSizes(nodefs: NodeFsOperations): void {
  const sizes = new Map<object, number>();
  for (const ops of [nodefs.node_ops, nodefs.stream_ops]) {
    for (const [name, operation] of Object.entries(ops)) {
      if (typeof operation !== "function" || KEEP_SIZES.has(name)) continue;
      ops[name] = function (this: unknown, ...args: never[]) {
        try {
          return operation.apply(this, args);
        } finally {
          sizes.clear();
        }
      };
    }
  }
  const llseek = nodefs.stream_ops.llseek as unknown as Llseek;
  nodefs.stream_ops.llseek = function (this: unknown, stream: Stream, offset: number, whence: number) {
    if (whence !== SEEK_END) return llseek.call(this, stream, offset, whence);
    let size = sizes.get(stream.node);
    if (size === undefined) {
      size = llseek.call(this, stream, 0, SEEK_END); // the file's own size (0 for what is not a file)
      sizes.set(stream.node, size);
    }
    // A position before the start: NODEFS's own refusal (EINVAL), as without the kept size.
    return offset + size < 0 ? llseek.call(this, stream, offset, whence) : offset + size;
  } as unknown as Operation;
}
