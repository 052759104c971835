/**
 * The cases of multipart_upload_test.ts and fuzz_upload_test.ts run through @remix-run/multipart-parser
 * (via bench/comparisons/remix_multipart.ts, the drop-in the service would use) next to our parser, asserting what
 * each does. Where the library differs from ours, the test pins the library's behaviour and says what ours
 * does; docs/build-or-buy.md sums the differences up. If a library upgrade changes one, this test says so.
 */
import assert from "node:assert/strict";
import fc from "@/tests/helpers/fast_check.ts";
import { join } from "node:path";
import {
  ENVELOPE_ALLOWANCE,
  type FilePartInfo,
  NoFilePartError,
  NotMultipartError,
  PhotoTooLargeError,
  readFilePart,
} from "@/io/multipart.ts";
import { EmptyPhotoError } from "@/io/photo_storage.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { readFilePartWithRemix } from "@/bench/comparisons/remix_multipart.ts";
import { jpegPhoto, photoForm } from "@/testkit/photos.ts";
import {
  concat,
  enc,
  fieldPart,
  filePart,
  hugeUpload,
  multipart,
  plantNearDelimiter,
  source,
} from "@/tests/helpers/multipart.ts";

type Reader = typeof readFilePart;
const PARSERS: [string, Reader][] = [["ours", readFilePart], ["remix", readFilePartWithRemix]];
const remix: Reader = readFilePartWithRemix;

const BOUNDARY = "----PartsMovementBoundary7MA4YWxk";
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

const request = (body: BodyInit, type = TYPE, headers: Record<string, string> = {}) =>
  new Request("http://localhost/upload", {
    method: "POST",
    body,
    headers: { "content-type": type, ...headers },
  });

async function collect(stream: ReadableStream<Uint8Array>, info: FilePartInfo) {
  return { bytes: new Uint8Array(await new Response(stream).arrayBuffer()), info };
}

/** Same traps as multipart_upload_test.ts: CRLFs, dashes, near-boundaries, a CR before the delimiter. */
function trickyBinary(): Uint8Array {
  const random = new Uint8Array(300);
  for (let i = 0; i < random.length; i++) random[i] = (i * 73 + 11) & 0xff;
  return concat(
    new Uint8Array([0xff, 0xd8, 0xff, 0xe0]),
    enc("\r\n\r\n--\r\n-"),
    enc(`\r\n--${BOUNDARY.slice(0, -1)}`),
    random,
    enc(`--${BOUNDARY}`),
    enc(`\r\n-${BOUNDARY}`),
    enc("\r\n--"),
    new Uint8Array([0, 13, 10, 13, 13, 10, 10, 0]),
    enc("\r"),
  );
}

Deno.test("multipart library: tricky binary split at every chunk position and size comes out identical", async () => {
  const content = trickyBinary();
  const body = multipart(BOUNDARY, [fieldPart("note", "n"), filePart(content), fieldPart("after", "x")], {
    epilogue: "epilogue",
  });
  for (const [name, read] of PARSERS) {
    for (let split = 1; split <= body.length; split++) {
      const { stream, stats } = source(body, [split, body.length]);
      const got = await read(request(stream), { maxBytes: 10_000 }, collect);
      assert.deepEqual(got.bytes, content, `${name}: split at ${split}`);
      assert.equal(stats.pulled, body.length, `${name}: read to the end`);
    }
    for (const sizes of [[1], [2], [3], [5, 1], [7, 13, 1], [64]]) {
      const got = await read(request(source(body, sizes).stream), { maxBytes: 10_000 }, collect);
      assert.deepEqual(got.bytes, content, `${name}: chunk sizes ${sizes}`);
    }
  }
});

Deno.test("multipart library: a preamble is refused by the library (ours skips it, RFC 2046)", async () => {
  const body = multipart(BOUNDARY, [filePart(enc("data"))], { preamble: "This is the preamble." });
  assert.deepEqual((await readFilePart(request(body), { maxBytes: 100 }, collect)).bytes, enc("data"));
  await assert.rejects(remix(request(body), { maxBytes: 100 }, collect), NoFilePartError);
});

