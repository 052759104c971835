// Question: where does a photo upload's time go (the service against the bare baseline; in process, the parser, the staging, both; which bare technique is fastest)? Run: deno run -A bench/profiles/upload.ts service|micro|baseline [--rounds N] [--chunk BYTES]
/**
 * Not part of `deno task bench` (docs/performance.md "Upload path").
 *
 *   service: the upload rows of `deno task bench` alone (real service child vs bare baseline), N times over
 *     one small embedded database, or with
 *     `--url postgres://…/<scratch db>` one on that server database (migrated and filled with 200 claims).
 *   micro: in process, no HTTP: 48 multipart bodies of 4 MB (arriving in `--chunk` pieces) through
 *     readFilePart + DiskPhotoStore.stage, c=8, then the parser alone and the storage alone, so the cost
 *     of each stage shows. Add `--cpu-prof` to the deno flags for a profile.
 *   baseline: the bare baseline's two techniques (bench/baseline_upload_server.ts UPLOAD_TECHNIQUE: 1 MiB
 *     batches against one write and hash per chunk), `--rounds` interleaved rounds (even), each a fresh
 *     child, 48 uploads after 16 untimed, c=8, on a small embedded database.
 */
import { parseArgs } from "node:util";
import { openDb } from "@/db/client.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { fillClaims } from "@/bench/generate.ts";
import type { BenchTarget } from "@/bench/target.ts";
import { benchUpload } from "@/bench/upload.ts";
import { runLoad } from "@/bench/load.ts";
import { readFilePart } from "@/io/multipart.ts";
import { uploadAll } from "@/bench/upload.ts";
import { compare, interleave } from "@/bench/pairs.ts";
import { startChild } from "@/bench/process.ts";
import { formatValue } from "@/bench/report.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    rounds: { type: "string", default: "1" },
    chunk: { type: "string", default: "65536" },
    url: { type: "string" },
  },
});
const rounds = Number(values.rounds);
const mode = positionals[0] ?? "service";

const PHOTO_BYTES = 4 * 1024 * 1024;
const UPLOADS = 48;
const CONCURRENCY = 8;
const MB = (UPLOADS * PHOTO_BYTES) / 1e6;

