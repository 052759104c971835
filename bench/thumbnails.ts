/**
 * Thumbnail memory under a burst (docs/performance.md "Memory and start-up"): 8 photos of 49 megapixels
 * uploaded at once through the real path (2a untimed, 2b), then their 8 thumbnails asked for at once, as a
 * dashboard's first view of them does. The figure is the service's peak VmRSS during the burst over its
 * VmRSS just before it, with the thumbnail cap at its default (THUMBNAIL_CONCURRENCY unset: the cores),
 * against the same service with THUMBNAIL_CONCURRENCY=8, where every decode of the burst runs at once as
 * it did before the cap. A fresh child a sample, after a warm-up that loads sharp with a small photo's
 * thumbnail; interleaved rounds (bench/pairs.ts); the photos' thumbnails are forgotten between samples so
 * every burst decodes all 8.
 *
 * The photos are PNGs (noise at 1/8 scale, enlarged: 4 MB, under MAX_PHOTO_BYTES): libvips decodes a PNG
 * whole, while a JPEG or WebP shrinks by up to 8 while it decodes, so 8 JPEGs of 49 MP at once grow a
 * process by about 20 MB and would show no difference.
 * Alone: `deno task bench --only thumbnails`.
 */
import { sql } from "kysely";
import sharp from "sharp";
import { createHash } from "node:crypto";
import type { Db } from "@/db/client.ts";
import { BENCH_DISPATCHER } from "@/bench/generate_scale.ts";
import { seedSession } from "@/bench/dashboard.ts";
import { mintTargets, uploadAll } from "@/bench/upload.ts";
import { compare, interleave } from "@/bench/pairs.ts";
import { startChild, withPeakRss } from "@/bench/process.ts";
import type { BenchRow } from "@/bench/report.ts";
import { type BenchTarget, serviceEnv } from "@/bench/target.ts";

const PHOTOS = 8;
const EDGE = 7000; // 49 megapixels, under MAX_PIXELS (50)
const GROWTH_BUDGET_MB = 150;
const MB = 1e6;

/** A 49 MP PNG of random 8×8 blocks: not trivially compressible, still well under 10 MiB. */
async function noisyPng(): Promise<Uint8Array<ArrayBuffer>> {
  const side = EDGE / 8;
  const noise = new Uint8Array(side * side * 3);
  for (let i = 0; i < noise.length; i += 65_536) {
    crypto.getRandomValues(noise.subarray(i, Math.min(noise.length, i + 65_536)));
  }
  const png = await sharp(noise, { raw: { width: side, height: side, channels: 3 } })
    .resize(EDGE, EDGE, { kernel: "nearest" }).png({ compressionLevel: 9 }).toBuffer();
  return new Uint8Array(png);
}

/** A photo's content address (io/photo_storage.ts): its SHA-256 in hex. */
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Every thumbnail forgotten, so the next burst decodes its photos again (the files may stay). */
async function forgetThumbnails(db: Db): Promise<void> {
  await sql`update photos set thumb_key = null`.execute(db);
}

interface Sample {
  growth: number;
  /** Seconds from the first thumbnail request to the last answer. */
  thumbSeconds: number;
}

