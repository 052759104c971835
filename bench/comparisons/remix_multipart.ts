// The drop-in of docs/build-or-buy.md: readFilePart (io/multipart.ts) rebuilt on @remix-run/multipart-parser; bench/comparisons/multipart_parsers.ts times it, tests/multipart_library_test.ts runs our edge cases on it.
/**
 * Same signature, same errors, same limits as far as the library lets us state them. This is the drop-in the
 * service would use if the library replaced our parser; it is not used by the service.
 *
 * What the library decides and we cannot change: a part is handed over only once it is complete, with
 * its content held in memory (`part.content`, an array of chunks), so the sink receives a stream over
 * bytes that have already been buffered whole.
 */
import {
  MaxFileSizeExceededError,
  MaxTotalSizeExceededError,
  MultipartParseError,
  parseMultipartStream,
  // deno-lint-ignore no-import-prefix -- a test-only package stays out of the service's import map
} from "npm:@remix-run/multipart-parser@0.16.3";
import {
  ENVELOPE_ALLOWANCE,
  type FilePartInfo,
  NoFilePartError,
  parseBoundary,
  PhotoTooLargeError,
  type ReadFilePartOptions,
} from "@/io/multipart.ts";
import { declaredLength } from "@/io/declared_length.ts";

/**
 * The library insists on a part count; ours has none (every byte counts against the body cap instead),
 * so keep the library's default, which no upload the body cap lets through can reach with content.
 */
const MAX_PARTS = 1000;
/** Same as io/multipart.ts's MAX_PART_HEADER_BYTES (the library's default is 8 KiB). */
const MAX_HEADER_BYTES = 16 * 1024;

export async function readFilePartWithRemix<T>(
  request: Request,
  opts: ReadFilePartOptions,
  sink: (stream: ReadableStream<Uint8Array>, info: FilePartInfo) => Promise<T>,
): Promise<T> {
  const fieldName = opts.fieldName ?? "file";
  // The library's own check (`startsWith("multipart/")` and a regex for the boundary) accepts
  // multipart/mixed and an over-long boundary, so the Content-Type is judged by our parser's rule.
  const boundary = parseBoundary(request.headers.get("content-type"));
  if ((declaredLength(request) ?? 0) > opts.maxBytes + ENVELOPE_ALLOWANCE) {
    await request.body?.cancel().catch(() => {});
    throw new PhotoTooLargeError(opts.maxBytes);
  }
  const body = request.body;
  if (!body) throw new NoFilePartError("empty body");

  const parts = parseMultipartStream(body, {
    boundary,
    maxFileSize: opts.maxBytes,
    // Counts part content only (not boundaries or part headers, which maxParts × maxHeaderSize bound).
    maxTotalSize: opts.maxBytes + ENVELOPE_ALLOWANCE,
    maxHeaderSize: MAX_HEADER_BYTES,
    maxParts: MAX_PARTS,
  })[Symbol.asyncIterator]();
  const translate = (error: unknown): never => {
    if (error instanceof MaxFileSizeExceededError || error instanceof MaxTotalSizeExceededError) {
      throw new PhotoTooLargeError(opts.maxBytes);
    }
    // Part headers that are not UTF-8 surface as the TextDecoder's TypeError, not a MultipartParseError.
    if (error instanceof MultipartParseError || error instanceof TypeError) {
      throw new NoFilePartError((error as Error).message);
    }
    throw error;
  };
  try {
    while (true) {
      const next = await parts.next().catch(translate);
      if (next.done) throw new NoFilePartError();
      const part = next.value;
      let info: FilePartInfo;
      try {
        if (part.name !== fieldName) continue;
        info = { filename: part.filename, contentType: part.headers["content-type"] };
      } catch (error) {
        return translate(error);
      }
      const result = await sink(chunksAsByteStream(part.content), info);
      // Read the rest (later parts, epilogue) so the connection stays usable, as ours does; a malformed
      // tail does not undo a complete file.
      try {
        while (!(await parts.next()).done) { /* skip */ }
      } catch { /* as ours: ignored */ }
      return result;
    }
  } finally {
    // The library only releases its reader (it never cancels the source): stop the sender ourselves.
    await parts.return?.(undefined).catch(() => {});
    await body.cancel().catch(() => {}); // a no-op when it was read to the end
  }
}

/** The buffered chunks as a byte stream, so a BYOB sink (PhotoStore.stage) works as with ours. */
function chunksAsByteStream(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  let offset = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      while (i < chunks.length && offset >= chunks[i].length) [i, offset] = [i + 1, 0];
      const byob = controller.byobRequest;
      if (i >= chunks.length) {
        controller.close();
        byob?.respond(0);
        return;
      }
      const rest = chunks[i].subarray(offset);
      const view = byob?.view;
      if (byob && view) {
        const n = Math.min(rest.length, view.byteLength);
        new Uint8Array(view.buffer, view.byteOffset, n).set(rest.subarray(0, n));
        offset += n;
        byob.respond(n);
      } else {
        offset += rest.length;
        controller.enqueue(rest.slice());
      }
    },
  }, { highWaterMark: 0 });
}
