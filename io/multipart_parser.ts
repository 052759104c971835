/**
 * The incremental multipart/form-data parser under io/multipart.ts: finds delimiters in a byte stream,
 * reads part headers and hands out part content in copies, never holding more than one read chunk plus a
 * delimiter's worth of bytes. Ours, not a library's: docs/build-or-buy.md has the measurements.
 */
import { ByteSearch } from "@/io/byte_search.ts";
import { PhotoTooLargeError } from "@/io/photo_storage.ts";

/** Content-Type is not multipart/form-data, or it carries no usable boundary. */
export class NotMultipartError extends Error {
  constructor(detail: string) {
    super(`Not a multipart/form-data upload: ${detail}`);
    this.name = "NotMultipartError";
  }
}

/** No part named `file`, or the body is not well-formed multipart (truncated, bad headers, ...). */
export class NoFilePartError extends Error {
  constructor(detail = "no part named file") {
    super(`No file part: ${detail}`);
    this.name = "NoFilePartError";
  }
}

/**
 * The request body stream failed while being read: the client went away (closed or reset its connection)
 * mid-upload. A client error, not a fault of ours; `cause` is the stream's own error.
 */
export class ClientAbortError extends Error {
  constructor(cause: unknown) {
    super("the client stopped sending the body", { cause });
    this.name = "ClientAbortError";
  }
}

/** Longest header block of one part we accept; real clients send a few hundred bytes. */
export const MAX_PART_HEADER_BYTES = 16 * 1024;

export const CRLF = new TextEncoder().encode("\r\n");
export const HEADER_END = new TextEncoder().encode("\r\n\r\n");
export const utf8 = new TextDecoder("utf-8", { ignoreBOM: true }); // like Buffer#toString: keep a BOM, replace bad bytes

/** Size of the parser's own read buffer when the body is a byte stream (as Deno.serve's bodies are). */
const READ_BUFFER_BYTES = 256 * 1024;
/** Read buffers of finished uploads, reused by the next ones (at most 4 MB kept). */
const spareReadBuffers: ArrayBuffer[] = [];
const MAX_SPARE_READ_BUFFERS = 16;

/**
 * Incremental multipart parser over a byte stream. Keeps at most one read chunk plus a delimiter's
 * worth of bytes in memory. Works on the delimiter `CRLF--boundary`; a virtual CRLF is put in front of
 * the body so the first boundary (which has no CRLF before it) matches the same way.
 *
 * When the body is a byte stream it is read with a BYOB reader into one reused buffer (kept for the next
 * upload when this one is over), so a 4 MB upload does not leave 64 chunks of garbage behind, which the
 * GC collects late: memory grew with every upload. Content leaves the parser as copies (readPartChunk),
 * so nothing outside it ever holds a view of that buffer.
 */
export class MultipartParser {
  #reader: ReadableStreamDefaultReader<Uint8Array> | ReadableStreamBYOBReader;
  #byob: boolean;
  /** BYOB mode: the reused read buffer; #buffer is then a view into it. */
  #area: Uint8Array<ArrayBuffer> | null = null;
  #delimiter: Uint8Array;
  #delimiterSearch: ByteSearch;
  /**
   * Unconsumed bytes: a view into the last chunk read (no copy). Bytes are only copied when a few bytes
   * that may start a delimiter (or an unfinished header block) are carried over to the next read.
   */
  #buffer: Uint8Array;
  /** How many bytes at the start of #buffer a search already found to be part content. */
  #contentAhead = 0;
  #bodyCap: number;
  #maxBytes: number;
  #bytesRead = 0;
  #sourceDone = false;
  #closed = false;
  /** Parser operations under way; the read buffer is only recycled when none is. */
  #active = 0;
  /**
   * Where the parser stands: before the first boundary, at a part's header block, inside a part's
   * content, or after the closing boundary.
   */
  #state: "preamble" | "headers" | "content" | "end" = "preamble";
  /** First error this parser raised; the caller prefers it over what a sink made of it. */
  error: Error | null = null;

  constructor(
    body: ReadableStream<Uint8Array>,
    boundary: string,
    bodyCap: number,
    maxBytes: number,
  ) {
    let reader: ReadableStreamDefaultReader<Uint8Array> | ReadableStreamBYOBReader;
    try {
      reader = body.getReader({ mode: "byob" });
      this.#byob = true;
    } catch {
      reader = body.getReader(); // not a byte stream (e.g. one built in JS)
      this.#byob = false;
    }
    this.#reader = reader;
    this.#delimiter = new TextEncoder().encode(`\r\n--${boundary}`);
    this.#delimiterSearch = new ByteSearch(this.#delimiter);
    this.#buffer = CRLF.slice();
    this.#bodyCap = bodyCap;
    this.#maxBytes = maxBytes;
  }

