/**
 * What a page sent, from the browser's own network events (the DevTools protocol's `Network.*`): each
 * request's start and end (the protocol's monotonic clock), its body's bytes (the `Content-Length` the
 * browser put on the wire) and whether the network answered it (a cache or a service worker does not
 * count). Bench only: bench/uplink_delivery.ts counts bytes and round trips with it.
 */
import type { CDPSession } from "@/testkit/browser.ts";

export interface SentRequest {
  url: string;
  method: string;
  start: number;
  end?: number;
  bodyBytes: number;
  fromCache: boolean;
}

export interface NetworkRecord {
  /** The requests that went to the network and finished, in start order. */
  finished(): SentRequest[];
  stop(): void;
}

type Headers = Record<string, string>;
const contentLength = (headers: Headers | undefined) => {
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (k.toLowerCase() === "content-length") return Number(v);
  }
  return undefined;
};

/** Records the session's page from now on (Network must be enabled on `cdp`). */
export function recordNetwork(cdp: CDPSession, origin: string): NetworkRecord {
  const requests = new Map<string, SentRequest>();
  /** Lengths from `…ExtraInfo` events, which may come before their request's own event. */
  const lengths = new Map<string, number>();
  let on = true;
  const handlers: [string, (e: never) => void][] = [
    [
      "Network.requestWillBeSent",
      (
        e: {
          requestId: string;
          timestamp: number;
          request: { url: string; method: string; headers: Headers; postData?: string };
        },
      ) => {
        if (!on || !e.request.url.startsWith(origin)) return;
        const prior = requests.get(e.requestId);
        const bodyBytes = lengths.get(e.requestId) ?? contentLength(e.request.headers) ?? prior?.bodyBytes ??
          0;
        requests.set(e.requestId, {
          url: e.request.url,
          method: e.request.method,
          start: prior?.start ?? e.timestamp,
          bodyBytes,
          fromCache: false,
        });
      },
    ],
    ["Network.requestWillBeSentExtraInfo", (e: { requestId: string; headers: Headers }) => {
      const length = contentLength(e.headers);
      if (!on || length === undefined) return;
      lengths.set(e.requestId, length);
      const r = requests.get(e.requestId);
      if (r) r.bodyBytes = length;
    }],
    ["Network.requestServedFromCache", (e: { requestId: string }) => {
      const r = requests.get(e.requestId);
      if (r) r.fromCache = true;
    }],
    [
      "Network.responseReceived",
      (
        e: {
          requestId: string;
          response: { fromDiskCache?: boolean; fromServiceWorker?: boolean; fromPrefetchCache?: boolean };
        },
      ) => {
        const r = requests.get(e.requestId);
        if (r && (e.response.fromDiskCache || e.response.fromServiceWorker || e.response.fromPrefetchCache)) {
          r.fromCache = true;
        }
      },
    ],
    ["Network.loadingFinished", (e: { requestId: string; timestamp: number }) => {
      const r = requests.get(e.requestId);
      if (r) r.end = e.timestamp;
    }],
    ["Network.loadingFailed", (e: { requestId: string; timestamp: number }) => {
      const r = requests.get(e.requestId);
      if (r) r.end = e.timestamp;
    }],
  ];
  for (const [name, fn] of handlers) cdp.on(name as "Network.loadingFinished", fn as never);
  return {
    finished: () =>
      [...requests.values()].filter((r) => r.end !== undefined && !r.fromCache).sort((a, b) =>
        a.start - b.start
      ),
    stop() {
      on = false;
      for (const [name, fn] of handlers) cdp.off(name as "Network.loadingFinished", fn as never);
    },
  };
}

/**
 * Round trips in a row: requests in flight together share one; a request that starts when none is in flight
 * starts the next. Parallel thumbnails cost one, uploads sent one after another one each.
 */
export function serialRoundTrips(requests: SentRequest[]): number {
  let trips = 0;
  let busyUntil = -Infinity;
  for (const r of requests) {
    if (r.start >= busyUntil) trips++;
    busyUntil = Math.max(busyUntil, r.end!);
  }
  return trips;
}
