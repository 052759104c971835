import assert from "node:assert/strict";
import { join } from "node:path";
import {
  ClientAbortError,
  ENVELOPE_ALLOWANCE,
  type FilePartInfo,
  NoFilePartError,
  NotMultipartError,
  parseBoundary,
  PhotoTooLargeError,
  readFilePart,
} from "@/io/multipart.ts";
import fc from "@/tests/helpers/fast_check.ts";
import { ByteSearch } from "@/io/byte_search.ts";
import { EmptyPhotoError } from "@/io/photo_storage.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { jpegPhoto, photoForm } from "@/testkit/photos.ts";
import {
  byteSource,
  concat,
  enc,
  equalBytes,
  fieldPart,
  filePart,
  hugeUpload,
  multipart,
  plantNearDelimiter,
  randomBytes,
  seededRandom,
  source,
} from "@/tests/helpers/multipart.ts";

const URL_ = "http://localhost/upload";

/** A sink that reads the file with a BYOB reader through views of at most `viewBytes`. */
function collectByob(viewBytes: number) {
  return async (stream: ReadableStream<Uint8Array>) => {
    const reader = stream.getReader({ mode: "byob" });
    const parts: Uint8Array[] = [];
    while (true) {
      const { done, value } = await reader.read(new Uint8Array(viewBytes));
      if (done) break;
      assert.ok(value.length > 0 && value.length <= viewBytes);
      parts.push(value);
    }
    return concat(...parts);
  };
}

function request(body: BodyInit, contentType: string, headers: Record<string, string> = {}): Request {
  return new Request(URL_, { method: "POST", body, headers: { "content-type": contentType, ...headers } });
}

/** A sink that collects the file's bytes. */
async function collect(stream: ReadableStream<Uint8Array>, info: FilePartInfo) {
  return { bytes: new Uint8Array(await new Response(stream).arrayBuffer()), info };
}

