/**
 * Upload of 4 MB photos at concurrency 8: MB/s through the real path (2a tokens minted untimed, 2b timed)
 * against bench/baseline_upload_server.ts, a bare Deno.serve that streams the body to a file with the
 * same durable work (SHA-256, fsync, rename, a `photos` row); and the service's peak memory growth while
 * it runs, against a 64 MB budget. Equal samples on both sides, each after its own warm-up, interleaved
 * rounds (bench/pairs.ts). Every upload carries distinct bytes (no side is spared work by deduplication).
 */
import { sql } from "kysely";
import { BENCH_DRIVER } from "@/bench/generate.ts";
import { assertNoFailures, runLoad } from "@/bench/load.ts";
import { compare, interleave, sized, spreadOf } from "@/bench/pairs.ts";
import type { BenchRow } from "@/bench/report.ts";
import type { BenchTarget } from "@/bench/target.ts";
import { startChild, withPeakRss } from "@/bench/process.ts";
import { BENCH_PUBLIC_KEY, serviceEnv } from "@/bench/target.ts";

const PHOTO_BYTES = 4 * 1024 * 1024;
const CONCURRENCY = 8;
const UPLOADS = sized(48, 16);
const WARMUP = sized(16, 8);
const GROWTH_BUDGET_MB = 64;
const MB = 1e6;

/** A JPEG: the fixture's header and image, then random padding up to 4 MB. */
async function photoBodies(count: number): Promise<Uint8Array<ArrayBuffer>[]> {
  const jpeg = await Deno.readFile(new URL("../tests/fixtures/photo.jpg", import.meta.url));
  return Array.from({ length: count }, () => {
    const body = new Uint8Array(PHOTO_BYTES);
    body.set(jpeg);
    for (let i = jpeg.length; i < PHOTO_BYTES; i += 65536) {
      crypto.getRandomValues(body.subarray(i, Math.min(PHOTO_BYTES, i + 65536)));
    }
    return body;
  });
}

/** New random bytes at the end of every body, so each load sends photos never stored before. */
function freshen(bodies: Uint8Array<ArrayBuffer>[]): Uint8Array<ArrayBuffer>[] {
  for (const b of bodies) crypto.getRandomValues(b.subarray(PHOTO_BYTES - 32));
  return bodies;
}

const form = (bytes: Uint8Array) => {
  const f = new FormData();
  f.append("file", new Blob([bytes as BlobPart], { type: "image/jpeg" }), "photo.jpg");
  return f;
};

type Target = { url: string; headers: Record<string, string> };

/** Uploads `bodies` to `targets` at CONCURRENCY; every answer must be the protocol's success. */
export async function uploadAll(targets: Target[], bodies: Uint8Array[], what: string) {
  const result = await runLoad(bodies.length, CONCURRENCY, async (i) => {
    const res = await fetch(targets[i].url, {
      method: "POST",
      headers: targets[i].headers,
      body: form(bodies[i]),
    });
    return res.ok && (await res.json()).code === 3000;
  });
  assertNoFailures(what, result);
  return result;
}

/** 2a for `count` uploads of `part` (untimed), giving each its 2b address and token. */
export async function mintTargets(
  serviceUrl: string,
  part: { id: number; registration: string },
  count: number,
) {
  const targets: Target[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${serviceUrl}/api/handler?publickey=${BENCH_PUBLIC_KEY}`, {
      method: "POST",
      body: JSON.stringify({
        payload: {
          event_type: "parts_movement_upload_token",
          user_email: BENCH_DRIVER,
          Parts_Order: String(part.id),
          Movement_Stage: "direct_dropoff",
          rego: part.registration,
        },
      }),
    });
    const d = (await res.json()).result.data;
    targets.push({
      url: serviceUrl +
        `/api/v2.1/data/${d.app_owner}/${d.app_name}/report/${d.report_name}/${d.record_id}/${d.field_name}/upload`,
      headers: { authorization: `Zoho-oauthtoken ${d.token}` },
    });
  }
  return targets;
}

export async function benchUpload(target: BenchTarget): Promise<BenchRow[]> {
  const db = target.open();
  const part =
    (await sql<{ id: number; registration: string }>`select p.id, c.registration from parts_orders p
    join claims c on c.id = p.claim_id where p.status = 'Arrived' order by p.id limit 1`.execute(db)).rows[0];
  await db.destroy();
  const warm = await photoBodies(WARMUP);
  const timed = await photoBodies(UPLOADS);

  const service = async () => {
    const child = await startChild("tasks/start.ts", {
      ...serviceEnv(target),
      MAX_PHOTO_BYTES: String(8 * MB),
    });
    try {
      const targets = await mintTargets(child.url, part, WARMUP + UPLOADS);
      await uploadAll(targets.slice(0, WARMUP), freshen(warm), "upload warm-up (service)");
      const before = await child.rss();
      const { result, peak } = await withPeakRss(
        child.rss,
        () => uploadAll(targets.slice(WARMUP), freshen(timed), "upload (service)"),
      );
      return { seconds: result.seconds, growth: peak - before };
    } finally {
      await child.stop();
    }
  };
  const bare = async () => {
    const child = await startChild("bench/baseline_upload_server.ts", {
      ...target.env,
      UPLOAD_DIR: `${target.dataDir}/baseline-upload`,
    });
    try {
      const targets = Array.from({ length: UPLOADS }, () => ({ url: `${child.url}/upload`, headers: {} }));
      await uploadAll(targets.slice(0, WARMUP), freshen(warm), "upload warm-up (baseline)");
      return { seconds: (await uploadAll(targets, freshen(timed), "upload (baseline)")).seconds };
    } finally {
      await child.stop();
    }
  };
  const samples = await interleave(service, bare);
  const megabytes = (UPLOADS * PHOTO_BYTES) / MB;
  const speed = compare(samples, (s) => megabytes / s.seconds, (b) => megabytes / b.seconds);
  const growth = spreadOf(samples.service.map((s) => s.growth / MB));
  return [
    {
      figure: `upload of 4 MB photos, c=${CONCURRENCY} (MB/s)`,
      service: speed.service,
      vs: "baseline",
      baseline: speed.baseline,
      ratio: speed.ratio,
      note:
        "baseline: bare Deno.serve streaming the body to a file with SHA-256 (a write and a hash update " +
        "a 64 KiB chunk, the fastest bare technique measured: bench/profiles/upload.ts baseline), fsync " +
        `(file and folder) and a photos row; ${UPLOADS} uploads a sample after ${WARMUP} untimed`,
      target: "≥ 0.75",
    },
    {
      figure: "upload: service peak memory growth (MB)",
      service: growth,
      vs: "budget",
      baseline: GROWTH_BUDGET_MB,
      ratio: growth.median / GROWTH_BUDGET_MB,
      note: "peak VmRSS during the timed uploads minus VmRSS before them",
    },
  ];
}
