/**
 * A real chat webhook for tests: an HTTP server on 127.0.0.1 (a free port chosen by the OS) that
 * records every POST and answers the way a chat does when it is well, failing, throttling, slow,
 * or down. Tests exercise the real fetch, sockets and timeouts rather than a mocked fetch.
 *
 *   await using chat = startChatReceiver();
 *   await postAnnouncement(chat.url("/parts-movement"), body, opts);
 *   await chat.setMode({ kind: "throttle", retryAfter: 30 });
 *
 * Paths stand for channels: a mode can be set for one path (one channel failing, the other well).
 */

export interface ReceivedPost {
  path: string;
  /** The URL's query ("" or "?…"): tells apart senders given the same channel under different URLs. */
  search: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: unknown;
  /** The status this receiver answered with. */
  status: number;
  /** True when the answer meant "posted in the channel" (a 2xx that is not a throttle disguise). */
  accepted: boolean;
}

export type ReceiverMode =
  /** Posts the message: 200 "ok" unless told otherwise (Cliq answers 204, Teams Workflows 202). */
  | { kind: "ok"; status?: number; body?: string }
  /** A plain failure; 500 unless told otherwise. */
  | { kind: "error"; status?: number; body?: string; headers?: Record<string, string> }
  /** 429, with Retry-After when given (seconds as a number, or any string such as an HTTP-date). */
  | { kind: "throttle"; retryAfter?: number | string; body?: string }
  /** Microsoft Teams connector: 200 whose text body says the post failed with HTTP error 429. */
  | { kind: "teams_throttle" }
  /** Zoho Cliq: 400 with {"code":"request_limit_exceeded", …}. */
  | { kind: "cliq_throttle" }
  /** Posts the message, but only after `delayMs` (for timeouts), whether or not the client still waits. */
  | { kind: "slow"; delayMs: number }
  /** The listener is closed: connections are refused until another mode brings it back. */
  | { kind: "down" };

export interface ChatReceiver extends AsyncDisposable {
  readonly port: number;
  /** Every request that reached the receiver, in arrival order (whatever it was answered). */
  readonly posts: ReceivedPost[];
  /** The receiver's URL for a path (default "/hook"); paths stand for channels. */
  url(path?: string): string;
  /** Posts that were accepted (answered as posted), optionally for one path. */
  accepted(path?: string): ReceivedPost[];
  /**
   * Changes how requests are answered, for every path or only `path`. `down` is always
   * receiver-wide (it closes the listener); any other mode set while down reopens the same port.
   */
  setMode(mode: ReceiverMode, path?: string): Promise<void>;
  /** Answers the next request (to `path`, or any) with `mode`, then returns to the current mode. */
  once(mode: Exclude<ReceiverMode, { kind: "down" }>, path?: string): void;
  /** Resolves once at least `count` posts arrived; rejects after `timeoutMs` (default 5 s). */
  waitForPosts(count: number, timeoutMs?: number): Promise<ReceivedPost[]>;
  /** Stops the listener and ends pending slow answers; safe to call twice. */
  close(): Promise<void>;
}

export const TEAMS_THROTTLE_BODY =
  "Webhook message delivery failed with error: Microsoft Teams endpoint returned " +
  "HTTP error 429 with ContextId tcid=0,server=msgapi-production-eus-azsc2-4-170,cv=VGVzdA.0,MS-CV=VGVzdA.0..";
export const CLIQ_THROTTLE_BODY = JSON.stringify({
  code: "request_limit_exceeded",
  message: "You have exceeded the URL throttle limits.",
});

