// Question: does @remix-run/multipart-parser read uploads as fast and in as little memory as our reader (io/multipart.ts)? Run: deno run -A --lock=deno.dev.lock bench/comparisons/multipart_parsers.ts [--rounds 3]
/**
 * docs/build-or-buy.md: our multipart reader (the baseline) against the library, through
 * bench/comparisons/remix_multipart.ts (the same contract), on the same bodies. Not part of `deno task bench`.
 *
 * Each measurement runs in a fresh child process (so one parser's garbage does not weigh on the other's
 * figure), ours and the library's alternating, `--rounds` times per case. Per case it prints the median
 * MB/s with min–max, the ratio library/ours of the medians, and the peak RSS growth during the work
 * (VmHWM after the work minus VmRSS before it, the high-water mark reset after set-up).
 * The sink drains the file (counts bytes), so the figures are the parser's alone.
 */
import { parseArgs } from "node:util";
import { readFilePart } from "@/io/multipart.ts";
import { readFilePartWithRemix } from "@/bench/comparisons/remix_multipart.ts";
import { runLoad } from "@/bench/load.ts";

/** `bare` (HTTP case only) hands the raw body to the sink: the server's own cost, as a floor. */
const PARSERS = {
  ours: readFilePart,
  remix: readFilePartWithRemix,
  bare: (async (request, _opts, sink) => await sink(request.body!, {})) as typeof readFilePart,
};
type ParserName = keyof typeof PARSERS;

const BOUNDARY = "----WebKitFormBoundary7MA4YWxkTrZu0gW";
const enc = new TextEncoder();
const MAX_BYTES = 10 * 1024 * 1024; // the service's default MAX_PHOTO_BYTES

interface Case {
  label: string;
  uploads: number;
  concurrency: number;
  /** Bytes each read of the request body gives (Deno.serve gives up to 64 KiB). */
  chunk: number;
  /** The request bodies, built before the measurement. */
  bodies(): Promise<Uint8Array<ArrayBuffer>[]>;
  /** Over HTTP through Deno.serve on loopback instead of in-process streams. */
  http?: boolean;
}

