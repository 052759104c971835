/**
 * Hooks of the TabletFlow island that tie the flow store to Preact and to the page: one store per
 * island, the guard against leaving with unsent photos, and the once-a-second tick for countdowns.
 */
import { useEffect, useReducer, useRef } from "preact/hooks";
import { EVENTS } from "./_tablet_net.ts";
import { createFlowStore, type FlowStore } from "./_tablet_store.ts";

/** The island's store (created once) and the function the store calls to re-render the island. */
export function useFlowStore(csrf: string, job: string): [FlowStore, () => void] {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const store = useRef<FlowStore>(null as unknown as FlowStore);
  store.current ??= createFlowStore(csrf, job, () => rerender(0));
  return [store.current, () => rerender(0)];
}

/**
 * Photos taken but not yet sent would be lost by leaving the page: the browser asks first, unless the
 * session is over (nothing can be sent) or the page leaves on purpose (a receipt, an idle sign-out,
 * which the returned ref or the EVENTS.leaving event says).
 */
export function useLeaveGuard(store: FlowStore, rerender: () => void): { current: boolean } {
  const leaving = useRef(false);
  useEffect(() => {
    const onSignedOut = () => {
      store.signedOut = true;
      rerender();
    };
    const onLeaving = () => (leaving.current = true);
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (!leaving.current && !store.signedOut && store.hasWork) e.preventDefault();
    };
    globalThis.addEventListener(EVENTS.signedOut, onSignedOut);
    globalThis.addEventListener(EVENTS.leaving, onLeaving);
    globalThis.addEventListener("beforeunload", onBeforeUnload);
    return () => {
      globalThis.removeEventListener(EVENTS.signedOut, onSignedOut);
      globalThis.removeEventListener(EVENTS.leaving, onLeaving);
      globalThis.removeEventListener("beforeunload", onBeforeUnload);
    };
  }, []);
  return leaving;
}

/** Countdowns ("trying again in 4 s") need a tick while something waits. */
export function useTickWhile(active: boolean, rerender: () => void): void {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(rerender, 1000);
    return () => clearInterval(timer);
  }, [active]);
}