Deno.test("multipart library: a 3 MB file with planted near-delimiters comes out whole", async () => {
  const content = new Uint8Array(3_000_000);
  for (let i = 0; i < content.length; i += 65536) crypto.getRandomValues(content.subarray(i, i + 65536));
  // Each followed by a byte that cannot complete the delimiter: a random one would, once in 256.
  const near = enc(`\r\n--${BOUNDARY.slice(0, -1)}`);
  for (const at of [65_530, 262_140, 262_144 - near.length + 3, 1_000_000]) {
    plantNearDelimiter(content, BOUNDARY, at);
  }
  const body = multipart(BOUNDARY, [filePart(content)]);
  for (const [name, read] of PARSERS) {
    for (const sizes of [[65_536], [300_000], [1_000, 250_000]]) {
      const got = await read(request(source(body, sizes).stream), { maxBytes: 4e6 }, collect);
      assert.ok(got.bytes.length === content.length && got.bytes.every((b, i) => b === content[i]), name);
    }
  }
});

Deno.test("multipart library: a FormData body (as fetch sends it) and odd boundaries are read", async () => {
  const photo = await jpegPhoto();
  for (const [name, read] of PARSERS) {
    const built = new Request("http://localhost/upload", {
      method: "POST",
      body: photoForm(photo, "wheel arch.jpg"),
    });
    const got = await read(built, { maxBytes: 1_000_000 }, collect);
    assert.deepEqual(got.bytes, photo, name);
    assert.deepEqual(got.info, { filename: "wheel arch.jpg", contentType: "image/jpeg" }, name);
    for (
      const [boundary, header] of [
        ["simple", "multipart/form-data; boundary=simple"],
        ["a:b=c d", 'Multipart/Form-Data; charset=utf-8; boundary="a:b=c d"'],
        ["x", "multipart/form-data;boundary=x"],
      ]
    ) {
      const body = enc(
        `--${boundary}\r\n\r\nanon\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"\r\n\r\ndata` +
          `\r\n--${boundary}--\r\n`,
      );
      assert.deepEqual(
        (await read(request(body, header), { maxBytes: 100 }, collect)).bytes,
        enc("data"),
        header,
      );
    }
  }
});