function formBody(file: Uint8Array, fields: [string, string][] = []): Uint8Array<ArrayBuffer> {
  const head =
    fields.map(([name, value]) =>
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
    ).join("") +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="photo.jpg"\r\n` +
    `Content-Type: image/jpeg\r\n\r\n`;
  const pieces = [enc.encode(head), file, enc.encode(`\r\n--${BOUNDARY}--\r\n`)];
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** As bench/upload.ts: the fixture JPEG's bytes, then random bytes (like entropy-coded data) up to size. */
async function jpegLike(size: number): Promise<Uint8Array> {
  const jpeg = await Deno.readFile(new URL("../../tests/fixtures/photo.jpg", import.meta.url));
  const out = new Uint8Array(size);
  out.set(jpeg.subarray(0, size));
  for (let i = jpeg.length; i < size; i += 65536) {
    crypto.getRandomValues(out.subarray(i, Math.min(size, i + 65536)));
  }
  return out;
}

const PHOTO = 4 * 1024 * 1024;
const CASES: Record<string, Case> = {
  photo: {
    label: "4 MB JPEG-like, c=8, 64 KiB reads",
    uploads: 32,
    concurrency: 8,
    chunk: 65536,
    bodies: async () =>
      await Promise.all(Array.from({ length: 32 }, async () => formBody(await jpegLike(PHOTO)))),
  },
  small: {
    label: "20 KB file after 40 small fields, c=8",
    uploads: 1500,
    concurrency: 8,
    chunk: 65536,
    bodies: async () => {
      const fields = Array.from({ length: 40 }, (_, i): [string, string] => [`field${i}`, "v".repeat(100)]);
      return await Promise.all(
        Array.from({ length: 16 }, async () => formBody(await jpegLike(20_000), fields)),
      );
    },
  },
  pathological: {
    label: "4 MB of near-delimiters, 1000 B reads",
    uploads: 8,
    concurrency: 8,
    chunk: 1000,
    bodies: () => {
      // "\r\n--" + the boundary without its last byte, over and over: every position is a candidate.
      const near = enc.encode(`\r\n--${BOUNDARY.slice(0, -1)}`);
      const file = new Uint8Array(PHOTO);
      for (let at = 0; at + near.length <= file.length; at += near.length) file.set(near, at);
      return Promise.resolve(Array.from({ length: 8 }, () => formBody(file)));
    },
  },
  http: {
    label: "4 MB JPEG-like over HTTP (Deno.serve), c=8",
    uploads: 24,
    concurrency: 8,
    chunk: 65536,
    http: true,
    bodies: async () =>
      await Promise.all(Array.from({ length: 8 }, async () => formBody(await jpegLike(PHOTO)))),
  },
};

/** A byte stream like Deno.serve's request bodies: at most `chunk` bytes a read, BYOB or not. */
function byteStream(bytes: Uint8Array, chunk: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    type: "bytes",
    pull(c) {
      const byob = c.byobRequest;
      if (at >= bytes.length) {
        c.close();
        byob?.respond(0);
        return;
      }
      const view = byob?.view;
      const n = Math.min(chunk, bytes.length - at, view?.byteLength ?? Infinity);
      if (byob && view) {
        new Uint8Array(view.buffer, view.byteOffset, n).set(bytes.subarray(at, at + n));
        byob.respond(n);
      } else {
        c.enqueue(bytes.slice(at, at + n));
      }
      at += n;
    },
  }, { highWaterMark: 0 });
}

async function drain(stream: ReadableStream<Uint8Array>): Promise<number> {
  let n = 0;
  for await (const chunk of stream) n += chunk.length;
  return n;
}

const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

async function procStatus(field: string): Promise<number> {
  const status = await Deno.readTextFile("/proc/self/status");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) * 1024;
}

/** One in-process measurement: prints `{ mbps, uploadsPerSecond, rssGrowth }` as JSON. */
async function child(parserName: ParserName, caseName: string): Promise<void> {
  const read = PARSERS[parserName];
  const c = CASES[caseName];
  if (c.http) return await httpChild(read);
  const bodies = await c.bodies();
  const one = async (i: number) => {
    const req = new Request("http://x/upload", {
      method: "POST",
      headers: { "content-type": TYPE },
      body: byteStream(bodies[i % bodies.length], c.chunk),
    });
    return await read(req, { maxBytes: MAX_BYTES }, drain) > 0;
  };
  await runLoad(c.concurrency, c.concurrency, one); // warm-up (JIT)
  const before = await resetPeak();
  const r = await runLoad(c.uploads, c.concurrency, one);
  const rssGrowth = await procStatus("VmHWM") - before;
  if (r.failures > 0) throw new Error(`${parserName} ${caseName}: ${r.failures} failed uploads`);
  const mb = Array.from({ length: c.uploads }, (_, i) => bodies[i % bodies.length].length).reduce((a, b) =>
    a + b
  );
  console.log(JSON.stringify({ mbps: mb / 1e6 / r.seconds, uploadsPerSecond: r.rps, rssGrowth }));
}

/** Collects garbage (set-up, warm-up), resets VmHWM to the current RSS and returns that RSS. */
async function resetPeak(): Promise<number> {
  (globalThis as { gc?: () => void }).gc?.();
  await Deno.writeTextFile("/proc/self/clear_refs", "5");
  return await procStatus("VmRSS");
}

/**
 * The HTTP case's server: Deno.serve with the parser, sink draining. The parent is the client (so its
 * buffers are not in this process's memory) and drives it over stdin: `start` resets the memory peak,
 * `stop` prints the growth and ends.
 */
async function httpChild(read: typeof readFilePart): Promise<void> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    return new Response(String(await read(req, { maxBytes: MAX_BYTES }, drain)));
  });
  console.log(JSON.stringify({ port: (server.addr as Deno.NetAddr).port }));
  let before = 0;
  for await (const line of Deno.stdin.readable.pipeThrough(new TextDecoderStream()).pipeThrough(lines())) {
    if (line === "start") before = await resetPeak();
    if (line === "stop") {
      console.log(JSON.stringify({ rssGrowth: await procStatus("VmHWM") - before }));
      break;
    }
  }
  await server.shutdown();
}

function lines(): TransformStream<string, string> {
  let rest = "";
  return new TransformStream({
    transform(text, controller) {
      const parts = (rest + text).split("\n");
      rest = parts.pop()!;
      for (const part of parts) controller.enqueue(part);
    },
  });
}

interface Sample {
  mbps: number;
  uploadsPerSecond: number;
  rssGrowth: number;
}

function spawnChild(parser: ParserName, caseName: string, stdin: "piped" | "null") {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--v8-flags=--expose-gc",
      new URL(import.meta.url).pathname,
      "--child",
      parser,
      caseName,
    ],
    stdin,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
}

async function measure(
  parser: ParserName,
  caseName: string,
  bodies: Uint8Array<ArrayBuffer>[],
): Promise<Sample> {
  const c = CASES[caseName];
  const proc = spawnChild(parser, caseName, c.http ? "piped" : "null");
  const out = proc.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(lines()).getReader();
  const nextJson = async () => {
    const { value } = await out.read();
    if (value === undefined) throw new Error(`child ${parser} ${caseName} failed`);
    return JSON.parse(value);
  };
  const run = async (): Promise<Sample> => {
    if (!c.http) return await nextJson();
    const { port } = await nextJson();
    const control = proc.stdin.getWriter();
    const one = async (i: number) => {
      const res = await fetch(`http://127.0.0.1:${port}/upload`, {
        method: "POST",
        headers: { "content-type": TYPE },
        body: bodies[i % bodies.length],
      });
      return res.ok && Number(await res.text()) > 0;
    };
    await runLoad(c.concurrency, c.concurrency, one); // warm-up (JIT, connections)
    await control.write(enc.encode("start\n"));
    const r = await runLoad(c.uploads, c.concurrency, one);
    await control.write(enc.encode("stop\n"));
    const { rssGrowth } = await nextJson();
    await control.close();
    if (r.failures > 0) throw new Error(`${parser} ${caseName}: ${r.failures} failed uploads`);
    const mb = Array.from({ length: c.uploads }, (_, i) => bodies[i % bodies.length].length).reduce((a, b) =>
      a + b
    );
    return { mbps: mb / 1e6 / r.seconds, uploadsPerSecond: r.rps, rssGrowth };
  };
  const sample = await run().finally(async () => {
    out.releaseLock();
    await proc.stdout.cancel().catch(() => {});
  });
  const status = await proc.status;
  if (!status.success) throw new Error(`child ${parser} ${caseName} exited with ${status.code}`);
  return sample;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "3" },
    child: { type: "boolean" },
    cases: { type: "string" },
  },
  allowPositionals: true,
});

