/**
 * Evidence pack memory (docs/performance.md "Evidence pack": a claim with 50 parts and 100 photos of 1 MB stays
 * under ~30 MB of memory growth): the peak RSS growth of a process while it streams the ZIP of such a claim (lib/evidence/zip.ts)
 * to a reader that discards it, beside a baseline that streams the same 100 photos from the same store
 * concatenated, without a ZIP. Each run is a fresh child process (`--child zip|concat <store dir>`), so
 * no run inherits another's heap; interleaved runs (bench/pairs.ts). Streaming holds a few chunks whatever the claim's
 * size: a ZIP built in memory would grow by the ~100 MB of photos.
 */
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { type EvidenceFile, evidenceZip } from "@/lib/evidence/zip.ts";
import type { Leg } from "@/lib/dashboard/claim.ts";
import type { BenchRow } from "@/bench/report.ts";
import { readRss, withPeakRss } from "@/bench/process.ts";
import { compare, interleave } from "@/bench/pairs.ts";

const PARTS = 50;
const PHOTO_BYTES = 1 << 20;
const MB = 1 << 20;

/**
 * Two legs per part (picked up at the shop, returned to HQ): 100 photos of 1 MiB, random bytes each, in
 * a disk store at `<dir>/store`; their keys in `<dir>/keys.json` for the children.
 */
async function fillStore(dir: string): Promise<void> {
  const store = new DiskPhotoStore(`${dir}/store`);
  const keys: string[] = [];
  for (let i = 0; i < PARTS * 2; i++) {
    const bytes = new Uint8Array(PHOTO_BYTES);
    for (let at = 0; at < bytes.length; at += 65_536) crypto.getRandomValues(bytes.subarray(at, at + 65_536));
    keys.push((await store.writeStream(ReadableStream.from([bytes]), { maxBytes: 2 * PHOTO_BYTES })).key);
  }
  await Deno.writeTextFile(`${dir}/keys.json`, JSON.stringify(keys));
}

/** The claim's 100 legs over the stored photos, as the claim page would list them. */
function filesOf(keys: string[]): EvidenceFile[] {
  return keys.map((key, i) => {
    const leg: Leg = {
      partId: i >> 1,
      partNo: `PN-${i >> 1}`,
      movementId: 1,
      movementType: "reverse",
      leg: i % 2 ? "reverse_dropoff" : "reverse_pickup",
      at: new Date(Date.UTC(2026, 10, 21, 9, i)),
      driver: "Bench Driver",
      place: "Bench Panels",
      photo: { id: i + 1, sha256: key, bytes: PHOTO_BYTES, contentType: "image/jpeg" },
      handover: null,
      recordedVia: "tablet",
    };
    return { kind: "photo", fileName: `PN-${i >> 1}_${leg.leg}.jpg`, leg, photo: leg.photo! };
  });
}

/** Reads a stream to its end, keeping nothing; returns the bytes read. */
async function drain(stream: ReadableStream<Uint8Array>): Promise<number> {
  let n = 0;
  for await (const chunk of stream) n += chunk.length;
  return n;
}

/** Child: one measured run; prints `{ growth, bytes }` as JSON. */
async function child(mode: string, dir: string): Promise<void> {
  const store = new DiskPhotoStore(`${dir}/store`);
  const files = filesOf(JSON.parse(await Deno.readTextFile(`${dir}/keys.json`)));
  const rss = () => readRss(Deno.pid);
  const before = await rss();
  const { result, peak } = await withPeakRss(
    rss,
    () =>
      mode === "zip"
        ? drain(evidenceZip(store, files, [{ name: "manifest.json", text: JSON.stringify(files) }]))
        : drain(ReadableStream.from((async function* () {
          for (const f of files) yield* (await store.open(f.photo.sha256))!;
        })())),
  );
  console.log(JSON.stringify({ growth: peak - before, bytes: result }));
}

async function run(mode: string, dir: string): Promise<{ growth: number; bytes: number }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, "--child", mode, dir],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`evidence zip bench child (${mode}) failed`);
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
}

export async function benchEvidenceZip(): Promise<BenchRow[]> {
  const dir = await Deno.makeTempDir({ prefix: "pm-bench-evidence-" });
  try {
    await fillStore(dir);
    const samples = await interleave(() => run("zip", dir), () => run("concat", dir));
    const growth = compare(samples, (z) => z.growth / MB, (c) => c.growth / MB);
    const sizes = `ZIP ${(samples.service[0].bytes / MB).toFixed(1)} MB, photos ` +
      `${(samples.baseline[0].bytes / MB).toFixed(1)} MB`;
    return [{
      figure: `evidence ZIP of a claim with ${PARTS} parts, ${
        PARTS * 2
      } photos of 1 MB: peak RSS growth (MB)`,
      service: growth.service,
      vs: "baseline",
      baseline: growth.baseline,
      ratio: growth.ratio,
      note: `baseline: the same photos streamed concatenated, no ZIP; a fresh process a run; ${sizes}; ` +
        "budget < ~30 MB of growth",
    }];
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  if (Deno.args[0] === "--child") await child(Deno.args[1], Deno.args[2]);
  else console.log(await benchEvidenceZip());
}
