/**
 * Body limits, attached by each sub-app to the routes it serves (routes/hq/mod.ts, routes/tablet/mod.ts,
 * routes/api/*): a route gets its limit by being mounted, and tests/body_limits_test.ts proves every POST
 * route of the app has one. Two kinds:
 * - `bufferedBodies`: forms and JSON, read whole (at most the cap) before anything else looks at them;
 *   the buffered request is marked, so the cross-site check may read a form field from it and from
 *   nothing else (routes/web/session.ts csrfProtect);
 * - `limitStreamedBody`: photos, streamed to storage by the route's own reader under the same cap.
 * Both read under the pace rule (config.bodyPace): a body that stalls, or trickles in slower than the
 * minimum rate, is refused with 408 and its connection closed (docs/security.md "slow clients").
 */
import type { Context, HonoRequest, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Config } from "@/io/config.ts";
import { declaredLength } from "@/io/declared_length.ts";
import { ClientAbortError } from "@/io/multipart.ts";
import type { AppDeps } from "@/lib/deps.ts";

/** Forms and JSON: a few KiB in practice; only the photo uploads and the CSV import take more. */
export const SMALL_BODY_LIMIT = 64 * 1024;

type Pace = Config["bodyPace"];

const TOO_SLOW = "Request body too slow.";
/** What the service log shows for each slow client cut off (Deno logs the error that drops it). */
const DROPPED = "Request body too slow: answered 408 and closed the connection.";

/**
 * The 408 answer: its message, then its body errors, which makes Deno drop the connection. Deno.serve has
 * no other way to close a connection whose request body is unfinished: with `Connection: close` alone it
 * keeps reading the trickle until the client is done (tests/slow_body_test.ts shows both). Deno logs the
 * error as one line (DROPPED, no stack).
 */
function tooSlowAnswer(): Response {
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(Object.assign(new Error(DROPPED), { stack: DROPPED }));
      sent = true;
      controller.enqueue(new TextEncoder().encode(TOO_SLOW));
    },
  });
  return new Response(body, {
    status: 408,
    headers: { "Content-Type": "text/plain; charset=UTF-8", "Connection": "close" },
  });
}

/**
 * The body arrived too slowly. An HTTPException, so whatever reader meets it (a multipart parser, the
 * photo storage) passes it up to the app's error handler, which answers it without logging a fault.
 */
export class BodyTooSlow extends HTTPException {
  constructor() {
    super(408, { res: tooSlowAnswer() });
  }
}

/** A body's reader: BYOB when the body is a byte stream (Deno.serve's are), else a default one. */
type BodyReader = ReadableStreamBYOBReader | ReadableStreamDefaultReader<Uint8Array>;

/**
 * Reads a request body under the pace rule: each read waits at most until the next byte is overdue
 * (`timeoutMs` after the last one) or the average since the start falls under `minBytesPerSecond` (judged
 * once `timeoutMs` have passed); then it throws BodyTooSlow, with the source released.
 *
 * A body declared no longer than the grace time's bytes (`minBytesPerSecond` × `timeoutMs`) is due whole
 * `timeoutMs` after the start: that is what the rule above gives each of its reads (its average is judged
 * only once the grace time is over, when it must be complete, and no byte comes before the start). One
 * timer then serves all its reads, instead of a timer started and cleared for each (a JSON body's two
 * reads, each a Node timer object: issue 14, search path).
 */
class PacedReader {
  #start = performance.now();
  #last = this.#start;
  #received = 0;
  /** The whole body's deadline, for a body declared short enough (see above); set on its first read. */
  #deadline?: { overdue: Promise<"overdue">; timer: ReturnType<typeof setTimeout> };
  readonly #dueWhole: boolean;

  constructor(readonly reader: BodyReader, readonly pace: Pace, declaredLength: number | null = null) {
    this.#dueWhole = declaredLength !== null &&
      declaredLength <= pace.minBytesPerSecond * pace.timeoutMs / 1000;
  }

