/**
 * db/pglite_shape.ts: the installed PGlite has the shape db/pglite*.ts patches, and any other shape is refused
 * with one line naming the difference. The wrong shapes are fakes handed to the check (copies of the real
 * internals with one thing changed); the real package is never altered.
 */
import assert from "node:assert/strict";
import { PGlite } from "@electric-sql/pglite";
import { NodeFS } from "@electric-sql/pglite/nodefs";
import {
  installedPgliteVersion,
  nodeFsInitProblem,
  nodefsProblem,
  pgliteExportsProblem,
  PgliteShapeMismatch,
  refusePgliteProblem,
} from "@/db/pglite_shape.ts";

type Ops = Record<string, unknown>;
interface Nodefs {
  node_ops: Ops;
  stream_ops: Ops;
  tryFSOperation: unknown;
}

/**
 * The real internals, as db/pglite.ts meets them: what NodeFS's init returns, and the Emscripten module's
 * NODEFS in a step run before NodeFS's own (before anything patches it).
 */
async function realInternals(): Promise<{ initResult: unknown; nodefs: Nodefs }> {
  let initResult: unknown, nodefs: unknown;
  class Capturing extends NodeFS {
    override async init(pg: PGlite, opts: Parameters<NodeFS["init"]>[1]) {
      const result = await super.init(pg, opts);
      initResult = result;
      const capture = (mod: { NODEFS: unknown }) => void (nodefs = mod.NODEFS);
      return {
        emscriptenOpts: {
          ...result.emscriptenOpts,
          preRun: [capture, ...result.emscriptenOpts.preRun ?? []],
        },
      };
    }
  }
  const dir = await Deno.makeTempDir();
  const db = new PGlite({ fs: new Capturing(dir) });
  try {
    await db.waitReady;
  } finally {
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
  return { initResult, nodefs: nodefs as Nodefs };
}

const { initResult, nodefs: real } = await realInternals();

/** A copy of the real NODEFS whose tables can be changed without touching the real one. */
const copy = (): Nodefs => ({ ...real, node_ops: { ...real.node_ops }, stream_ops: { ...real.stream_ops } });

/** The refusal `problem` gives, with the version fixed so the whole line can be compared. */
function refusal(problem: string | null): string | null {
  try {
    refusePgliteProblem(problem, () => "9.9.9");
    return null;
  } catch (error) {
    assert.ok(error instanceof PgliteShapeMismatch);
    return error.message;
  }
}

Deno.test("pglite shape: the installed PGlite is the shape db/pglite*.ts patches", () => {
  assert.equal(pgliteExportsProblem({ defaultStartParams: PGlite.defaultStartParams, NodeFS }), null);
  assert.equal(nodeFsInitProblem(initResult), null);
  assert.equal(nodefsProblem(real), null);
});

Deno.test("pglite shape: a refusal is one line naming the version, the difference and docs/pglite.md", () => {
  assert.equal(refusal(null), null);
  const line = refusal(nodefsProblem({ ...copy(), stream_ops: { ...real.stream_ops, llseek: undefined } }));
  assert.equal(
    line,
    "PGlite 9.9.9 is not the version db/pglite*.ts patches: NODEFS.stream_ops.llseek is missing; see docs/pglite.md",
  );
  assert.ok(!line!.includes("\n"));
});

Deno.test("pglite shape: each patched part of NODEFS in another shape is refused", () => {
  const cases: [string, (n: Nodefs) => unknown, string][] = [
    ["no NODEFS", () => undefined, "the Emscripten module has no NODEFS"],
    ["no node_ops", (n) => ({ ...n, node_ops: undefined }), "NODEFS.node_ops is missing"],
    ["an operation gone", (n) => (delete n.node_ops.rename, n), "NODEFS.node_ops.rename is missing"],
    ["write gone", (n) => (delete n.stream_ops.write, n), "NODEFS.stream_ops.write is missing"],
    [
      "llseek of another arity",
      (n) => ((n.stream_ops.llseek = (_stream: unknown, _offset: number) => 0), n),
      "NODEFS.stream_ops.llseek takes 2 parameters, not 3",
    ],
    [
      "an fsync already",
      (n) => ((n.stream_ops.fsync = () => {}), n),
      "NODEFS.stream_ops.fsync exists (db/pglite_fsync.ts adds one)",
    ],
    ["no tryFSOperation", (n) => ({ ...n, tryFSOperation: undefined }), "NODEFS.tryFSOperation is missing"],
    [
      "a descriptor under another name",
      (n) => ((n.stream_ops.open = function (stream: { fd: number }) {
        stream.fd = 3;
      }),
        n),
      "NODEFS.stream_ops.open does not set stream.nfd (db/pglite_fsync.ts syncs it)",
    ],
  ];
  for (const [name, change, problem] of cases) assert.equal(nodefsProblem(change(copy())), problem, name);
  assert.equal(nodefsProblem(real), null, "the real NODEFS was not changed by the cases");
});

Deno.test("pglite shape: PGlite's start parameters without -F, NodeFS without init, an init without steps are refused", () => {
  const params = PGlite.defaultStartParams.filter((p) => p !== "-F");
  assert.equal(
    pgliteExportsProblem({ defaultStartParams: params, NodeFS }),
    "PGlite.defaultStartParams has no -F (fsync off) for db/pglite_fsync.ts to remove",
  );
  assert.equal(
    pgliteExportsProblem({ defaultStartParams: undefined, NodeFS }),
    "PGlite.defaultStartParams is missing",
  );
  assert.equal(
    pgliteExportsProblem({ defaultStartParams: PGlite.defaultStartParams, NodeFS: class {} }),
    "NodeFS.prototype.init is missing",
  );
  assert.equal(
    nodeFsInitProblem({ emscriptenOpts: {} }),
    "NodeFS's init returns no emscriptenOpts.preRun steps",
  );
});

Deno.test("pglite shape: the version a refusal names is the installed package's, the one deno.json pins", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const pinned = String(config.imports["@electric-sql/pglite"]).split("@").at(-1);
  assert.equal(installedPgliteVersion(), pinned);
});