export async function benchThumbnails(target: BenchTarget): Promise<BenchRow[]> {
  const photos = await Promise.all(Array.from({ length: PHOTOS }, noisyPng));
  const warmPhoto = await Deno.readFile(new URL("../tests/fixtures/photo.jpg", import.meta.url));
  let db = target.open();
  const part =
    (await sql<{ id: number; registration: string }>`select p.id, c.registration from parts_orders p
    join claims c on c.id = p.claim_id where p.status = 'Arrived' order by p.id limit 1`.execute(db)).rows[0];
  await sql`insert into users (email, name, role) values (${BENCH_DISPATCHER}, 'Bench Dispatcher', 'dispatcher')
    on conflict do nothing`.execute(db);
  const cookie = await seedSession(db);
  await db.destroy();

  /** One burst against a fresh child; `ids` are the photos' rows (known after the first upload). */
  const sample = (env: Record<string, string>) => async (): Promise<Sample> => {
    const child = await startChild("tasks/start.ts", { ...serviceEnv(target), ...env });
    try {
      const targets = await mintTargets(child.url, part, PHOTOS + 1);
      await uploadAll(targets.slice(0, 1), [warmPhoto], "thumbnail warm-up upload");
      const thumbOf = async (id: number) => {
        const res = await fetch(`${child.url}/photos/${id}/thumb`, { headers: { cookie } });
        const type = res.headers.get("content-type");
        await res.body?.cancel();
        if (res.status !== 200 || type !== "image/jpeg") {
          throw new Error(`thumbnail ${id}: ${res.status} ${type}`);
        }
      };
      await thumbOf(warmId);
      const before = await child.rss();
      const { result, peak } = await withPeakRss(child.rss, async () => {
        await uploadAll(targets.slice(1), photos, "49 MP uploads");
        const t0 = performance.now();
        await Promise.all(ids.map(thumbOf));
        return (performance.now() - t0) / 1000;
      });
      return { growth: (peak - before) / MB, thumbSeconds: result };
    } finally {
      await child.stop();
      db = target.open();
      await forgetThumbnails(db);
      await db.destroy();
    }
  };

  // The photos' rows: one untimed upload of each, then looked up by their content address.
  let ids: number[] = [];
  let warmId = 0;
  {
    const child = await startChild("tasks/start.ts", serviceEnv(target));
    try {
      const targets = await mintTargets(child.url, part, PHOTOS + 1);
      await uploadAll(targets, [warmPhoto, ...photos], "thumbnail bench setup uploads");
    } finally {
      await child.stop();
    }
    db = target.open();
    const keys = [warmPhoto, ...photos].map(sha256);
    const rows = await db.selectFrom("photos").select(["id", "storage_key"]).where("storage_key", "in", keys)
      .execute();
    await db.destroy();
    const idOf = (key: string) => rows.find((r) => r.storage_key === key)?.id ?? 0;
    [warmId, ...ids] = keys.map(idOf);
    if (!warmId || ids.length !== PHOTOS || ids.includes(0)) {
      throw new Error("thumbnail bench: photos not stored");
    }
  }

  const samples = await interleave(sample({}), sample({ THUMBNAIL_CONCURRENCY: String(PHOTOS) }));
  const growth = compare(samples, (s) => s.growth, (b) => b.growth);
  const time = compare(samples, (s) => s.thumbSeconds, (b) => b.thumbSeconds);
  const vs = `same service, THUMBNAIL_CONCURRENCY=${PHOTOS} (no cap)` as const;
  const cores = `the cap: ${navigator.hardwareConcurrency} (the cores)`;
  const sizes = `PNGs of ${(photos[0].length / 2 ** 20).toFixed(1)} MiB`;
  return [
    {
      figure: `${PHOTOS} uploads of 49 MP photos, then their thumbnails at once: peak RSS growth (MB)`,
      service: growth.service,
      vs,
      baseline: growth.baseline,
      ratio: growth.ratio,
      note: `peak VmRSS during the burst minus VmRSS before it; ${cores}; ${sizes}`,
    },
    {
      figure: "thumbnail burst with the cap: peak RSS growth (MB)",
      service: growth.service,
      vs: "budget",
      baseline: GROWTH_BUDGET_MB,
      ratio: growth.service.median / GROWTH_BUDGET_MB,
      target: `≤ ${GROWTH_BUDGET_MB} MB`,
    },
    {
      figure: `${PHOTOS} thumbnails of 49 MP photos at once: time to the last (s)`,
      service: time.service,
      vs,
      baseline: time.baseline,
      ratio: time.ratio,
      note: cores,
    },
  ];
}
