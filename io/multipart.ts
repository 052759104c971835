/**
 * Streaming reader for the photo upload's multipart/form-data body (D18). It finds the part named
 * `file` and hands its bytes to a sink as a stream while they arrive, so a photo is never held in
 * memory whole (`request.formData()` would buffer it), and an oversized upload is cut off as soon as
 * it crosses the limit instead of being read to the end.
 */

import { PhotoTooLargeError } from "@/io/photo_storage.ts";
import {
  ClientAbortError,
  MultipartParser,
  NoFilePartError,
  NotMultipartError,
} from "@/io/multipart_parser.ts";
import { declaredLength } from "@/io/declared_length.ts";

// Callers catch these by class; they come from the one module they call.
export { ClientAbortError, NoFilePartError, NotMultipartError, PhotoTooLargeError };

export interface FilePartInfo {
  filename?: string;
  contentType?: string;
}

export interface ReadFilePartOptions {
  /** Largest accepted file part; the whole body may be at most this plus ENVELOPE_ALLOWANCE. */
  maxBytes: number;
  /** Name of the form field holding the file; `file` per docs/protocol.md 2b. */
  fieldName?: string;
}

/** Room for boundaries, part headers and small extra fields around the file. */
export const ENVELOPE_ALLOWANCE = 64 * 1024;

/**
 * Reads `request` up to its part named `file` and calls `sink` with that part's content as a stream.
 * The promise settles with the sink's result. Errors: NotMultipartError, NoFilePartError,
 * PhotoTooLargeError (the file part is over `maxBytes`, or the body over maxBytes + 64 KiB; the request
 * body is cancelled), ClientAbortError (the body stream failed: the client went away), or whatever the
 * sink throws. Parts before the file are read and dropped. The file's stream only ends (done) once the
 * rest of the body was read and found well-formed: a sink that stores what it got until then never keeps
 * a file from a body that is then refused, and a delimiter look-alike inside the file can never end it early.
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
  if ((declaredLength(request) ?? 0) > bodyCap) {
    await request.body?.cancel().catch(() => {});
    throw new PhotoTooLargeError(opts.maxBytes);
  }
  if (!request.body) throw new NoFilePartError("empty body");

  const parser = new MultipartParser(request.body, boundary, bodyCap, opts.maxBytes);
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
      // A byte stream, so a sink with a BYOB reader (PhotoStore.stage) gets the bytes copied straight
      // into its own buffer; a default reader gets a copy of each piece. Either way the parser's read
      // buffer is free again when pull returns. highWaterMark 0: pull only when the sink asks, so a slow
      // disk slows the upload, not memory.
      const stream = new ReadableStream({
        type: "bytes",
        pull: async (controller) => {
          const byob = controller.byobRequest;
          const view = byob?.view;
          const chunk = await parser.readPartChunk(
            view ? new Uint8Array(view.buffer, view.byteOffset, view.byteLength) : undefined,
          );
          if (chunk === null) {
            await parser.drainRest(); // throws on a malformed or oversized rest: the stream errors
            controller.close();
            byob?.respond(0); // a pending BYOB read completes as done
            return;
          }
          fileBytes += chunk.length;
          if (fileBytes > opts.maxBytes) await parser.fail(new PhotoTooLargeError(opts.maxBytes));
          if (byob) byob.respond(chunk.length);
          else controller.enqueue(chunk);
        },
      }, { highWaterMark: 0 });
      try {
        return await sink(stream, info);
      } catch (error) {
        // Report our own diagnosis (too large, malformed, client gone) even if the sink wrapped it.
        throw parser.error ?? error;
      }
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
function parseHeaderValue(header: string): { value: string; params: Map<string, string> } {
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
