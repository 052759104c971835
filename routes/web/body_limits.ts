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
import type { Context, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Config } from "@/io/config.ts";
import { declaredLength } from "@/io/declared_length.ts";
import type { AppDeps } from "@/lib/deps.ts";

/** Forms and JSON: a few KiB in practice; only the photo uploads and the CSV import take more. */
export const SMALL_BODY_LIMIT = 64 * 1024;

type Pace = Config["bodyPace"];

/**
 * The body arrived too slowly. An HTTPException, so whatever reader meets it (a multipart parser, the
 * photo storage) passes it up to the app's error handler, which answers it without logging a fault.
 */
export class BodyTooSlow extends HTTPException {
  constructor() {
    super(408, {
      res: new Response("Request body too slow.", {
        status: 408,
        // The rest of the body will never be read: the connection is not reused.
        headers: { "Content-Type": "text/plain; charset=UTF-8", "Connection": "close" },
      }),
    });
  }
}

/**
 * `body` passed through under the pace rule: each read waits at most until the next byte is overdue
 * (`timeoutMs` after the last one) or the average since the start falls under `minBytesPerSecond` (judged
 * once `timeoutMs` have passed); then the source is cancelled and the stream errors with BodyTooSlow.
 */
export function pacedBody(
  body: ReadableStream<Uint8Array>,
  pace: Pace,
  onTooSlow: () => void = () => {},
): ReadableStream<Uint8Array> {
  const start = performance.now();
  let last = start;
  let received = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      reader ??= body.getReader();
      const slowest = start + Math.max(pace.timeoutMs, (received / pace.minBytesPerSecond) * 1000);
      const due = Math.min(last + pace.timeoutMs, slowest) - performance.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const overdue = new Promise<"overdue">((resolve) =>
        timer = setTimeout(resolve, Math.max(0, due), "overdue")
      );
      try {
        const read = await Promise.race([reader.read(), overdue]);
        if (read === "overdue") {
          reader.cancel().catch(() => {});
          onTooSlow();
          return controller.error(new BodyTooSlow());
        }
        if (read.done) return controller.close();
        received += read.value.length;
        last = performance.now();
        controller.enqueue(read.value);
      } catch (error) {
        controller.error(error);
      } finally {
        clearTimeout(timer);
      }
    },
    async cancel(reason) {
      await (reader ?? body).cancel(reason);
    },
  }, { highWaterMark: 0 });
}

/** Requests whose body this module read whole under a cap (see csrfProtect). */
const buffered = new WeakSet<Request>();

/** True when `request`'s body was read whole, under a body cap, before the route ran. */
export const isBufferedBody = (request: Request): boolean => buffered.has(request);

/** Reads `stream` whole; null as soon as it holds more than `maxSize` bytes (the rest is cancelled). */
async function readAtMost(stream: ReadableStream<Uint8Array>, maxSize: number): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > maxSize) return null; // leaving the loop cancels the stream
    chunks.push(chunk);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * A declared body of `length` bytes, read natively (the fast path for the handler's many small JSON
 * posts) within the time the pace rule allows that many bytes; BodyTooSlow after that. The read left
 * pending ends when the 408's connection closes.
 */
async function readDeclared(raw: Request, length: number, pace: Pace): Promise<Uint8Array> {
  const allowedMs = Math.max(pace.timeoutMs, (length / pace.minBytesPerSecond) * 1000);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const reading = raw.bytes();
  try {
    return await Promise.race([
      reading,
      new Promise<never>((_, reject) => timer = setTimeout(() => reject(new BodyTooSlow()), allowedMs)),
    ]);
  } catch (error) {
    reading.catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
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
    const bytes = length !== null
      ? await readDeclared(raw, length, pace)
      : await readAtMost(pacedBody(raw.body, pace), maxSize);
    if (!bytes) return await tooLarge(c);
    c.req.raw = new Request(raw, { body: bytes as Uint8Array<ArrayBuffer> });
    buffered.add(c.req.raw);
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
    c.req.raw = new Request(raw, { body: paced });
    try {
      await next();
    } catch (error) {
      if (!tooSlow) throw error;
    }
    if (tooSlow) c.res = new BodyTooSlow().getResponse();
  };
}
