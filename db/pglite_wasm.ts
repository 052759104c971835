/**
 * PGlite's WebAssembly compiled ahead of the embedded database's open, for a quicker warm restart.
 *
 * V8 compiles a module on background threads. PGlite compiles its own when it opens, after the server's
 * modules have loaded, with the main thread waiting for it; started before they load (tasks/start_first.ts),
 * the compile runs on the second core while the main thread evaluates them, and the open instantiates the
 * module it finds ready: about 60 ms sooner to healthy, for the same CPU (docs/pglite.md "What we patch").
 * Nothing here imports PGlite, so loading this module costs a server-database process nothing.
 */

let compiling: Promise<WebAssembly.Module> | undefined;

/** Starts compiling PGlite's WebAssembly; `takeEarlyPgliteWasm` hands the module to the open. */
export function compilePgliteWasmEarly(): void {
  const file = new URL("./pglite.wasm", import.meta.resolve("@electric-sql/pglite"));
  // Read synchronously: while modules evaluate, the event loop does not turn, so an asynchronous read would
  // only start the compile after them. V8 copies the bytes and compiles on its own threads.
  compiling = WebAssembly.compile(Deno.readFileSync(file));
  compiling.catch(() => {}); // seen by the open, which then lets PGlite compile (and report) as usual
}

/**
 * The module compiled early, once: undefined when no compile was started, it was taken already, or it
 * failed (PGlite then compiles its own, and reports any fault in the file itself).
 */
export async function takeEarlyPgliteWasm(): Promise<WebAssembly.Module | undefined> {
  const taken = compiling;
  compiling = undefined;
  return await taken?.catch(() => undefined);
}
