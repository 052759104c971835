/**
 * The browser side of the tablet opening with no network: registers the service worker
 * (render/assets/tablet_sw.ts, scope /tablet) and asks it to keep the job pages of the signed-in driver;
 * asks the browser to keep the site's storage under pressure (the queue holds evidence photos); and
 * tells a page the worker served from its copy how long its session has left.
 */

const WORKER_URL = "/static/tablet-sw.js";
const SCOPE = "/tablet";

/** Registers the worker once per page; a browser without service workers simply stays online-only. */
export function registerOffline(): void {
  const sw = navigator.serviceWorker;
  if (!sw) return;
  sw.register(WORKER_URL, { scope: SCOPE })
    .then(() => sw.ready)
    .then((registration) => registration.active?.postMessage({ type: "warm" }))
    .catch((error) => console.warn("offline pages unavailable:", error));
  // Without this the browser may evict the queue when the device runs low on space.
  navigator.storage?.persist?.().catch(() => {});
}

/**
 * When the session ends if nothing happens, remembered per driver across pages. On a page load the
 * server's `expiresInMs` counts from the render; for a copy the worker served offline (marked
 * `data-offline-copy` with when it was kept) that was in the past, so the later of the copy's end and
 * the last end this tablet heard of wins.
 */
export function sessionDeadline(userId: number, expiresInMs: number, pageLoad: boolean): number {
  const key = `pm-session-deadline-${userId}`;
  const copyAt = pageLoad ? Number(document.documentElement.dataset.offlineCopy) || 0 : 0;
  const heard = Number(localStorage.getItem(key)) || 0;
  const deadline = copyAt ? Math.max(copyAt + expiresInMs, heard) : Date.now() + expiresInMs;
  try {
    localStorage.setItem(key, String(deadline));
  } catch { /* storage full or off: the countdown still runs from this page */ }
  return deadline;
}