async function withStorage(fn: (storage: DiskPhotoStore, root: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "multipart_test_" });
  try {
    await fn(new DiskPhotoStore(join(dir, "photos")), join(dir, "photos"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function tmpEntries(root: string): Promise<string[]> {
  try {
    return (await Array.fromAsync(Deno.readDir(join(root, "tmp")))).map((e) => e.name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

const BOUNDARY = "----PartsMovementBoundary7MA4YWxk";

/** File content full of traps: CRLFs, dashes, the boundary minus its last byte, the boundary without CRLF. */
function trickyBinary(): Uint8Array {
  const random = new Uint8Array(300);
  for (let i = 0; i < random.length; i++) random[i] = (i * 73 + 11) & 0xff; // deterministic
  return concat(
    new Uint8Array([0xff, 0xd8, 0xff, 0xe0]),
    enc("\r\n\r\n--\r\n-"),
    enc(`\r\n--${BOUNDARY.slice(0, -1)}`),
    random,
    enc(`--${BOUNDARY}`), // boundary without the CRLF before it is content
    enc(`\r\n-${BOUNDARY}`),
    enc("\r\n--"),
    new Uint8Array([0, 13, 10, 13, 13, 10, 10, 0]),
    enc("\r"), // ends in CR right before the real delimiter's CRLF
  );
}

Deno.test("multipart_upload: a binary file with CRLFs and partial boundaries comes out byte-identical", async () => {
  await withStorage(async (storage) => {
    const content = trickyBinary();
    const body = multipart(
      BOUNDARY,
      [fieldPart("note", "hello"), filePart(content), fieldPart("after", "x")],
      {
        preamble: "This is the preamble.",
        epilogue: "epilogue",
      },
    );
    const req = request(body, `multipart/form-data; boundary=${BOUNDARY}`);
    const result = await readFilePart(req, { maxBytes: 10_000 }, async (stream, info) => {
      const staged = await storage.stage(stream, { maxBytes: 10_000 });
      return { key: await staged.commit(), info };
    });
    assert.deepEqual(await Deno.readFile(storage.path(result.key)), content);
    assert.deepEqual(result.info, { filename: "IMG_0001.jpg", contentType: "image/jpeg" });
  });
});

Deno.test("multipart_upload: a boundary split at every possible chunk position still parses", async () => {
  const content = trickyBinary();
  const body = multipart(BOUNDARY, [fieldPart("note", "n"), filePart(content)]);
  for (let split = 0; split <= body.length; split++) {
    const { stream } = source(body, [split === 0 ? body.length : split, body.length]);
    const got = await readFilePart(request(stream, `multipart/form-data; boundary=${BOUNDARY}`), {
      maxBytes: 10_000,
    }, collect);
    assert.deepEqual(got.bytes, content, `split at ${split}`);
  }
  for (const sizes of [[1], [2], [3], [5, 1], [7, 13, 1], [64]]) {
    const { stream } = source(body, sizes);
    const got = await readFilePart(
      request(stream, `multipart/form-data; boundary="${BOUNDARY}"`),
      { maxBytes: 10_000 },
      collect,
    );
    assert.deepEqual(got.bytes, content, `chunk sizes ${sizes}`);
  }
});

Deno.test("multipart_upload: a byte-stream body (read into the parser's own buffer) splits anywhere", async () => {
  const content = trickyBinary();
  const body = multipart(BOUNDARY, [fieldPart("note", "n"), filePart(content), fieldPart("after", "x")], {
    preamble: "preamble",
    epilogue: "epilogue",
  });
  const type = `multipart/form-data; boundary=${BOUNDARY}`;
  for (let split = 1; split <= body.length; split++) {
    const { stream, stats } = byteSource(body, [split, body.length]);
    const got = await readFilePart(request(stream, type), { maxBytes: 10_000 }, collect);
    assert.deepEqual(got.bytes, content, `split at ${split}`);
    assert.equal(stats.pulled, body.length, "read to the end, so the connection stays usable");
  }
  for (const sizes of [[1], [2], [3], [5, 1], [7, 13, 1], [64], [70_000]]) {
    for (const view of [1, 3, 64, 100_000]) {
      const { stream } = byteSource(body, sizes);
      const got = await readFilePart(request(stream, type), { maxBytes: 10_000 }, collectByob(view));
      assert.deepEqual(got, content, `chunk sizes ${sizes}, views of ${view}`);
    }
  }
});

Deno.test("multipart_upload: a large byte-stream upload comes out whole, read by default and BYOB readers", async () => {
  // Seeded random content (fast-check prints the seed of a failing run, and replays it), with
  // near-delimiters planted across read boundaries that the next byte can never complete.
  await fc.assert(
    fc.asyncProperty(fc.integer(), async (seed) => {
      const random = seededRandom(seed);
      const content = randomBytes(random, 3_000_000);
      const plants = [65_530, 262_140, 262_144 - BOUNDARY.length - 1, 1_000_000 + random(1_000_000)];
      for (const at of plants) plantNearDelimiter(content, BOUNDARY, at);
      const body = multipart(BOUNDARY, [filePart(content)]);
      const type = `multipart/form-data; boundary=${BOUNDARY}`;
      for (const sizes of [[65_536], [300_000], [1_000, 250_000], [1 + random(100_000)]]) {
        const a = await readFilePart(
          request(byteSource(body, sizes).stream, type),
          { maxBytes: 4e6 },
          collect,
        );
        assert.ok(equalBytes(a.bytes, content), `default reader, chunks ${sizes}, seed ${seed}`);
        const b = await readFilePart(
          request(byteSource(body, sizes).stream, type),
          { maxBytes: 4e6 },
          collectByob(200_000),
        );
        assert.ok(equalBytes(b, content), `BYOB reader, chunks ${sizes}, seed ${seed}`);
      }
    }),
    { numRuns: 3, endOnFailure: true },
  );
});

Deno.test("multipart_upload: a byte-stream upload over the cap is cut off just past it", async () => {
  const body = multipart(BOUNDARY, [filePart(new Uint8Array(5_000_000).fill(0x61))]);
  const { stream, stats } = byteSource(body, [64 * 1024]);
  await assert.rejects(
    readFilePart(
      request(stream, `multipart/form-data; boundary=${BOUNDARY}`),
      { maxBytes: 1_000_000 },
      collect,
    ),
    PhotoTooLargeError,
  );
  assert.equal(stats.cancelled, true);
  assert.ok(stats.pulled <= 1_000_000 + ENVELOPE_ALLOWANCE + 2 * 64 * 1024, `pulled ${stats.pulled}`);
});

Deno.test("multipart_upload: ByteSearch finds what a naive scan finds", () => {
  const naive = (h: Uint8Array, n: Uint8Array, from: number) => {
    outer: for (let i = Math.max(0, from); i + n.length <= h.length; i++) {
      for (let k = 0; k < n.length; k++) if (h[i + k] !== n[k]) continue outer;
      return i;
    }
    return -1;
  };
  // Deterministic pseudo-random cases over a tiny alphabet, so near-matches are everywhere.
  let seed = 7;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  const alphabet = [13, 10, 45, 97, 98];
  for (let t = 0; t < 5000; t++) {
    const needle = Uint8Array.from({ length: 1 + next(8) }, () => alphabet[next(alphabet.length)]);
    const hay = Uint8Array.from({ length: next(60) }, () => alphabet[next(alphabet.length)]);
    const from = next(10) - 2;
    assert.equal(new ByteSearch(needle).indexIn(hay, from), naive(hay, needle, from), `case ${t}`);
  }
  const delimiter = enc(`\r\n--${BOUNDARY}`);
  const hay = concat(enc(`--${BOUNDARY}\r\n-${BOUNDARY}`), delimiter.subarray(0, 10), delimiter, enc("x"));
  assert.equal(new ByteSearch(delimiter).indexIn(hay), hay.length - delimiter.length - 1);
  assert.throws(() => new ByteSearch(new Uint8Array(0)), RangeError);
});

Deno.test("multipart_upload: a body built by FormData (as fetch sends it) is read", async () => {
  const photo = await jpegPhoto();
  const built = new Request(URL_, { method: "POST", body: photoForm(photo, "wheel arch.jpg") });
  const got = await readFilePart(built, { maxBytes: 1_000_000 }, collect);
  assert.deepEqual(got.bytes, photo);
  assert.deepEqual(got.info, { filename: "wheel arch.jpg", contentType: "image/jpeg" });
});

Deno.test("multipart_upload: boundaries quoted, unquoted, with odd characters; a part without headers", async () => {
  const content = enc("data");
  for (
    const [boundary, header] of [
      ["simple", "multipart/form-data; boundary=simple"],
      ["a:b=c d", 'Multipart/Form-Data; charset=utf-8; boundary="a:b=c d"'],
      ["x", "multipart/form-data;boundary=x"],
    ]
  ) {
    const body = multipart(boundary, [{ headers: [], body: enc("anon") }, filePart(content)]);
    const got = await readFilePart(request(body, header), { maxBytes: 100 }, collect);
    assert.deepEqual(got.bytes, content, header);
  }
});

Deno.test("multipart_upload: not multipart/form-data, or no boundary, is NotMultipartError", async () => {
  for (
    const type of ["application/json", "multipart/mixed; boundary=x", "multipart/form-data", "text/plain"]
  ) {
    await assert.rejects(
      readFilePart(request("{}", type), { maxBytes: 100 }, collect),
      NotMultipartError,
      type,
    );
  }
  const noType = new Request(URL_, { method: "POST", body: new Uint8Array([1]) });
  await assert.rejects(readFilePart(noType, { maxBytes: 100 }, collect), NotMultipartError);
  assert.throws(() => parseBoundary(`multipart/form-data; boundary=${"b".repeat(71)}`), NotMultipartError);
  assert.equal(parseBoundary('multipart/form-data; boundary="q\\"x"'), 'q"x');
});

Deno.test("multipart_upload: no part named file is NoFilePartError", async () => {
  const body = multipart(BOUNDARY, [fieldPart("photo", "x"), fieldPart("files", "y")]);
  await assert.rejects(
    readFilePart(request(body, `multipart/form-data; boundary=${BOUNDARY}`), { maxBytes: 100 }, collect),
    NoFilePartError,
  );
  const empty = new Request(URL_, {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
  });
  await assert.rejects(readFilePart(empty, { maxBytes: 100 }, collect), NoFilePartError);
});

Deno.test("multipart_upload: malformed bodies are NoFilePartError and leave no temp file", async () => {
  await withStorage(async (storage, root) => {
    const type = `multipart/form-data; boundary=${BOUNDARY}`;
    const full = multipart(BOUNDARY, [filePart(enc("0123456789".repeat(100)))]);
    const full2 = multipart(BOUNDARY, [filePart(enc("0123456789")), fieldPart("after", "x".repeat(40))]);
    const cases = {
      "no boundary at all": enc("just some bytes"),
      "cut off inside the file": full.subarray(0, full.length - 200),
      "no closing boundary": full.subarray(0, full.length - `--${BOUNDARY}--\r\n`.length),
      "headers never end": enc(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"\r\n`),
      "header without colon": enc(`--${BOUNDARY}\r\nnonsense\r\n\r\nx\r\n--${BOUNDARY}--`),
      "garbage after boundary": enc(`--${BOUNDARY}xyz\r\n\r\nx\r\n--${BOUNDARY}--`),
      // A delimiter inside the file followed by neither `--` nor [padding] CRLF: the body is malformed,
      // refused whole, never stored cut short at the look-alike.
      "delimiter then garbage in the file": multipart(BOUNDARY, [
        filePart(enc(`JPEG\r\n--${BOUNDARY}garbage after it`)),
      ]),
      "delimiter, padding, garbage in the file": multipart(BOUNDARY, [
        filePart(enc(`JPEG\r\n--${BOUNDARY} \t x\r\n`)),
      ]),
      "delimiter, a lone dash in the file": multipart(BOUNDARY, [filePart(enc(`JPEG\r\n--${BOUNDARY}-x`))]),
      "a malformed part after the file": multipart(BOUNDARY, [
        filePart(enc("0123456789")),
        { headers: ["no colon here"], body: enc("x") },
      ]),
      "a body ending inside a part after the file": full2.subarray(0, full2.length - 12),
    };
    for (const [name, body] of Object.entries(cases)) {
      await assert.rejects(
        readFilePart(
          request(body, type),
          { maxBytes: 10_000 },
          (stream) => storage.stage(stream, { maxBytes: 10_000 }),
        ),
        NoFilePartError,
        name,
      );
      assert.deepEqual(await tmpEntries(root), [], name);
    }
  });
});

Deno.test("multipart_upload: a delimiter look-alike in the file is refused at every chunk split", async () => {
  const type = `multipart/form-data; boundary=${BOUNDARY}`;
  const body = multipart(BOUNDARY, [filePart(enc(`JPEG\r\n--${BOUNDARY}x and more`))], { epilogue: "e" });
  for (let split = 1; split < body.length; split++) {
    for (const make of [source, byteSource]) {
      let finished = false;
      const sink = async (stream: ReadableStream<Uint8Array>) => {
        await new Response(stream).arrayBuffer();
        finished = true; // the file stream must never end cleanly
      };
      await assert.rejects(
        readFilePart(request(make(body, [split, body.length]).stream, type), { maxBytes: 1000 }, sink),
        NoFilePartError,
        `split at ${split}`,
      );
      assert.equal(finished, false, `split at ${split}: the file stream ended as if whole`);
    }
  }
});

Deno.test("multipart_upload: transport padding after a boundary is allowed (RFC 2046)", async () => {
  const body = concat(
    enc(`--${BOUNDARY} \t \r\nContent-Disposition: form-data; name="file"\r\n\r\n`),
    enc(`data\r\n--${BOUNDARY}\t\r\nContent-Disposition: form-data; name="after"\r\n\r\nx`),
    enc(`\r\n--${BOUNDARY}--  \r\n`),
  );
  const got = await readFilePart(
    request(body, `multipart/form-data; boundary=${BOUNDARY}`),
    { maxBytes: 100 },
    collect,
  );
  assert.deepEqual(got.bytes, enc("data"));
});

Deno.test("multipart_upload: a body stream that fails mid-upload is ClientAbortError (the client went away)", async () => {
  const body = multipart(BOUNDARY, [filePart(new Uint8Array(50_000).fill(0x61))]);
  let sent = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(new Deno.errors.BadResource("connection reset"));
      sent = true;
      controller.enqueue(body.slice(0, 20_000));
    },
  });
  await withStorage(async (storage, root) => {
    await assert.rejects(
      readFilePart(
        request(stream, `multipart/form-data; boundary=${BOUNDARY}`),
        { maxBytes: 100_000 },
        (s) => storage.stage(s, { maxBytes: 100_000 }),
      ),
      (e: Error) => e instanceof ClientAbortError && e.cause instanceof Deno.errors.BadResource,
    );
    assert.deepEqual(await tmpEntries(root), []);
  });
});

Deno.test("multipart_upload: an empty file part reaches storage as EmptyPhotoError", async () => {
  await withStorage(async (storage, root) => {
    const body = multipart(BOUNDARY, [filePart(new Uint8Array(0))]);
    await assert.rejects(
      readFilePart(
        request(body, `multipart/form-data; boundary=${BOUNDARY}`),
        { maxBytes: 1000 },
        (stream) => storage.stage(stream, { maxBytes: 1000 }),
      ),
      EmptyPhotoError,
    );
    assert.deepEqual(await tmpEntries(root), []);
  });
});

Deno.test("multipart_upload: a 50 MB upload over a 1 MB cap is cut off just past the cap", async () => {
  await withStorage(async (storage, root) => {
    const maxBytes = 1_000_000;
    const chunk = 64 * 1024;
    const { stream, stats } = hugeUpload(BOUNDARY, 50_000_000, chunk);
    const req = request(stream, `multipart/form-data; boundary=${BOUNDARY}`);
    await assert.rejects(
      readFilePart(req, { maxBytes }, (s) => storage.stage(s, { maxBytes })),
      PhotoTooLargeError,
    );
    assert.equal(stats.cancelled, true);
    // At most the cap plus the envelope and a couple of chunks in flight: not the 50 MB.
    assert.ok(stats.pulled <= maxBytes + ENVELOPE_ALLOWANCE + 2 * chunk, `pulled ${stats.pulled}`);
    assert.ok(stats.pulled > maxBytes);
    assert.deepEqual(await tmpEntries(root), []);
    assert.deepEqual(await Array.fromAsync(storage.keys()), []);
  });
});

Deno.test("multipart_upload: the file part is limited even when the sink would take more", async () => {
  const { stream, stats } = hugeUpload(BOUNDARY, 5_000_000, 10_000);
  const req = request(stream, `multipart/form-data; boundary=${BOUNDARY}`);
  await assert.rejects(readFilePart(req, { maxBytes: 100_000 }, collect), PhotoTooLargeError);
  assert.equal(stats.cancelled, true);
  assert.ok(stats.pulled <= 100_000 + 3 * 10_000, `pulled ${stats.pulled}`);
});

Deno.test("multipart_upload: a file exactly at the cap is accepted", async () => {
  const { stream } = hugeUpload(BOUNDARY, 100_000, 7_000, [fieldPart("note", "n")]);
  const got = await readFilePart(
    request(stream, `multipart/form-data; boundary=${BOUNDARY}`),
    { maxBytes: 100_000 },
    collect,
  );
  assert.equal(got.bytes.length, 100_000);
});

Deno.test("multipart_upload: big other parts count against the body cap", async () => {
  const chunk = 16 * 1024;
  const big = fieldPart("junk", "j".repeat(2_000_000));
  const body = multipart(BOUNDARY, [big, filePart(enc("tiny"))]);
  const { stream, stats } = source(body, [chunk]);
  await assert.rejects(
    readFilePart(
      request(stream, `multipart/form-data; boundary=${BOUNDARY}`),
      { maxBytes: 100_000 },
      collect,
    ),
    PhotoTooLargeError,
  );
  assert.equal(stats.cancelled, true);
  assert.ok(stats.pulled <= 100_000 + ENVELOPE_ALLOWANCE + 2 * chunk, `pulled ${stats.pulled}`);
});

Deno.test("multipart_upload: a Content-Length over the cap is refused before reading", async () => {
  const { stream, stats } = hugeUpload(BOUNDARY, 50_000_000, 64 * 1024);
  const req = request(stream, `multipart/form-data; boundary=${BOUNDARY}`, { "content-length": "50000300" });
  let sinkCalled = false;
  await assert.rejects(
    readFilePart(req, { maxBytes: 1_000_000 }, (s, i) => {
      sinkCalled = true;
      return collect(s, i);
    }),
    PhotoTooLargeError,
  );
  assert.equal(sinkCalled, false);
  assert.equal(stats.pulled, 0);
});

Deno.test("multipart_upload: a failing sink's error comes through and the body is cancelled", async () => {
  const { stream, stats } = hugeUpload(BOUNDARY, 1_000_000, 10_000);
  const req = request(stream, `multipart/form-data; boundary=${BOUNDARY}`);
  await assert.rejects(
    readFilePart(req, { maxBytes: 2_000_000 }, async (s) => {
      const reader = s.getReader();
      await reader.read();
      await reader.cancel();
      throw new Error("disk full");
    }),
    /disk full/,
  );
  assert.equal(stats.cancelled, true);
  assert.ok(stats.pulled < 100_000);
});
