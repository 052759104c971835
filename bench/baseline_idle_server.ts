/**
 * The bare process of the start-up figures (bench/startup.ts): bench/baseline_search_server.ts (a bare Deno
 * process opening the same database, /healthz after `select 1`) with the service's own idle clean-up
 * (io/memory_reducer.ts after IDLE_MEMORY_SECONDS without a request), so both sides' settled memory is read
 * after the same collection and the same wait (docs/performance.md "Memory and start-up"). The reducer is
 * armed once the server listens (the static import runs first); the service's, at its start and after each
 * request, the last being a /healthz poll just before the wait begins. Run only by tasks/bench.ts.
 */
import "@/bench/baseline_search_server.ts";
import { startMemoryReducer } from "@/io/memory_reducer.ts";

const seconds = Number(Deno.env.get("IDLE_MEMORY_SECONDS") ?? "3");
if (seconds > 0) startMemoryReducer(seconds * 1000);