Deno.test("multipart library: not multipart/form-data, no file part, malformed bodies", async () => {
  for (const [name, read] of PARSERS) {
    for (
      const type of ["application/json", "multipart/mixed; boundary=x", "multipart/form-data", "text/plain"]
    ) {
      await assert.rejects(read(request("{}", type), { maxBytes: 100 }, collect), NotMultipartError, name);
    }
    const noFile = multipart(BOUNDARY, [fieldPart("photo", "x"), fieldPart("files", "y")]);
    await assert.rejects(read(request(noFile), { maxBytes: 100 }, collect), NoFilePartError, name);
    const full = multipart(BOUNDARY, [filePart(enc("0123456789".repeat(100)))]);
    const refusedByBoth = {
      "no boundary at all": enc("just some bytes"),
      "cut off inside the file": full.subarray(0, full.length - 200),
      "no closing boundary": full.subarray(0, full.length - `--${BOUNDARY}--\r\n`.length),
      "headers never end": enc(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"\r\n`),
      "LF instead of CRLF": enc(
        `--${BOUNDARY}\nContent-Disposition: form-data; name="file"\n\nx\n--${BOUNDARY}--`,
      ),
    };
    for (const [what, body] of Object.entries(refusedByBoth)) {
      await assert.rejects(
        read(request(body), { maxBytes: 10_000 }, collect),
        NoFilePartError,
        `${name}: ${what}`,
      );
    }
  }
  // Malformed bodies ours refuses and the library accepts: it skips two bytes after a boundary whatever
  // they are, and drops header lines without a colon.
  const lenient = {
    "header without colon": enc(
      `--${BOUNDARY}\r\nnonsense\r\nContent-Disposition: form-data; name="file"\r\n\r\nx\r\n--${BOUNDARY}--`,
    ),
    "garbage after boundary": enc(
      `--${BOUNDARY}xyz\r\nContent-Disposition: form-data; name="file"\r\n\r\nx\r\n--${BOUNDARY}--`,
    ),
  };
  for (const [what, body] of Object.entries(lenient)) {
    await assert.rejects(readFilePart(request(body), { maxBytes: 100 }, collect), NoFilePartError, what);
    assert.deepEqual((await remix(request(body), { maxBytes: 100 }, collect)).bytes, enc("x"), what);
  }
  // A part header that is not UTF-8 (a Latin-1 filename): ours decodes it with replacement characters,
  // the library's strict decoder refuses the upload.
  const latin1 = concat(
    enc(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="caf`),
    new Uint8Array([0xe9]),
    enc(`.jpg"\r\n\r\nx\r\n--${BOUNDARY}--`),
  );
  assert.equal(
    (await readFilePart(request(latin1), { maxBytes: 100 }, collect)).info.filename,
    "caf\uFFFD.jpg",
  );
  await assert.rejects(remix(request(latin1), { maxBytes: 100 }, collect), NoFilePartError);
});

Deno.test("multipart library: an empty file part reaches storage as EmptyPhotoError", async () => {
  const dir = await Deno.makeTempDir({ prefix: "multipart_library_test_" });
  try {
    const storage = new DiskPhotoStore(join(dir, "photos"));
    for (const [name, read] of PARSERS) {
      await assert.rejects(
        read(
          request(multipart(BOUNDARY, [filePart(new Uint8Array(0))])),
          { maxBytes: 1000 },
          (s) => storage.stage(s, { maxBytes: 1000 }),
        ),
        EmptyPhotoError,
        name,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("multipart library: an upload over the cap is cut off just past it (both stop reading)", async () => {
  for (const [name, read] of PARSERS) {
    const maxBytes = 1_000_000;
    const chunk = 64 * 1024;
    const { stream, stats } = hugeUpload(BOUNDARY, 50_000_000, chunk);
    await assert.rejects(read(request(stream), { maxBytes }, collect), PhotoTooLargeError, name);
    assert.equal(stats.cancelled, true, name);
    assert.ok(stats.pulled <= maxBytes + ENVELOPE_ALLOWANCE + 2 * chunk, `${name}: pulled ${stats.pulled}`);

    const small = hugeUpload(BOUNDARY, 5_000_000, 10_000);
    await assert.rejects(read(request(small.stream), { maxBytes: 100_000 }, collect), PhotoTooLargeError);
    assert.ok(small.stats.pulled <= 100_000 + 3 * 10_000, `${name}: pulled ${small.stats.pulled}`);

    const exact = hugeUpload(BOUNDARY, 100_000, 7_000);
    assert.equal((await read(request(exact.stream), { maxBytes: 100_000 }, collect)).bytes.length, 100_000);
  }
});

Deno.test("multipart library: big other parts count against the body cap", async () => {
  const body = multipart(BOUNDARY, [fieldPart("junk", "j".repeat(2_000_000)), filePart(enc("tiny"))]);
  for (const [name, read] of PARSERS) {
    const { stream, stats } = source(body, [16 * 1024]);
    await assert.rejects(read(request(stream), { maxBytes: 100_000 }, collect), PhotoTooLargeError, name);
    assert.ok(
      stats.pulled <= 100_000 + ENVELOPE_ALLOWANCE + 2 * 16 * 1024,
      `${name}: pulled ${stats.pulled}`,
    );
  }
});

Deno.test("multipart library: the library hands the file over only once it is in memory whole", async () => {
  // The sink is where the file should start to flow to disk. With ours it is called after the part's
  // headers; with the library after the closing delimiter, i.e. after the whole file was buffered.
  const fileSize = 1_000_000;
  const pulledAtSink: Record<string, number> = {};
  for (const [name, read] of PARSERS) {
    const { stream, stats } = hugeUpload(BOUNDARY, fileSize, 10_000);
    await read(request(stream), { maxBytes: 2_000_000 }, async (s, info) => {
      pulledAtSink[name] = stats.pulled;
      return await collect(s, info);
    });
  }
  assert.ok(pulledAtSink.ours < 3 * 10_000, `ours pulled ${pulledAtSink.ours}`);
  assert.ok(pulledAtSink.remix > fileSize, `remix pulled ${pulledAtSink.remix}`);
});

Deno.test("multipart library: a failing sink's error comes through and the body is cancelled", async () => {
  for (const [name, read] of PARSERS) {
    const { stream, stats } = hugeUpload(BOUNDARY, 1_000_000, 10_000);
    await assert.rejects(
      read(request(stream), { maxBytes: 2_000_000 }, async (s) => {
        const reader = s.getReader();
        await reader.read();
        await reader.cancel();
        throw new Error("disk full");
      }),
      /disk full/,
      name,
    );
    assert.equal(stats.cancelled || stats.pulled >= 1_000_000, true, name);
    // Ours stops after a chunk or two; the library had already read the whole megabyte.
    if (name === "ours") assert.ok(stats.pulled < 100_000, `ours pulled ${stats.pulled}`);
    else assert.ok(stats.pulled > 1_000_000, `remix pulled ${stats.pulled}`);
  }
});

Deno.test("multipart library: a Content-Length over the cap is refused before reading (wrapper's check)", async () => {
  for (const [name, read] of PARSERS) {
    const { stream, stats } = hugeUpload(BOUNDARY, 50_000_000, 64 * 1024);
    const req = request(stream, TYPE, { "content-length": "50000300" });
    await assert.rejects(read(req, { maxBytes: 1_000_000 }, collect), PhotoTooLargeError, name);
    assert.equal(stats.pulled, 0, name);
  }
});

Deno.test("multipart library: fuzzed bodies: the library never throws outside our error classes and never disagrees on bytes", async () => {
  const photo = await jpegPhoto();
  const known = [NoFilePartError, NotMultipartError, PhotoTooLargeError];
  const outcome = async (read: Reader, body: Uint8Array, type: string, sizes: number[]) => {
    const req = request(source(body, sizes).stream, type);
    try {
      return (await read(req, { maxBytes: 4096 }, collect)).bytes;
    } catch (error) {
      assert.ok(known.some((k) => error instanceof k), `unexpected ${error}`);
      return (error as Error).name;
    }
  };
  const disagreements: string[] = [];
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        boundary: fc.oneof(
          fc.constant("XyZ123boundary"),
          fc.string({ minLength: 1, maxLength: 70 }).filter((s) => /^[\x20-\x7e]+$/.test(s)),
        ),
        fieldName: fc.oneof(fc.constant("file"), fc.string({ maxLength: 10 })),
        bytes: fc.oneof(fc.constant(photo.subarray(0, 3000)), fc.uint8Array({ maxLength: 2048 })),
        cut: fc.option(fc.nat(), { nil: undefined }),
        flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
        sizes: fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 3 }),
      }),
      async (m) => {
        const head = enc(
          `--${m.boundary}\r\nContent-Disposition: form-data; name="${m.fieldName}"; filename="p.jpg"\r\n\r\n`,
        );
        let body = concat(head, m.bytes, enc(`\r\n--${m.boundary}--\r\n`));
        if (m.cut !== undefined) body = body.slice(0, m.cut % (body.length + 1));
        for (const [at, value] of m.flips) if (body.length) body[at % body.length] = value;
        const type = `multipart/form-data; boundary="${m.boundary.replaceAll(/["\\]/g, "\\$&")}"`;
        const [a, b] = [
          await outcome(readFilePart, body, type, m.sizes),
          await outcome(remix, body, type, m.sizes),
        ];
        if (a instanceof Uint8Array && b instanceof Uint8Array) {
          assert.deepEqual(b, a, "both read, different bytes");
        } else if (typeof a !== typeof b || (typeof a === "string" && a !== b)) {
          disagreements.push(
            `${typeof a === "string" ? a : "file"} vs ${typeof b === "string" ? b : "file"}`,
          );
        }
      },
    ),
    { numRuns: 300 },
  );
  // Where they differ it is one refusing what the other reads (see the malformed-body test above).
  for (const d of disagreements) assert.match(d, /^(file vs \w+Error|\w+Error vs file)$/);
});
