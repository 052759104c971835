/**
 * Gives memory back to the system once the service goes quiet: `idleMs` after the last request (start-up
 * counts as one), a single full collection of the kind V8 runs when memory runs short, which also shrinks the
 * young generation to its smallest size. Under load V8 grows the young generation so that its collections
 * stay cheap (about 10 MB committed after start-up alone, a tenth of an idle server on the PostgreSQL server)
 * and never shrinks it by itself while the process is idle; a depot's small VM should not hold that between
 * one driver's confirmation and the next. One collection per quiet spell, ~30 ms on the shared 2-core
 * machine; the next request finds a small young generation, which grows again as the load does
 * (docs/performance.md "Memory and start-up").
 */
import v8 from "node:v8";
import vm from "node:vm";

type FullCollection = (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;

let collect: FullCollection | undefined;

/**
 * V8's `gc()`, enabled at run time: the flag reaches the contexts created after it is set, so the function
 * comes from a fresh context, and the service's own global never gets a `gc`. No command-line flag, so
 * `deno task start` and every child the bench or the tests start run the same way.
 */
function fullCollection(): FullCollection {
  if (!collect) {
    v8.setFlagsFromString("--expose-gc");
    collect = vm.runInNewContext("gc") as FullCollection;
  }
  return collect;
}

export interface MemoryReducer {
  /** A request arrived: the quiet spell starts again (one clock read; the timer is set only when none is). */
  activity(): void;
  stop(): void;
}

/** Starts watching for quiet spells of `idleMs`; `onReduced` hears how long each collection took. */
export function startMemoryReducer(idleMs: number, onReduced?: (ms: number) => void): MemoryReducer {
  const gc = fullCollection();
  let last = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (delay: number) => {
    const t = setTimeout(check, delay);
    Deno.unrefTimer(t); // never what keeps the process alive
    timer = t;
  };
  const check = () => {
    timer = undefined;
    const quiet = performance.now() - last;
    if (quiet < idleMs) return arm(idleMs - quiet);
    const started = performance.now();
    gc({ type: "major", execution: "sync", flavor: "last-resort" });
    onReduced?.(performance.now() - started);
    // Not armed again until the next request: one collection per quiet spell.
  };
  arm(idleMs);
  return {
    activity() {
      last = performance.now();
      if (timer === undefined) arm(idleMs);
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