  /** Skips the rest of the current part (or the preamble) and returns the next part's headers. */
  async nextPart(): Promise<Map<string, string> | null> {
    return await this.#guard(async () => {
      while (this.#state === "preamble" || this.#state === "content") {
        await this.#readContent();
      }
      return this.#state === "end" ? null : await this.#readHeaders();
    });
  }

  /**
   * Next piece of the current part's content, or null at its end: copied into `into` (at most its
   * length; the filled start of it is returned) or, without it, as a fresh copy.
   */
  async readPartChunk(into?: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer> | null> {
    return await this.#guard(async () => {
      while (this.#state === "content") {
        const chunk = await this.#readContent(into ? into.length : Infinity);
        if (!chunk || chunk.length === 0) continue;
        if (!into) return chunk.slice();
        into.set(chunk);
        return into.subarray(0, chunk.length);
      }
      return null;
    });
  }

  /** Records `error` as the diagnosis, stops the source, and throws it. */
  async fail(error: Error): Promise<never> {
    this.error ??= error;
    await this.close();
    throw error;
  }

  /**
   * After the file: reads what is left (later parts, epilogue) so the connection stays usable. Throws
   * like any read: a malformed or oversized rest refuses the whole upload, never just gets dropped.
   */
  async drainRest(): Promise<void> {
    while (await this.nextPart() !== null) { /* skip every remaining part */ }
    await this.#guard(async () => {
      do {
        this.#buffer = this.#buffer.subarray(this.#buffer.length); // the epilogue is not kept
      } while (await this.#read());
    });
  }

  /** Cancels the source if it was not read to its end; releases it either way. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#sourceDone) await this.#reader.cancel(this.error ?? undefined).catch(() => {});
    this.#reader.releaseLock();
    const area = this.#area;
    this.#area = null;
    this.#buffer = new Uint8Array(0);
    if (
      this.#active === 0 && area?.byteLength === READ_BUFFER_BYTES &&
      spareReadBuffers.length < MAX_SPARE_READ_BUFFERS
    ) {
      spareReadBuffers.push(area.buffer);
    }
  }

  async #guard<R>(work: () => Promise<R>): Promise<R> {
    if (this.error) throw this.error;
    if (this.#closed) throw new NoFilePartError("reader closed");
    this.#active++;
    try {
      return await work();
    } catch (error) {
      if (
        error instanceof PhotoTooLargeError || error instanceof NoFilePartError ||
        error instanceof ClientAbortError
      ) {
        // Stop the sender right away rather than when the sink gets round to it.
        await this.fail(error);
      }
      throw error;
    } finally {
      this.#active--;
    }
  }

  /**
   * Returns content bytes before the next delimiter (possibly none). On reaching the delimiter, checks
   * the rest of its line BEFORE the content counts as ended (a delimiter followed by anything else is a
   * malformed body, refused: never a file cut short), consumes the delimiter and moves to "headers", or
   * to "end" when it is the closing one (followed by `--`). Bytes found to be content are remembered
   * (#contentAhead), so a reader taking less than a read's worth never has them searched twice.
   */
  async #readContent(max = Infinity): Promise<Uint8Array | null> {
    while (true) {
      if (this.#contentAhead > 0) {
        const n = Math.min(this.#contentAhead, max);
        this.#contentAhead -= n;
        return this.#take(n);
      }
      const at = this.#delimiterSearch.indexIn(this.#buffer);
      if (at > 0) { // content first; then the delimiter is at 0
        this.#contentAhead = at;
        continue;
      }
      if (at === 0) {
        const after = this.#boundaryLineAfterDelimiter();
        if (after === "more") {
          await this.#fill();
          continue;
        }
        this.#take(this.#delimiter.length);
        this.#state = after === "closing" ? "end" : "headers";
        return null;
      }
      // No delimiter yet: everything except a tail that could be its beginning is content.
      this.#contentAhead = this.#buffer.length - this.#delimiterSearch.prefixAtEnd(this.#buffer);
      if (this.#contentAhead === 0) await this.#fill();
    }
  }

  /**
   * With a delimiter at the start of the buffer, what follows it on its line (RFC 2046): `--` (the close
   * delimiter), or optional transport padding (spaces, tabs) then CRLF (a part boundary); "more" when the
   * buffer ends before that is decided. Anything else throws: the content held `CRLF--boundary` followed
   * by garbage, which no well-formed body does.
   */
  #boundaryLineAfterDelimiter(): "closing" | "part" | "more" {
    const buffer = this.#buffer;
    let i = this.#delimiter.length;
    if (buffer.length < i + 2) return "more";
    if (buffer[i] === 0x2d && buffer[i + 1] === 0x2d) return "closing";
    while (i < buffer.length && (buffer[i] === 0x20 || buffer[i] === 0x09)) i++;
    if (i - this.#delimiter.length > MAX_PART_HEADER_BYTES) {
      throw new NoFilePartError("malformed boundary line");
    }
    if (i + 2 > buffer.length) return "more";
    if (buffer[i] === 0x0d && buffer[i + 1] === 0x0a) return "part";
    throw new NoFilePartError("malformed boundary line");
  }

  /** Reads the rest of the boundary line and the header block after it; leaves us at the content. */
  async #readHeaders(): Promise<Map<string, string>> {
    // Buffer now holds (the boundary line was checked by #boundaryLineAfterDelimiter):
    // [transport padding] CRLF [header lines, each ending CRLF] CRLF content...
    // Searching for CRLFCRLF from the boundary line's own CRLF also covers a part with no headers.
    let lineEnd: number;
    let end: number;
    while (true) {
      lineEnd = CRLF_SEARCH.indexIn(this.#buffer);
      end = lineEnd === -1 ? -1 : HEADER_END_SEARCH.indexIn(this.#buffer, lineEnd);
      if (end !== -1) break;
      if (this.#buffer.length > MAX_PART_HEADER_BYTES) throw new NoFilePartError("part headers too long");
      await this.#fill();
    }
    const block = lineEnd === end ? "" : utf8.decode(this.#buffer.subarray(lineEnd + 2, end));
    this.#take(end + HEADER_END.length);
    this.#state = "content";
    const headers = new Map<string, string>();
    if (block === "") return headers;
    for (const line of block.split("\r\n")) {
      const colon = line.indexOf(":");
      if (colon <= 0) throw new NoFilePartError("malformed part header");
      const name = line.slice(0, colon).trim().toLowerCase();
      if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
    }
    return headers;
  }

  /** Removes and returns the first n buffered bytes (a view, no copy). */
  #take(n: number): Uint8Array {
    const out = this.#buffer.subarray(0, n);
    this.#buffer = this.#buffer.subarray(n);
    return out;
  }

  /** Reads more into the buffer; the body ending here is a truncated upload. */
  async #fill(): Promise<void> {
    if (!await this.#read()) throw new NoFilePartError("body ended before the closing boundary");
  }

  /** Reads more into the buffer; false at the body's end. A failing body stream is ClientAbortError. */
  async #read(): Promise<boolean> {
    if (this.#sourceDone) return false;
    if (this.#byob) return await this.#readByob();
    const { done, value } = await (this.#reader as ReadableStreamDefaultReader<Uint8Array>).read()
      .catch((error) => Promise.reject(new ClientAbortError(error)));
    if (done) {
      this.#sourceDone = true;
      return false;
    }
    this.#count(value.length);
    if (this.#buffer.length === 0) {
      this.#buffer = value;
    } else {
      // A short carry-over (a possible delimiter start, or an unfinished header block) plus the chunk.
      const joined = new Uint8Array(this.#buffer.length + value.length);
      joined.set(this.#buffer);
      joined.set(value, this.#buffer.length);
      this.#buffer = joined;
    }
    return true;
  }

  /** Moves the unconsumed bytes to the front of the read buffer and reads after them. */
  async #readByob(): Promise<boolean> {
    const keep = this.#buffer.length;
    let area = this.#area;
    if (!area) {
      const spare = spareReadBuffers.pop();
      area = spare ? new Uint8Array(spare) : new Uint8Array(READ_BUFFER_BYTES);
    }
    // Room for a good read after what is kept (header blocks are capped, so this hardly ever happens).
    if (area.length - keep < READ_BUFFER_BYTES / 4) area = new Uint8Array(keep + READ_BUFFER_BYTES);
    area.set(this.#buffer); // handles the overlap when #buffer already lives in `area`
    this.#area = null; // the read takes the buffer over (transfers it)
    const { done, value } = await (this.#reader as ReadableStreamBYOBReader).read(area.subarray(keep))
      .catch((error) => Promise.reject(new ClientAbortError(error)));
    if (done) {
      // The read hands the buffer back even at the end; keep it so it returns to the pool.
      if (value) this.#area = new Uint8Array(value.buffer);
      this.#sourceDone = true;
      return false;
    }
    this.#area = new Uint8Array(value.buffer);
    this.#buffer = this.#area.subarray(0, keep + value.byteLength);
    this.#count(value.byteLength);
    return true;
  }

  #count(n: number): void {
    this.#bytesRead += n;
    if (this.#bytesRead > this.#bodyCap) throw new PhotoTooLargeError(this.#maxBytes);
  }
}

const CRLF_SEARCH = new ByteSearch(CRLF);
const HEADER_END_SEARCH = new ByteSearch(HEADER_END);
