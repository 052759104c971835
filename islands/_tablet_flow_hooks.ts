/**
 * Hooks of the TabletFlow island that tie the flow store to Preact and to the page: one store per
 * island (over the page's queue sender), the guard against leaving while a photo is still being
 * prepared, and the once-a-second tick for countdowns.
 */
import { useEffect, useReducer, useRef } from "preact/hooks";
import type { JobName } from "@/components/tablet_jobs.ts";
import { EVENTS } from "./_tablet_net.ts";
import { type Queue, queueFor } from "./_tablet_queue.ts";
import { createFlowStore, type FlowStore } from "./_tablet_store.ts";

/**
 * The island's store (created once), the page's queue sender, and the function that re-renders the
 * island. The store follows the queue: progress re-renders, a change re-reads the device.
 */
export function useFlowStore(userId: number, csrf: string, job: JobName): [FlowStore, Queue, () => void] {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const ref = useRef<{ store: FlowStore; queue: Queue } | null>(null);
  if (!ref.current) {
    const queue = queueFor(userId, csrf);
    ref.current = { queue, store: createFlowStore(queue, job, () => rerender(0)) };
  }
  const { store, queue } = ref.current;
  useEffect(() =>
    queue.subscribe((e) => {
      if (e.type === "progress") store.recompute();
      else if (e.type === "changed") void store.refresh();
    }), []);
  return [store, queue, () => rerender(0)];
}

/**
 * Everything the driver did is on the device, except a photo still being shrunk: only then does the
 * browser ask before leaving (unless the page leaves on purpose: a receipt, an idle sign-out, which the
 * returned ref or the EVENTS.leaving event says).
 */
export function useLeaveGuard(store: FlowStore): { current: boolean } {
  const leaving = useRef(false);
  useEffect(() => {
    const onLeaving = () => (leaving.current = true);
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (!leaving.current && store.busy) e.preventDefault();
    };
    globalThis.addEventListener(EVENTS.leaving, onLeaving);
    globalThis.addEventListener("beforeunload", onBeforeUnload);
    return () => {
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
