/**
 * db/pglite_wasm.ts and tasks/start_first.ts: PGlite's WebAssembly compiled while the server's modules load
 * (warm restart). The module is handed to the open once and opens a working database; the start
 * program begins the compile first, on the embedded database only. The time it saves is measured by
 * `bench/profiles/memory.ts --ab`, never here.
 */
import assert from "node:assert/strict";
import { compilePgliteWasmEarly, takeEarlyPgliteWasm } from "@/db/pglite_wasm.ts";
import { newPGlite } from "@/db/pglite.ts";

const ROOT = new URL("../", import.meta.url).pathname;

Deno.test("pglite wasm: nothing to take before a compile; the compiled module is taken once and opens a database", async () => {
  assert.equal(await takeEarlyPgliteWasm(), undefined);
  compilePgliteWasmEarly();
  const wasm = await takeEarlyPgliteWasm();
  assert.ok(wasm instanceof WebAssembly.Module);
  assert.equal(await takeEarlyPgliteWasm(), undefined, "handed out once");
  const db = newPGlite({ wasm });
  try {
    // pg_trgm loads into the same instance: the module is PGlite's own, imports and all.
    await db.exec("create extension if not exists pg_trgm");
    const { rows } = await db.query<{ similar: boolean }>("select 'KAB123' % 'KAB124' as similar");
    assert.deepEqual(rows, [{ similar: true }]);
  } finally {
    await db.close();
  }
});

Deno.test("pglite wasm: the open uses the module it is given", async () => {
  // A module that is not PGlite's (an empty one) makes the open fail: the option is not ignored.
  const empty = new WebAssembly.Module(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
  await assert.rejects(newPGlite({ wasm: empty }).waitReady);
});

/** What a program whose first import is tasks/start_first.ts has compiled by the time its own code runs. */
async function compiledByStartFirst(databaseUrl: string): Promise<string> {
  const script = `import "@/tasks/start_first.ts";
    import { takeEarlyPgliteWasm } from "@/db/pglite_wasm.ts";
    const wasm = await takeEarlyPgliteWasm();
    console.log(wasm instanceof WebAssembly.Module ? "compiled" : "none");`;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", script],
    cwd: ROOT,
    env: { DATABASE_URL: databaseUrl, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return new TextDecoder().decode(stdout).trim();
}

Deno.test("pglite wasm: the start's first import compiles on the embedded database, not on a server's", async () => {
  assert.equal(await compiledByStartFirst(""), "compiled", "DATABASE_URL empty: embedded");
  assert.equal(await compiledByStartFirst("postgres://127.0.0.1:5432/test"), "none");
});

Deno.test("pglite wasm: tasks/start.ts imports tasks/start_first.ts before any other module", async () => {
  // Modules evaluate in the order they are imported; anything before it would run before the compile starts.
  const source = await Deno.readTextFile(`${ROOT}tasks/start.ts`);
  const imports = [...source.matchAll(/^import .*?["']([^"']+)["'];/gms)].map((m) => m[1]);
  assert.equal(imports[0], "@/tasks/start_first.ts");
  assert.ok(imports.length > 1);
});