  /** The next bytes: read into `into` (whose buffer the read takes over) with a BYOB reader. */
  async read(into?: Uint8Array<ArrayBuffer>): Promise<ReadableStreamReadResult<Uint8Array>> {
    // A body stream that fails is the client gone mid-body (connection reset, aborted upload): a client
    // error, answered 400 and logged in one line by main.ts, never a fault with a stack.
    const reading =
      (this.reader instanceof ReadableStreamBYOBReader ? this.reader.read(into!) : this.reader.read())
        .catch((error) => Promise.reject(new ClientAbortError(error)));
    let read;
    try {
      read = await (this.#dueWhole ? this.#byDeadline(reading) : this.#byNextDue(reading));
    } catch (error) {
      this.stop();
      throw error;
    }
    if (read === "overdue") {
      await this.#release(reading);
      throw new BodyTooSlow();
    }
    if (read.done) this.stop();
    else if (!this.#dueWhole) {
      this.#received += read.value.length;
      this.#last = performance.now();
    }
    return read;
  }

  /** Done with the body before its end (the caller cancels it): its deadline timer, if any, is cleared. */
  stop(): void {
    clearTimeout(this.#deadline?.timer);
  }

  #byDeadline<T>(reading: Promise<T>): Promise<T | "overdue"> {
    if (!this.#deadline) {
      let timer!: ReturnType<typeof setTimeout>;
      const overdue = new Promise<"overdue">((resolve) => {
        const due = this.#start + this.pace.timeoutMs - performance.now();
        timer = setTimeout(resolve, Math.max(0, due), "overdue");
      });
      this.#deadline = { overdue, timer };
    }
    return Promise.race([reading, this.#deadline.overdue]);
  }

  #byNextDue<T>(reading: Promise<T>): Promise<T | "overdue"> {
    const { timeoutMs, minBytesPerSecond } = this.pace;
    const slowest = this.#start + Math.max(timeoutMs, (this.#received / minBytesPerSecond) * 1000);
    const due = Math.min(this.#last + timeoutMs, slowest) - performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    return Promise.race([
      reading,
      new Promise<"overdue">((resolve) => timer = setTimeout(resolve, Math.max(0, due), "overdue")),
    ]).finally(() => clearTimeout(timer));
  }

  /**
   * Cancels the source once its pending read settled, waiting at most `timeoutMs` for it (a trickling
   * client's next bytes): Deno drops the 408's connection only when no read of the request body is in
   * flight as it answers; otherwise the connection stays open, unread, until the client leaves (a client
   * gone silent altogether is the reverse proxy's to cut: docs/security.md).
   */
  async #release(reading: Promise<unknown>): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settled = await Promise.race([
      reading.then(() => true, () => true),
      new Promise<false>((resolve) => timer = setTimeout(resolve, this.pace.timeoutMs, false)),
    ]);
    clearTimeout(timer);
    if (settled) await this.reader.cancel().catch(() => {});
  }
}

/** What a default reader's read of a paced body gets at most (the size of Deno's own body chunks). */
const DEFAULT_READ_BYTES = 64 * 1024;

/**
 * `body` as a byte stream read under the pace rule (for the streaming readers); `onTooSlow` when it is cut.
 * A BYOB read of it reads the source straight into the reader's buffer: Deno then fills it as far as the
 * socket has bytes (256 KiB for the multipart parser) where a default read gets at most 64 KiB, so a
 * 4 MB photo takes about 17 reads (each with its pace timer) instead of 70 (issue 14, upload path).
 */
