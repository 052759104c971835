/**
 * Streaming reader for the photo upload's multipart/form-data body (D18). It finds the part named
 * `file` and hands its bytes to a sink as a stream while they arrive, so a photo is never held in
 * memory whole (`request.formData()` would buffer it), and an oversized upload is cut off as soon as
 * it crosses the limit instead of being read to the end.
 */

import { Buffer } from "node:buffer";
import { PhotoTooLargeError } from "@/lib/storage.ts";

export { PhotoTooLargeError };

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

export interface FilePartInfo {
  filename?: string;
  contentType?: string;
}

export interface ReadFilePartOptions {
  /** Largest accepted file part; the whole body may be at most this plus ENVELOPE_ALLOWANCE. */
  maxBytes: number;
  /** Name of the form field holding the file; `file` per interface.md 2b. */
  fieldName?: string;
}

/** Room for boundaries, part headers and small extra fields around the file. */
export const ENVELOPE_ALLOWANCE = 64 * 1024;

/** Longest header block of one part we accept; real clients send a few hundred bytes. */
const MAX_PART_HEADER_BYTES = 16 * 1024;

const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");

/**
 * Reads `request` up to its part named `file` and calls `sink` with that part's content as a stream.
 * The promise settles with the sink's result. Errors: NotMultipartError, NoFilePartError,
 * PhotoTooLargeError (the file part is over `maxBytes`, or the body over maxBytes + 64 KiB; the request
 * body is cancelled), or whatever the sink throws. Parts before the file are read and dropped.
 */
export async function readFilePart<T>(
  request: Request,
  opts: ReadFilePartOptions,
  sink: (stream: ReadableStream<Uint8Array>, info: FilePartInfo) => Promise<T>,
): Promise<T> {
  const fieldName = opts.fieldName ?? "file";
  const boundary = parseBoundary(request.headers.get("content-type"));
  const bodyCap = opts.maxBytes + ENVELOPE_ALLOWANCE;

  // Refuse up front what the client already says is too big, without reading a byte.
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > bodyCap) {
    await request.body?.cancel().catch(() => {});
    throw new PhotoTooLargeError(opts.maxBytes);
  }
  if (!request.body) throw new NoFilePartError("empty body");

  const parser = new MultipartParser(request.body.getReader(), boundary, bodyCap, opts.maxBytes);
  let fileDone = false;
  try {
    let headers: Map<string, string> | null;
    while ((headers = await parser.nextPart()) !== null) {
      const disposition = parseHeaderValue(headers.get("content-disposition") ?? "");
      if (disposition.value.toLowerCase() !== "form-data" || disposition.params.get("name") !== fieldName) {
        continue; // nextPart() drains the skipped part's bytes (counted against the body cap)
      }
      const info: FilePartInfo = {
        filename: disposition.params.get("filename"),
        contentType: headers.get("content-type"),
      };
      let fileBytes = 0;
      // highWaterMark 0: pull only when the sink asks, so a slow disk slows the upload, not memory.
      const stream = new ReadableStream<Uint8Array>({
        pull: async (controller) => {
          const chunk = await parser.readPartChunk();
          if (chunk === null) {
            fileDone = true;
            controller.close();
            return;
          }
          fileBytes += chunk.length;
          if (fileBytes > opts.maxBytes) await parser.fail(new PhotoTooLargeError(opts.maxBytes));
          controller.enqueue(chunk);
        },
      }, { highWaterMark: 0 });
      let result: T;
      try {
        result = await sink(stream, info);
      } catch (error) {
        // Report our own diagnosis (too large, malformed) even if the sink wrapped it.
        throw parser.error ?? error;
      }
      if (fileDone) await parser.drainRest();
      return result;
    }
    throw new NoFilePartError();
  } finally {
    await parser.close();
  }
}

/** The boundary parameter of a multipart/form-data Content-Type, quoted or not. */
export function parseBoundary(contentType: string | null): string {
  if (!contentType) throw new NotMultipartError("no Content-Type");
  const { value, params } = parseHeaderValue(contentType);
  if (value.toLowerCase() !== "multipart/form-data") throw new NotMultipartError(`Content-Type ${value}`);
  const boundary = params.get("boundary");
  // RFC 2046: 1 to 70 characters; anything else cannot be a real boundary.
  if (!boundary || boundary.length > 70) throw new NotMultipartError("missing or invalid boundary");
  return boundary;
}

/**
 * Splits `value; a=b; c="d;e"` into its main value and lower-cased parameter names. Quoted strings may
 * contain `;` and backslash escapes. Good enough for Content-Type and Content-Disposition.
 */
export function parseHeaderValue(header: string): { value: string; params: Map<string, string> } {
  const params = new Map<string, string>();
  const semi = header.indexOf(";");
  const value = (semi === -1 ? header : header.slice(0, semi)).trim();
  let i = semi === -1 ? header.length : semi + 1;
  while (i < header.length) {
    const eq = header.indexOf("=", i);
    if (eq === -1) break;
    const name = header.slice(i, eq).trim().toLowerCase();
    let j = eq + 1;
    while (header[j] === " " || header[j] === "\t") j++;
    let paramValue = "";
    if (header[j] === '"') {
      j++;
      while (j < header.length && header[j] !== '"') {
        if (header[j] === "\\" && j + 1 < header.length) j++;
        paramValue += header[j++];
      }
      j++; // closing quote
      const next = header.indexOf(";", j);
      i = next === -1 ? header.length : next + 1;
    } else {
      const next = header.indexOf(";", j);
      paramValue = header.slice(j, next === -1 ? header.length : next).trim();
      i = next === -1 ? header.length : next + 1;
    }
    if (name && !params.has(name)) params.set(name, paramValue);
  }
  return { value, params };
}

