/**
 * The depot tablet's service worker (scope /tablet), bundled by render/assets/sw.ts with the list of this
 * build's files. It lets a tablet that reloads in a dead spot still open its pages:
 *
 * - Install caches every file of the build (content-hashed, so a name always means the same bytes) plus
 *   the icons and the web app manifest; if any of them fails, the install fails and the previous worker
 *   stays. A new release is a new worker script (its list changed): it installs beside the old one,
 *   then takes over, drops files no longer listed and the pages rendered by the old build.
 * - Pages under /tablet are fetched from the network first; a signed-in page that answered is kept (by
 *   path) and shown, marked as a saved copy, when the network fails or takes too long. Sign-in and
 *   sign-out (form posts through this worker) drop the kept pages first: they belong to one driver.
 * - The JSON API and photos are never cached here: the durable queue (islands/_tablet_queue*.ts) owns
 *   unsent work.
 *
 * Browser code with no imports; the types below are the few parts of the worker scope it uses (the
 * project's type check runs with the DOM library, which lacks them).
 */

/** This build's files (URLs), written in by the bundler: a new release is a new worker script. */
declare const PRECACHE: string[];

interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(r: Response | Promise<Response>): void;
}
interface WorkerScope {
  location: Location;
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  addEventListener(type: "install" | "activate" | "message", fn: (e: ExtendableEvent) => void): void;
  addEventListener(type: "fetch", fn: (e: FetchEvent) => void): void;
}

const worker = globalThis as unknown as WorkerScope;
const ASSETS = "pm-tablet-assets";
const PAGES = "pm-tablet-pages";
/** The pages a driver needs in a dead spot, fetched ahead once signed in. */
const SHELL = ["/tablet", "/tablet/deliver", "/tablet/collect", "/tablet/return"];
/** How long a page may take before the kept copy is shown instead. */
const PAGE_TIMEOUT_MS = 6000;
const FORMS = new Set(["/tablet/sign-in", "/tablet/sign-out"]);

worker.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(ASSETS).then((cache) => cache.addAll(PRECACHE)).then(() => worker.skipWaiting()),
  );
});

worker.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(ASSETS);
    const keep = new Set(PRECACHE.map((p) => new URL(p, worker.location.origin).href));
    for (const request of await cache.keys()) if (!keep.has(request.url)) await cache.delete(request);
    // Pages rendered by another build name its files: fetch them again.
    await caches.delete(PAGES);
    await worker.clients.claim();
    await warm();
  })());
});

worker.addEventListener("message", (event) => {
  if ((event as unknown as MessageEvent).data?.type === "warm") event.waitUntil(warm());
});

worker.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== worker.location.origin) return;
  if (request.method === "POST" && FORMS.has(url.pathname)) {
    event.respondWith(caches.delete(PAGES).then(() => fetch(request)).catch(() => offlinePage(false)));
  } else if (request.method === "GET" && url.pathname.startsWith("/static/")) {
    event.respondWith(fromCache(request));
  } else if (request.method === "GET" && request.mode === "navigate" && isPage(url.pathname)) {
    event.respondWith(page(request, url));
  }
});

const isPage = (path: string) =>
  (path === "/tablet" || path.startsWith("/tablet/")) && !path.startsWith("/tablet/api/");

async function fromCache(request: Request): Promise<Response> {
  // Static files are listed with a version query; pages name them without it.
  return await caches.match(request, { cacheName: ASSETS, ignoreSearch: true }) ?? await fetch(request);
}

async function page(request: Request, url: URL): Promise<Response> {
  try {
    const response = await withTimeout(fetch(request), PAGE_TIMEOUT_MS);
    if (keepable(response, url.pathname)) await keep(url.pathname, response.clone());
    return response;
  } catch {
    const kept = await caches.match(new URL(url.pathname, url.origin).href, { cacheName: PAGES });
    return kept ? await markedCopy(kept) : offlinePage(true);
  }
}

const keepable = (r: Response, path: string) =>
  r.ok && !r.redirected && r.type === "basic" && !path.startsWith("/tablet/sign-") &&
  (r.headers.get("content-type") ?? "").startsWith("text/html");

async function keep(path: string, response: Response): Promise<void> {
  const headers = new Headers(response.headers);
  headers.set("x-saved-at", String(Date.now()));
  const copy = new Response(await response.blob(), { status: 200, headers });
  await (await caches.open(PAGES)).put(new URL(path, worker.location.origin).href, copy);
}

/** The kept page, marked so the page knows it is a copy (its idle countdown starts from then). */
async function markedCopy(kept: Response): Promise<Response> {
  const savedAt = Number(kept.headers.get("x-saved-at")) || 0;
  const html = (await kept.text()).replace("<html", `<html data-offline-copy="${savedAt}"`);
  return new Response(html, { status: 200, headers: kept.headers });
}

/** Fetches the shell pages not kept yet, while signed in (a page that redirects to sign-in is not kept). */
async function warm(): Promise<void> {
  const cache = await caches.open(PAGES);
  for (const path of SHELL) {
    const href = new URL(path, worker.location.origin).href;
    if (await cache.match(href)) continue;
    try {
      const response = await fetch(href, { credentials: "same-origin", redirect: "manual" });
      if (keepable(response, path)) await keep(path, response);
    } catch {
      return; // offline: try again on the next page
    }
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("timeout")), ms);
    p.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/**
 * The answer with no network and no kept copy: a page never opened here tries again by itself every few
 * seconds (`page`); a sign-in or sign-out form cannot be sent again that way.
 */
function offlinePage(page: boolean): Response {
  const html = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ` +
    `content="width=device-width, initial-scale=1">${page ? '<meta http-equiv="refresh" content="5">' : ""}` +
    `<title>No connection · Depot tablet</title></head>` +
    `<body style="font:20px/1.5 system-ui,sans-serif;margin:2rem;color:#020617"><h1>No connection</h1><p>` +
    (page
      ? "This page has not been opened on this tablet yet, so it needs the network; it opens by itself when the network is back. "
      : "Signing in and out needs the network. Try again when the tablet is online. ") +
    `Work you saved on this tablet is kept and is sent when you are back online.</p>` +
    `<p><a href="/tablet">Back to the jobs</a></p></body></html>`;
  return new Response(html, {
    status: 503,
    headers: { "content-type": "text/html; charset=utf-8" },
  });
}
