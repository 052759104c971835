/**
 * The check, where the embedded database opens, that PGlite's internals still have the shape the patches of
 * db/pglite.ts, db/pglite_fsync.ts and db/pglite_file_sizes.ts expect (docs/pglite.md "What we patch").
 * Those patches reach past PGlite's public API, into its default start parameters and its Emscripten file
 * system (NODEFS): an upgrade that renamed or reshaped one of them would otherwise open the database
 * unpatched (commits no longer durable) or patched wrongly, with nothing said. Here the open is refused
 * instead, with one line naming the first difference and pointing to the upgrade checklist.
 *
 * The check reads a few dozen properties and one function's source: a few microseconds an open
 * (docs/pglite.md "The start-up check"). The version in the refusal is read from the installed package, only
 * when refusing: deno.json's import map is the one place the version is written.
 */

/** Where a refusal sends the reader: what is patched, why, and the upgrade checklist. */
const GUIDE = "docs/pglite.md";

/** The operations NODEFS has in the version patched: the size cache wraps them, the fsync joins them. */
const NODE_OPS = [
  "getattr",
  "setattr",
  "lookup",
  "mknod",
  "rename",
  "unlink",
  "rmdir",
  "readdir",
  "symlink",
  "readlink",
  "statfs",
];
const STREAM_OPS = ["getattr", "setattr", "open", "close", "dup", "read", "write", "llseek", "mmap", "msync"];

/** PGlite's internals do not have the shape the patches expect: the embedded database is not opened. */
export class PgliteShapeMismatch extends Error {
  override name = "PgliteShapeMismatch";
}

/** What db/pglite.ts takes from PGlite's exports: its default start parameters and its data folder's file system. */
export interface PgliteExports {
  /** `PGlite.defaultStartParams`: db/pglite_fsync.ts removes its `-F` (fsync off). */
  defaultStartParams: unknown;
  /** `NodeFS` of `@electric-sql/pglite/nodefs`: db/pglite.ts overrides its `init`. */
  NodeFS: unknown;
}

type Problem = string | null;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

/** `name` is a function of `arity` declared parameters, else what it is instead. */
function functionProblem(name: string, value: unknown, arity: number): Problem {
  if (typeof value !== "function") return `${name} is missing`;
  return value.length === arity ? null : `${name} takes ${value.length} parameters, not ${arity}`;
}

/** The first way PGlite's exports differ from what db/pglite.ts and db/pglite_fsync.ts patch, or null. */
export function pgliteExportsProblem(exports: PgliteExports): Problem {
  const params = exports.defaultStartParams;
  if (!Array.isArray(params)) return "PGlite.defaultStartParams is missing";
  if (!params.includes("-F")) {
    return "PGlite.defaultStartParams has no -F (fsync off) for db/pglite_fsync.ts to remove";
  }
  const prototype = (exports.NodeFS as { prototype?: { init?: unknown } } | undefined)?.prototype;
  return functionProblem("NodeFS.prototype.init", prototype?.init, 2);
}

/**
 * The first way the options NodeFS's own `init` returns differ from what db/pglite.ts extends, or null: it
 * puts its steps before NodeFS's, which mount the folder, so their list must be there.
 */
export function nodeFsInitProblem(result: unknown): Problem {
  const preRun = isObject(result) && isObject(result.emscriptenOpts)
    ? result.emscriptenOpts.preRun
    : undefined;
  return Array.isArray(preRun) && preRun.length > 0
    ? null
    : "NodeFS's init returns no emscriptenOpts.preRun steps";
}

/**
 * The first way `nodefs` (an Emscripten module's NODEFS, before it is patched) differs from what
 * db/pglite_fsync.ts and db/pglite_file_sizes.ts patch, or null.
 */
export function nodefsProblem(nodefs: unknown): Problem {
  if (!isObject(nodefs)) return "the Emscripten module has no NODEFS";
  for (const [table, names] of [["node_ops", NODE_OPS], ["stream_ops", STREAM_OPS]] as const) {
    const ops = nodefs[table];
    if (!isObject(ops)) return `NODEFS.${table} is missing`;
    const missing = names.find((name) => typeof ops[name] !== "function");
    if (missing) return `NODEFS.${table}.${missing} is missing`;
  }
  const streamOps = nodefs.stream_ops as Record<string, unknown>;
  // The size cache answers llseek(stream, offset, whence) itself for whence SEEK_END.
  const llseek = functionProblem("NODEFS.stream_ops.llseek", streamOps.llseek, 3);
  if (llseek) return llseek;
  // The fsync is added: one already there means PGlite changed what db/pglite_fsync.ts works around.
  if ("fsync" in streamOps) return "NODEFS.stream_ops.fsync exists (db/pglite_fsync.ts adds one)";
  const tryOperation = functionProblem("NODEFS.tryFSOperation", nodefs.tryFSOperation, 1);
  if (tryOperation) return tryOperation;
  // The fsync syncs the stream's node:fs descriptor, which NODEFS's open keeps in `stream.nfd`.
  if (!/\.nfd\s*=/.test(String(streamOps.open))) {
    return "NODEFS.stream_ops.open does not set stream.nfd (db/pglite_fsync.ts syncs it)";
  }
  return null;
}

/** The version of the installed `@electric-sql/pglite`, from its package.json. */
export function installedPgliteVersion(): string {
  try {
    const file = new URL("../package.json", import.meta.resolve("@electric-sql/pglite"));
    const version = JSON.parse(Deno.readTextFileSync(file)).version;
    return typeof version === "string" ? version : "(version unknown)";
  } catch {
    return "(version unknown)";
  }
}

/** Throws PgliteShapeMismatch, one line, when there is a `problem`; `version` is asked only then. */
export function refusePgliteProblem(problem: Problem, version: () => string = installedPgliteVersion): void {
  if (problem === null) return;
  throw new PgliteShapeMismatch(
    `PGlite ${version()} is not the version db/pglite*.ts patches: ${problem}; see ${GUIDE}`,
  );
}
