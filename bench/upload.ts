/**
 * Upload of a 4 MB photo at concurrency 8: MB/s through the real 2a + 2b path against a bare Deno.serve
 * streaming the same body to a file, and the service's peak memory growth while it runs (aim < 64 MB).
 */
import { sql } from "kysely";
import { BENCH_DRIVER } from "@/bench/generate.ts";
import { assertNoFailures, type LoadResult, runLoad } from "@/bench/load.ts";
import type { BenchRow, BenchTarget } from "@/tasks/bench.ts";
import { startChild, withPeakRss } from "@/bench/process.ts";
import { BENCH_PUBLIC_KEY, serviceEnv } from "@/bench/search.ts";

const PHOTO_BYTES = 4 * 1024 * 1024;
const CONCURRENCY = 8;
const UPLOADS = 48;

/** A JPEG: the fixture's header and image, then random padding up to 4 MB (each body is distinct). */
async function photoBodies(count: number): Promise<Uint8Array[]> {
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

const form = (bytes: Uint8Array) => {
  const f = new FormData();
  f.append("file", new Blob([bytes as BlobPart], { type: "image/jpeg" }), "photo.jpg");
  return f;
};

export async function benchUpload(target: BenchTarget): Promise<BenchRow[]> {
  const db = target.open();
  const part =
    (await sql<{ id: number; registration: string }>`select p.id, c.registration from parts_orders p
    join claims c on c.id = p.claim_id where p.status = 'Arrived' order by p.id limit 1`.execute(db)).rows[0];
  await db.destroy();
  const bodies = await photoBodies(UPLOADS);
  const megabytes = (UPLOADS * PHOTO_BYTES) / 1e6;

  const service = await startChild("tasks/start.ts", {
    ...serviceEnv(target),
    MAX_PHOTO_BYTES: String(8 * 1024 * 1024),
  });
  let ours: LoadResult & { growth: number };
  try {
    // Call 2a for every upload first, so the timed part is the file transfer (2b) alone.
    const targets: { path: string; token: string }[] = [];
    for (let i = 0; i < UPLOADS; i++) {
      const res = await fetch(`${service.url}/api/handler?publickey=${BENCH_PUBLIC_KEY}`, {
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
        path:
          `/api/v2.1/data/${d.app_owner}/${d.app_name}/report/${d.report_name}/${d.record_id}/${d.field_name}/upload`,
        token: d.token,
      });
    }
    const before = await service.rss();
    const { result, peak } = await withPeakRss(service.rss, () =>
      runLoad(UPLOADS, CONCURRENCY, async (i) => {
        const res = await fetch(service.url + targets[i].path, {
          method: "POST",
          headers: { authorization: `Zoho-oauthtoken ${targets[i].token}` },
          body: form(bodies[i]),
        });
        return res.ok && (await res.json()).code === 3000;
      }));
    ours = { ...result, growth: peak - before };
  } finally {
    await service.stop();
  }

  const bare = await startChild("bench/baseline_upload_server.ts", {
    DATA_DIR: `${target.dataDir}/baseline-upload`,
  });
  const base = await runLoad(UPLOADS, CONCURRENCY, async (i) => {
    const res = await fetch(bare.url + "/upload", { method: "POST", body: form(bodies[i]) });
    return res.ok && (await res.json()).code === 3000;
  }).finally(() => bare.stop());
  assertNoFailures("upload", ours, base);

  return [
    {
      figure: `upload 4 MB photos, c=${CONCURRENCY} (MB/s)`,
      service: (megabytes / ours.seconds).toFixed(1),
      baseline: (megabytes / base.seconds).toFixed(1),
      ratio: (base.seconds / ours.seconds).toFixed(2),
      note: "baseline: bare Deno.serve streaming the body to a file",
    },
    {
      figure: "upload: service peak memory growth (MB)",
      service: (ours.growth / 1e6).toFixed(1),
      baseline: "64 (aim)",
      ratio: (ours.growth / 64e6).toFixed(2),
      note: "RSS peak during the uploads minus RSS before",
    },
  ];
}