if (values.child) {
  const [parser, caseName] = Deno.args.filter((a) => !a.startsWith("--"));
  await child(parser as ParserName, caseName);
} else {
  const rounds = Number(values.rounds);
  const caseNames = values.cases ? values.cases.split(",") : Object.keys(CASES);
  console.log(
    `multipart parsers: ours (io/multipart.ts) vs @remix-run/multipart-parser, ${rounds} rounds each`,
  );
  console.log(
    `${"case".padEnd(44)} ${"parser".padEnd(6)} ${"MB/s median (min–max)".padEnd(24)} ${
      "uploads/s".padStart(9)
    }  ` +
      `${"peak RSS growth".padEnd(20)} ratio`,
  );
  for (const caseName of caseNames) {
    const samples: Record<ParserName, Sample[]> = { ours: [], remix: [], bare: [] };
    const http = CASES[caseName].http;
    const bodies = http ? await CASES[caseName].bodies() : [];
    const names: ParserName[] = http ? ["ours", "remix", "bare"] : ["ours", "remix"];
    for (let r = 0; r < rounds; r++) {
      // Alternate who goes first, so a drift in the machine's load does not always favour one side.
      const order = r % 2 === 0 ? names : [...names].reverse();
      for (const p of order) samples[p].push(await measure(p, caseName, bodies));
    }
    const med = (p: ParserName) => median(samples[p].map((s) => s.mbps));
    for (const p of names) {
      const mbps = samples[p].map((s) => s.mbps);
      const rss = samples[p].map((s) => s.rssGrowth / 1e6);
      const range = `${med(p).toFixed(0)} (${Math.min(...mbps).toFixed(0)}–${Math.max(...mbps).toFixed(0)})`;
      const growth = `${median(rss).toFixed(0)} MB (${Math.min(...rss).toFixed(0)}–${
        Math.max(...rss).toFixed(0)
      })`;
      console.log(
        `${(p === "ours" ? CASES[caseName].label : "").padEnd(44)} ${p.padEnd(6)} ${range.padEnd(24)} ` +
          `${median(samples[p].map((s) => s.uploadsPerSecond)).toFixed(0).padStart(9)}  ${
            growth.padEnd(20)
          } ` +
          (p === "remix" ? `${(med("remix") / med("ours")).toFixed(2)}` : ""),
      );
    }
  }
}
