// Question: where does the embedded database's open go (WebAssembly compile and instantiation, PostgreSQL's start, the first queries)? Run: deno run -A bench/profiles/pglite_open.ts <data dir>/db
/**
 * The open the service makes (db/pglite.ts `newPGlite`, here without the module compiled ahead by
 * db/pglite_wasm.ts), with every WebAssembly compile and instantiation timed (docs/performance.md "Memory
 * and start-up").
 */
const t0 = performance.now();
const at = () => (performance.now() - t0).toFixed(0).padStart(5);
for (const name of ["compile", "instantiate", "compileStreaming", "instantiateStreaming"] as const) {
  // deno-lint-ignore no-explicit-any
  const orig = (WebAssembly as any)[name];
  // deno-lint-ignore no-explicit-any
  (WebAssembly as any)[name] = async (...args: any[]) => {
    const s = performance.now();
    console.log(at(), name, "start", args[0]?.byteLength ?? args[0]?.constructor?.name);
    const r = await orig.apply(WebAssembly, args);
    console.log(at(), name, "done in", (performance.now() - s).toFixed(0));
    return r;
  };
}
const { newPGlite } = await import("@/db/pglite.ts");
console.log(at(), "imported");
const db = newPGlite({ dataDir: Deno.args[0] });
await db.waitReady;
console.log(at(), "ready");
await db.query("select count(*) from claims");
console.log(at(), "first query");
await db.query("select name from kysely_migration");
console.log(at(), "second query");
await db.close();
