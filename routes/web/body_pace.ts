/**
 * The pace rule for request bodies (config.bodyPace, docs/security.md "slow clients"), for the body limits of
 * routes/web/body_limits.ts: a body that stalls, or trickles in slower than the minimum rate once the grace
 * time is over, is cut with BodyTooSlow, answered 408 with its connection closed.
 */
import { HTTPException } from "hono/http-exception";
import type { Config } from "@/io/config.ts";
import { concatBytes } from "@/io/concat_bytes.ts";
import { ClientAbortError } from "@/io/multipart.ts";

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

/**
 * Microtask turns a read of bytes already received takes to settle (Deno.serve's body: two; one more for the
 * ClientAbortError wrapper, one to spare).
 */
const AT_ONCE_TURNS = 4;

/**
 * The read's result when it settles within AT_ONCE_TURNS microtask turns, without waiting for any event
 * (the bytes were there already), else undefined. Such a read cannot be overdue: no time passed waiting
 * for it. So a body that arrived whole, as a JSON request's does, is read with no pace timer at all: a timer
 * (Deno 2.9's global setTimeout makes a Node `Timeout`) and its clearing were the pace rule's cost on the
 * search (docs/search-path.md).
 */
async function settledAtOnce<T>(reading: Promise<T>): Promise<T | undefined> {
  let settled = false;
  reading.then(() => settled = true, () => settled = true);
  for (let turn = 0; turn < AT_ONCE_TURNS && !settled; turn++) await undefined;
  return settled ? await reading : undefined;
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
 * reads, each a Node timer object: docs/performance.md "Search path").
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
      read = await settledAtOnce(reading) ??
        await (this.#dueWhole ? this.#byDeadline(reading) : this.#byNextDue(reading));
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
 * 4 MB photo takes about 17 reads (each with its pace timer) instead of 70 (docs/performance.md "Upload
 * path").
 */
export function pacedBody(
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

/** Reads `body` whole under the pace rule; null as soon as it holds more than `maxSize` bytes. */
export async function readAtMost(
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
  return concatBytes(chunks, size);
}