/**
 * Incremental multipart parser over a byte reader. Keeps at most one read chunk plus a delimiter's
 * worth of bytes in memory. Works on the delimiter `CRLF--boundary`; a virtual CRLF is put in front of
 * the body so the first boundary (which has no CRLF before it) matches the same way.
 */
class MultipartParser {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #delimiter: Buffer;
  #buffer: Buffer;
  #bodyCap: number;
  #maxBytes: number;
  #bytesRead = 0;
  #sourceDone = false;
  #closed = false;
  /**
   * Where the parser stands: before the first boundary, at a part's header block, inside a part's
   * content, or after the closing boundary.
   */
  #state: "preamble" | "headers" | "content" | "end" = "preamble";
  /** First error this parser raised; the caller prefers it over what a sink made of it. */
  error: Error | null = null;

  constructor(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    boundary: string,
    bodyCap: number,
    maxBytes: number,
  ) {
    this.#reader = reader;
    this.#delimiter = Buffer.from(`\r\n--${boundary}`);
    this.#buffer = Buffer.from(CRLF);
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

  /** Next piece of the current part's content, or null at its end. */
  async readPartChunk(): Promise<Uint8Array | null> {
    return await this.#guard(async () => {
      while (this.#state === "content") {
        const chunk = await this.#readContent();
        if (chunk && chunk.length > 0) return chunk;
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

  /** After the file: read what is left (later parts, epilogue) so the connection stays usable. */
  async drainRest(): Promise<void> {
    try {
      while (await this.nextPart() !== null) { /* skip every remaining part */ }
      while (!this.#sourceDone) await this.#fill();
    } catch {
      // The file is complete; a malformed or oversized tail does not undo that.
    }
  }

  /** Cancels the source if it was not read to its end; releases it either way. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#sourceDone) await this.#reader.cancel(this.error ?? undefined).catch(() => {});
    this.#reader.releaseLock();
  }

  async #guard<R>(work: () => Promise<R>): Promise<R> {
    if (this.error) throw this.error;
    if (this.#closed) throw new NoFilePartError("reader closed");
    try {
      return await work();
    } catch (error) {
      if (error instanceof PhotoTooLargeError || error instanceof NoFilePartError) {
        // Stop the sender right away rather than when the sink gets round to it.
        await this.fail(error);
      }
      throw error;
    }
  }

  /**
   * Returns content bytes before the next delimiter (possibly none). On reaching the delimiter, consumes
   * it and moves to "headers", or to "end" when it is the closing one (followed by `--`).
   */
  async #readContent(): Promise<Uint8Array | null> {
    while (true) {
      const at = this.#buffer.indexOf(this.#delimiter);
      if (at > 0) return this.#take(at); // content first; the next call finds the delimiter at 0
      if (at === 0) {
        // Need the two bytes after the delimiter to tell a closing `--` from a part boundary.
        if (this.#buffer.length < this.#delimiter.length + 2) {
          await this.#fill();
          continue;
        }
        this.#take(this.#delimiter.length);
        const closing = this.#buffer[0] === 0x2d && this.#buffer[1] === 0x2d;
        this.#state = closing ? "end" : "headers";
        return null;
      }
      // No delimiter yet: everything except a tail that could be its beginning is content.
      const safe = this.#buffer.length - (this.#delimiter.length - 1);
      if (safe > 0) return this.#take(safe);
      await this.#fill();
    }
  }

  /** Reads the rest of the boundary line and the header block after it; leaves us at the content. */
  async #readHeaders(): Promise<Map<string, string>> {
    // Buffer now holds: [transport padding] CRLF [header lines, each ending CRLF] CRLF content...
    // Searching for CRLFCRLF from the boundary line's own CRLF also covers a part with no headers.
    let lineEnd: number;
    let end: number;
    while (true) {
      lineEnd = this.#buffer.indexOf(CRLF);
      end = lineEnd === -1 ? -1 : this.#buffer.indexOf(HEADER_END, lineEnd);
      if (end !== -1) break;
      if (this.#buffer.length > MAX_PART_HEADER_BYTES) throw new NoFilePartError("part headers too long");
      await this.#fill();
    }
    if (!/^[ \t]*$/.test(this.#buffer.subarray(0, lineEnd).toString("latin1"))) {
      throw new NoFilePartError("malformed boundary line");
    }
    const block = lineEnd === end ? "" : this.#buffer.subarray(lineEnd + 2, end).toString("utf8");
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
    return new Uint8Array(out.buffer, out.byteOffset, out.length);
  }

  async #fill(): Promise<void> {
    if (this.#sourceDone) throw new NoFilePartError("body ended before the closing boundary");
    const { done, value } = await this.#reader.read();
    if (done) {
      this.#sourceDone = true;
      throw new NoFilePartError("body ended before the closing boundary");
    }
    this.#bytesRead += value.length;
    if (this.#bytesRead > this.#bodyCap) throw new PhotoTooLargeError(this.#maxBytes);
    const incoming = Buffer.from(value.buffer, value.byteOffset, value.length);
    this.#buffer = this.#buffer.length === 0 ? incoming : Buffer.concat([this.#buffer, incoming]);
  }
}
