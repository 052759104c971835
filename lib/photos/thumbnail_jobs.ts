/**
 * Thumbnails are made on their first view (lib/photos/upload.ts photoThumbnail). Two rules keep that cheap
 * under load: requests for one photo share one job, and at most `thumbnailConcurrency` jobs run at once,
 * the rest waiting in arrival order (io/concurrency_cap.ts). A decode holds tens of MB (about 40 for a
 * 49-megapixel PNG, which libvips decodes whole; JPEG and WebP shrink while they decode), so without the cap
 * eight parallel views took the process from 169 to 478 MB (docs/performance.md "Memory and start-up").
 *
 * A request whose client goes away stops waiting; a job nobody waits for any more leaves the queue before
 * it starts, so an abandoned burst of views does not decode in the background. A job that has started
 * runs to its end: its thumbnail is stored for the next view.
 */
import type { Config } from "@/io/config.ts";
import { ConcurrencyCap } from "@/io/concurrency_cap.ts";
import type { PhotoStore } from "@/io/photo_storage.ts";

interface Job {
  key: Promise<string | null>;
  /** Requests waiting for this job now. */
  waiters: number;
  started: boolean;
  /** Takes the job out of the cap's queue (only while it has not started). */
  abandon: AbortController;
}

/** One cap per configuration: one per running service, whatever its number of sub-apps. */
const caps = new WeakMap<Config, ConcurrencyCap>();

/** The cap on thumbnail jobs of the service configured by `config` (tests read its queue). */
export function thumbnailCap(config: Config): ConcurrencyCap {
  let cap = caps.get(config);
  if (!cap) caps.set(config, cap = new ConcurrencyCap(config.thumbnailConcurrency));
  return cap;
}

/** Jobs in progress (waiting or running), per store and photo id. */
const jobsByStore = new WeakMap<PhotoStore, Map<number, Job>>();

/**
 * The thumbnail key that `make` gives for photo `id`, made within the cap and shared by every request
 * asking meanwhile. Rejects with `clientGone`'s reason when that signal aborts first.
 */
export async function sharedThumbnailJob(
  deps: { config: Config; storage: PhotoStore },
  id: number,
  make: () => Promise<string | null>,
  clientGone?: AbortSignal,
): Promise<string | null> {
  clientGone?.throwIfAborted();
  let jobs = jobsByStore.get(deps.storage);
  if (!jobs) jobsByStore.set(deps.storage, jobs = new Map());
  let job = jobs.get(id);
  if (!job) {
    const abandon = new AbortController();
    const fresh: Job = { key: Promise.resolve(null), waiters: 0, started: false, abandon };
    fresh.key = thumbnailCap(deps.config).run(() => {
      fresh.started = true;
      return make();
    }, abandon.signal).finally(() => {
      if (jobs.get(id) === fresh) jobs.delete(id);
    });
    // An abandoned job rejects with nobody left to hear it.
    fresh.key.catch(() => {});
    jobs.set(id, job = fresh);
  }
  job.waiters++;
  try {
    return await untilAborted(job.key, clientGone);
  } finally {
    if (--job.waiters === 0 && !job.started) {
      // Everyone who wanted it has gone before it started: free its place in the queue now.
      if (jobs.get(id) === job) jobs.delete(id);
      job.abandon.abort();
    }
  }
}

/** `promise`, or a rejection with `signal`'s reason if it aborts first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