export function startChatReceiver(opts: { mode?: ReceiverMode } = {}): ChatReceiver {
  const posts: ReceivedPost[] = [];
  let defaultMode: ReceiverMode = opts.mode ?? { kind: "ok" };
  const pathModes = new Map<string, ReceiverMode>();
  const onceQueue: { mode: ReceiverMode; path?: string }[] = [];
  // Ends slow answers when the receiver goes down or closes, so shutdown never waits on them.
  let stopping = new AbortController();
  let server: Deno.HttpServer<Deno.NetAddr> | null = null;
  let closed = false;

  function modeFor(path: string): ReceiverMode {
    const i = onceQueue.findIndex((q) => q.path === undefined || q.path === path);
    if (i >= 0) return onceQueue.splice(i, 1)[0].mode;
    return pathModes.get(path) ?? defaultMode;
  }

  async function handler(req: Request): Promise<Response> {
    const { pathname: path, search } = new URL(req.url);
    const text = await req.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: keep the text.
    }
    const mode = modeFor(path);
    const post: ReceivedPost = {
      path,
      search,
      headers: Object.fromEntries(req.headers),
      body,
      status: 0,
      accepted: false,
    };
    posts.push(post);

    const answer = (
      status: number,
      text: string | null,
      headers: Record<string, string> = {},
      accepted = false,
    ) => {
      post.status = status;
      post.accepted = accepted;
      return new Response(status === 204 ? null : text, {
        status,
        headers: { "content-type": "text/plain; charset=utf-8", ...headers },
      });
    };

    switch (mode.kind) {
      case "ok":
        return answer(mode.status ?? 200, mode.body ?? "ok", {}, true);
      case "error":
        return answer(mode.status ?? 500, mode.body ?? "Internal Server Error", mode.headers);
      case "throttle":
        return answer(
          429,
          mode.body ?? "rate_limited",
          mode.retryAfter === undefined ? {} : { "retry-after": String(mode.retryAfter) },
        );
      case "teams_throttle":
        return answer(200, TEAMS_THROTTLE_BODY);
      case "cliq_throttle":
        return answer(400, CLIQ_THROTTLE_BODY, { "content-type": "application/json;charset=UTF-8" });
      case "slow": {
        // Like a real chat, a slow answer still posts the message even if the client gave up
        // waiting: the duplicate risk that the Idempotency-Key header exists for. Only closing
        // the receiver cuts the wait short (and then nothing was posted).
        const cutShort = await sleep(mode.delayMs, stopping.signal);
        return answer(200, "ok", {}, !cutShort);
      }
      case "down":
        // Only reachable if a request raced the listener closing.
        return answer(503, "down");
    }
  }

  function listen(port: number): Deno.HttpServer<Deno.NetAddr> {
    return Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, handler);
  }

  async function goDown(): Promise<void> {
    if (!server) return;
    stopping.abort();
    await server.shutdown();
    server = null;
    stopping = new AbortController();
  }

  async function comeUp(): Promise<void> {
    if (server || closed) return;
    // The port was ours a moment ago; the OS may take a moment to let go of it.
    for (let attempt = 0;; attempt++) {
      try {
        server = listen(port);
        return;
      } catch (err) {
        if (!(err instanceof Deno.errors.AddrInUse) || attempt >= 50) throw err;
        await sleep(20);
      }
    }
  }

  server = listen(0);
  const port = server.addr.port;

  const receiver: ChatReceiver = {
    port,
    posts,
    url: (path = "/hook") => `http://127.0.0.1:${port}${path.startsWith("/") ? path : `/${path}`}`,
    accepted: (path?: string) => posts.filter((p) => p.accepted && (path === undefined || p.path === path)),
    async setMode(mode, path) {
      if (mode.kind === "down") {
        await goDown();
        return;
      }
      if (path === undefined) {
        defaultMode = mode;
        pathModes.clear();
      } else {
        pathModes.set(path, mode);
      }
      await comeUp();
    },
    once(mode, path) {
      onceQueue.push({ mode, path });
    },
    async waitForPosts(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (posts.length < count) {
        if (Date.now() >= deadline) {
          throw new Error(`chat receiver: expected ${count} posts, got ${posts.length} in ${timeoutMs} ms`);
        }
        await sleep(10);
      }
      return posts;
    },
    async close() {
      closed = true;
      await goDown();
    },
    [Symbol.asyncDispose]() {
      return receiver.close();
    },
  };
  return receiver;
}

/** Waits `ms`; resolves true if `signal` cut the wait short. The timer never outlives the wait. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(true);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(false);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
