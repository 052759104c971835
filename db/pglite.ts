/**
 * The embedded database's engine (PGlite), in a module of its own: db/client.ts imports it only when it opens
 * an embedded database, so a process on a PostgreSQL server never loads it (about 13 MB resident).
 */
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { NodeFS } from "@electric-sql/pglite/nodefs";
import { type NodeFsOperations, rememberFileSizes } from "@/db/pglite_file_sizes.ts";
import { addFsync, DURABLE_START_PARAMS, type SyncableNodeFs } from "@/db/pglite_fsync.ts";
import {
  nodeFsInitProblem,
  nodefsProblem,
  pgliteExportsProblem,
  refusePgliteProblem,
} from "@/db/pglite_shape.ts";

/**
 * PGlite's buffer cache. PostgreSQL's default (128 MB, which initdb writes into postgresql.conf) is touched
 * whole when the embedded database opens, so it alone cost 128 MB of resident memory on a depot's small VM.
 * The data a depot searches is a few tens of MB and stays in the OS page cache behind this one, so a smaller
 * cache costs a read() per miss, not a disk seek (docs/performance.md).
 */
const PGLITE_SHARED_BUFFERS = "16MB";

/**
 * PGlite's file system for a data folder (what `dataDir` alone opens), with two start-up steps of its own
 * before the folder is mounted: a real fsync (db/pglite_fsync.ts), then file sizes remembered between changes
 * (db/pglite_file_sizes.ts), which wraps the operations as they are by then. Both first check that NODEFS
 * has the shape they patch (db/pglite_shape.ts); a refusal there fails the open.
 */
class DataFolderFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS["init"]>[1]) {
    const options = await super.init(pg, opts);
    refusePgliteProblem(nodeFsInitProblem(options));
    const { emscriptenOpts } = options;
    const adapt = (mod: { NODEFS: unknown }) => {
      refusePgliteProblem(nodefsProblem(mod.NODEFS));
      addFsync(mod.NODEFS as SyncableNodeFs);
      rememberFileSizes(mod.NODEFS as NodeFsOperations);
    };
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [adapt, ...emscriptenOpts.preRun ?? []] } };
  }
}

/**
 * A PGlite instance with the extensions and type parsers the service relies on, committing durably. A data
 * folder is opened through `DataFolderFS`; without one, the database lives in memory. `wasm`: PGlite's
 * WebAssembly already compiled (db/pglite_wasm.ts); without it PGlite compiles its own. Throws
 * PgliteShapeMismatch when PGlite is not the shape db/pglite*.ts patches (db/pglite_shape.ts).
 */
export function newPGlite(
  { dataDir, loadDataDir, wasm }: { dataDir?: string; loadDataDir?: Blob; wasm?: WebAssembly.Module },
): PGlite {
  refusePgliteProblem(pgliteExportsProblem({ defaultStartParams: PGlite.defaultStartParams, NodeFS }));
  return new PGlite({
    pgliteWasmModule: wasm,
    ...(dataDir === undefined ? {} : { fs: new DataFolderFS(dataDir) }),
    loadDataDir,
    // Command-line settings win over postgresql.conf, so an existing data folder gets them too.
    startParams: [...DURABLE_START_PARAMS, "-c", `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
    extensions: { pg_trgm },
    // int8 (count) and numeric arrive as numbers on both databases (see the pg parsers above).
    parsers: { 20: (v: string) => Number(v), 1700: (v: string) => Number(v) },
  });
}
