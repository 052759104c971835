/**
 * Standalone profile: where the embedded database's open goes (WebAssembly instantiation, PostgreSQL start, first
 * queries). `deno run -A bench/profile_trace.ts <data dir>/db`
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
const { PGlite } = await import("@electric-sql/pglite");
const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
console.log(at(), "imported");
const db = new PGlite({ dataDir: Deno.args[0], extensions: { pg_trgm } });
await db.waitReady;
console.log(at(), "ready");
await db.query("select count(*) from claims");
console.log(at(), "first query");
await db.query("select name from kysely_migration");
console.log(at(), "second query");
await db.close();