if (mode === "service") {
  const dataDir = await Deno.makeTempDir({ prefix: "pm-upload-bench-" });
  const url = values.url;
  const target: BenchTarget = url
    ? { kind: "server", env: { DATA_DIR: dataDir, DATABASE_URL: url }, dataDir, open: () => openDb({ url }) }
    : { kind: "embedded", env: { DATA_DIR: dataDir }, dataDir, open: () => openDb({ dir: `${dataDir}/db` }) };
  try {
    const db = target.open();
    await migrateToLatest(db);
    // A server database given again keeps its claims (and whatever was staged in it meanwhile).
    const { claims } = await db.selectFrom("claims").select((eb) => eb.fn.countAll<number>().as("claims"))
      .executeTakeFirstOrThrow();
    if (Number(claims) === 0) await fillClaims(db, 200);
    await db.destroy();
    for (let r = 0; r < rounds; r++) {
      const rows = await benchUpload(target);
      for (const row of rows) {
        console.log(
          `${row.figure}: service ${formatValue(row.service)}, baseline ${formatValue(row.baseline)}, ` +
            `ratio ${formatValue(row.ratio)}`,
        );
      }
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
} else if (mode === "micro") {
  const chunk = Number(values.chunk);
  const boundary = "----bench" + crypto.randomUUID();
  const enc = new TextEncoder();
  const head = enc.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="photo.jpg"\r\n` +
      `Content-Type: image/jpeg\r\n\r\n`,
  );
  const tail = enc.encode(`\r\n--${boundary}--\r\n`);
  const photos = Array.from({ length: UPLOADS }, () => {
    const body = new Uint8Array(head.length + PHOTO_BYTES + tail.length);
    body.set(head);
    for (let i = 0; i < PHOTO_BYTES; i += 65536) {
      crypto.getRandomValues(body.subarray(head.length + i, head.length + Math.min(PHOTO_BYTES, i + 65536)));
    }
    body.set(tail, head.length + PHOTO_BYTES);
    return body;
  });
  /**
   * The body as Deno.serve hands it over: a byte stream giving at most `chunk` bytes per read, into
   * the reader's buffer (BYOB) or as a fresh chunk.
   */
  const stream = (bytes: Uint8Array) => {
    let at = 0;
    return new ReadableStream({
      type: "bytes",
      pull(c) {
        if (at >= bytes.length) {
          c.close();
          c.byobRequest?.respond(0);
          return;
        }
        const view = c.byobRequest?.view;
        const n = Math.min(chunk, bytes.length - at, view?.byteLength ?? Infinity);
        if (view) {
          new Uint8Array(view.buffer, view.byteOffset, n).set(bytes.subarray(at, at + n));
          c.byobRequest!.respond(n);
        } else {
          c.enqueue(bytes.slice(at, at + n));
        }
        at += n;
      },
    }, { highWaterMark: 0 });
  };
  const request = (bytes: Uint8Array) =>
    new Request("http://x/upload", {
      method: "POST",
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      body: stream(bytes),
    });
  const root = await Deno.makeTempDir({ prefix: "pm-upload-micro-" });
  const storage = new DiskPhotoStore(root);
  const drain = async (s: ReadableStream<Uint8Array>) => {
    let n = 0;
    for await (const c of s) n += c.length;
    return n;
  };
  const time = async (label: string, one: (i: number) => Promise<unknown>) => {
    const rss0 = Deno.memoryUsage().rss;
    let peak = rss0;
    const timer = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 10);
    const r = await runLoad(UPLOADS, CONCURRENCY, async (i) => {
      await one(i);
      return true;
    });
    clearInterval(timer);
    console.log(
      `${label.padEnd(34)} ${(MB / r.seconds).toFixed(0).padStart(5)} MB/s  ` +
        `rss +${((peak - rss0) / 1e6).toFixed(0)} MB  failures ${r.failures}`,
    );
  };
  const opts = { maxBytes: 8 * 1024 * 1024 };
  try {
    for (let r = 0; r < rounds; r++) {
      console.log(`-- round ${r + 1}, chunk ${chunk} B`);
      await time("parser only (sink drains)", (i) => readFilePart(request(photos[i]), opts, drain));
      await time("storage only (stage + discard)", async (i) => {
        const staged = await storage.stage(
          stream(photos[i].subarray(head.length, head.length + PHOTO_BYTES)),
          opts,
        );
        await staged.discard();
      });
      await time("parser + storage (stage + discard)", async (i) => {
        const staged = await readFilePart(request(photos[i]), opts, (s) => storage.stage(s, opts));
        await staged.discard();
      });
      await time("bare pipe to file (no sync)", async (i) => {
        const file = await Deno.open(`${root}/bare-${i}`, { write: true, create: true });
        await stream(photos[i]).pipeTo(file.writable);
        await Deno.remove(`${root}/bare-${i}`);
      });
    }
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
} else if (mode === "baseline") {
  const dataDir = await Deno.makeTempDir({ prefix: "pm-upload-baseline-" });
  try {
    const db = openDb({ dir: `${dataDir}/db` });
    await migrateToLatest(db);
    await db.destroy();
    const WARMUP = 16;
    const bodies = Array.from({ length: WARMUP + UPLOADS }, () => {
      const body = new Uint8Array(PHOTO_BYTES);
      for (let i = 0; i < PHOTO_BYTES; i += 65536) crypto.getRandomValues(body.subarray(i, i + 65536));
      return body;
    });
    const side = (technique: string) => async () => {
      const child = await startChild("bench/baseline_upload_server.ts", {
        DATA_DIR: dataDir,
        DATABASE_URL: "",
        UPLOAD_DIR: `${dataDir}/${technique}`,
        UPLOAD_TECHNIQUE: technique,
      });
      try {
        for (const b of bodies) crypto.getRandomValues(b.subarray(PHOTO_BYTES - 32)); // never stored before
        const targets = bodies.map(() => ({ url: `${child.url}/upload`, headers: {} }));
        await uploadAll(targets.slice(0, WARMUP), bodies.slice(0, WARMUP), `${technique} warm-up`);
        return (await uploadAll(targets.slice(WARMUP), bodies.slice(WARMUP), technique)).seconds;
      } finally {
        await child.stop();
      }
    };
    const samples = await interleave(side("batched"), side("chunk"), rounds);
    const speed = compare(samples, (s) => MB / s, (s) => MB / s);
    console.log(
      `MB/s: batched ${formatValue(speed.service)}, chunk ${formatValue(speed.baseline)}, ` +
        `batched ÷ chunk ${formatValue(speed.ratio)}`,
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
} else {
  console.error("usage: upload_profile.ts service|micro|baseline [--rounds N] [--chunk BYTES]");
  Deno.exit(2);
}