function pacedBody(
  body: ReadableStream<Uint8Array>,
  pace: Pace,
  onTooSlow: () => void,
): ReadableStream<Uint8Array> {
  let paced: PacedReader | undefined;
  /** With a source that is not a byte stream: the part of its last chunk that did not fit the last read. */
  let rest: Uint8Array | undefined;
  const readerOf = (): BodyReader => {
    try {
      return body.getReader({ mode: "byob" });
    } catch {
      return body.getReader(); // not a byte stream (e.g. one built in JS)
    }
  };
  return new ReadableStream({
    type: "bytes",
    autoAllocateChunkSize: DEFAULT_READ_BYTES, // so every read, BYOB or not, comes with a buffer to fill
    async pull(controller: ReadableByteStreamController) {
      const request = controller.byobRequest!;
      const view = request.view!;
      paced ??= new PacedReader(readerOf(), pace);
      try {
        if (paced.reader instanceof ReadableStreamBYOBReader) {
          const read = await paced.read(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
          // The read took the buffer over: hand it back, filled (or empty at the end).
          if (read.done) controller.close();
          if (read.value) request.respondWithNewView(read.value as Uint8Array<ArrayBuffer>);
          return;
        }
        let chunk = rest;
        rest = undefined;
        while (!chunk?.length) { // a source may hand out empty chunks; a read must get a byte or the end
          const read = await paced.read();
          if (read.done) {
            controller.close();
            request.respond(0);
            return;
          }
          chunk = read.value;
        }
        const n = Math.min(chunk.length, view.byteLength);
        new Uint8Array(view.buffer, view.byteOffset, n).set(chunk.subarray(0, n));
        if (n < chunk.length) rest = chunk.subarray(n);
        request.respond(n);
      } catch (error) {
        if (error instanceof BodyTooSlow) onTooSlow();
        controller.error(error);
      }
    },
    async cancel(reason) {
      await (paced?.reader ?? body).cancel(reason);
    },
  }, { highWaterMark: 0 });
}

/** Requests whose body this module read whole under a cap (see csrfProtect). */
const buffered = new WeakSet<Request>();

/** True when `request`'s body was read whole, under a body cap, before the route ran. */
export const isBufferedBody = (request: Request): boolean => buffered.has(request);

declare module "hono" {
  interface ContextVariableMap {
    /**
     * The bytes `bufferedBodies` read. A context variable, not a WeakMap keyed by the request: V8's young
     * generation collections keep a WeakMap's values alive, so every body would be copied into the old
     * generation and freed only by a full collection (issue 14).
     */
    bufferedBody: Uint8Array;
  }
}

/**
 * The body `bufferedBodies` read for this request, straight from memory: the mobile handler parses it
 * without `c.req.raw`, so the request rebuilt around it is never made (see `rebuiltLazily`). Undefined
 * when the request had no body.
 */
export const bufferedBody = (c: Context): Uint8Array | undefined => c.get("bufferedBody");

const BUILD = Symbol("build");
const BUILT = Symbol("built");
type Rebuilt = HonoRequest & { [BUILD]: () => Request; [BUILT]?: Request };

/**
 * The one accessor pair of every rebuilt `raw`, its state in the request's own (symbol) properties. An
 * accessor made of new closures for each request gave each HonoRequest a hidden class of its own; V8 keeps
 * hidden classes in the old generation, so through them every request's raw Request, body and headers
 * survived young-generation collections and were copied into the old generation (issue 14: about 2 KB of
 * every search's garbage, left for the full collections).
 */
const REBUILT_RAW: PropertyDescriptor = {
  configurable: true,
  enumerable: true,
  get(this: Rebuilt): Request {
    return this[BUILT] ??= this[BUILD]();
  },
  set(this: Rebuilt, request: Request) {
    this[BUILT] = request;
  },
};

/**
 * Makes `c.req.raw` the Request that `build` returns, built on first use. Building one costs more than
 * parsing the handler's JSON (its URL parsed again, its headers copied: ~70 µs a search on the shared
 * 2-core machine, issue 14); the handler reads `bufferedBody` instead and never pays it, while the routes
 * and guards that read `c.req.raw` (forms, csrfProtect) get the same Request as before.
 */
function rebuiltLazily(req: HonoRequest, build: () => Request): void {
  (req as Rebuilt)[BUILD] = build;
  Object.defineProperty(req, "raw", REBUILT_RAW);
}

/** Reads `body` whole under the pace rule; null as soon as it holds more than `maxSize` bytes. */
async function readAtMost(
  body: ReadableStream<Uint8Array>,
  pace: Pace,
  maxSize: number,
  declaredLength: number | null,
): Promise<Uint8Array | null> {
  const paced = new PacedReader(body.getReader(), pace, declaredLength);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await paced.read(); !read.done; read = await paced.read()) {
    size += read.value.length;
    if (size > maxSize) {
      paced.stop();
      await paced.reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(read.value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * A form or JSON body of at most `maxSize` bytes, read whole (under the pace rule) before the route and
 * everything after this middleware: a declared length over the cap is refused unread, an undeclared one
 * as soon as the count passes it; `tooLarge` answers 413. The route then reads the body from memory.
 */
export function bufferedBodies(
  deps: Pick<AppDeps, "config">,
  maxSize: number,
  tooLarge: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  const pace = deps.config.bodyPace;
  return async (c, next) => {
    const raw = c.req.raw;
    const length = declaredLength(raw);
    if (length !== null && length > maxSize) {
      await raw.body?.cancel().catch(() => {});
      return await tooLarge(c);
    }
    if (!raw.body) return await next();
    const bytes = await readAtMost(raw.body, pace, maxSize, length);
    if (!bytes) return await tooLarge(c);
    c.set("bufferedBody", bytes);
    // Built from the parts the routes read, not from `raw` itself: copying a Request copies its abort signal,
    // which makes Deno create that signal and a DOMException for it on every answer (issue 14, search path).
    rebuiltLazily(c.req, () => {
      const request = new Request(raw.url, {
        method: raw.method,
        headers: raw.headers,
        body: bytes as Uint8Array<ArrayBuffer>,
      });
      buffered.add(request);
      return request;
    });
    await next();
  };
}

/** Forms and JSON of at most SMALL_BODY_LIMIT, else 413 with `message` as text. */
export const smallBodies = (deps: Pick<AppDeps, "config">, message: string): MiddlewareHandler =>
  bufferedBodies(deps, SMALL_BODY_LIMIT, (c) => c.text(message, 413));

/**
 * For streamed bodies (photos): a declared Content-Length over `maxSize` is refused before the route runs;
 * an undeclared body is counted by the route's own streaming reader at the same cap (io/multipart.ts,
 * io/photo_storage.ts), which reads it under the pace rule. `refuse` throws or answers the route's own 413.
 * A body cut for slowness answers 408 whatever the reader made of the error.
 */
export function limitStreamedBody(
  deps: Pick<AppDeps, "config">,
  maxSize: number,
  refuse: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  return async (c, next) => {
    const raw = c.req.raw;
    if ((declaredLength(raw) ?? 0) > maxSize) {
      await raw.body?.cancel().catch(() => {});
      return await refuse(c);
    }
    if (!raw.body) return await next();
    let tooSlow = false;
    const paced = pacedBody(raw.body, deps.config.bodyPace, () => tooSlow = true);
    // Rebuilt from its parts, not copied from `raw` (see bufferedBodies: copying creates the abort signal).
    c.req.raw = new Request(raw.url, { method: raw.method, headers: raw.headers, body: paced });
    try {
      await next();
    } catch (error) {
      if (!tooSlow) throw error;
    }
    if (tooSlow) c.res = new BodyTooSlow().getResponse();
  };
}
