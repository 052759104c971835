/**
 * The first import of tasks/start.ts, so the first of the server's modules to run: on the embedded database
 * it starts compiling PGlite's WebAssembly, which then proceeds on another core while the rest load
 * (db/pglite_wasm.ts). It reads the environment itself because the configuration's module (io/config.ts,
 * zod) is among those that load later; the choice is the one io/config.ts makes (an empty variable is unset),
 * and a wrong guess costs time only: a compile nobody takes, or PGlite compiling its own.
 */
import { compilePgliteWasmEarly } from "@/db/pglite_wasm.ts";

if (!Deno.env.get("DATABASE_URL")) compilePgliteWasmEarly();
