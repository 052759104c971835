/**
 * Photo stores side by side (PHOTO_STORE disk, postgres, s3): for each, the real service as a child process
 * and two figures: uploads of 4 MB photos at c=8 (MB/s, 2a first, 2b timed) and whole drop-offs with their
 * photo (2a, 2b of a 1 MB photo, the submission) per second at c=4, each run after an untimed warm-up.
 * Each shared store is paired with disk (bench/pairs.ts: interleaved rounds, which goes first alternating):
 * the same service with the default store, not a bare baseline. The s3 store runs against
 * s3rver on loopback (testkit/s3_server.ts): a protocol stand-in that writes to the same disk, so its
 * figure is the cost of the S3 path (signing, HTTP, verification), not of a real object store's network.
 */
import { sql } from "kysely";
import { BENCH_DRIVER } from "@/bench/generate.ts";
import { assertNoFailures, runLoad } from "@/bench/load.ts";
import { compare, interleave, ROUNDS, sized } from "@/bench/pairs.ts";
import { startChild } from "@/bench/process.ts";
import { BENCH_PUBLIC_KEY, serviceEnv } from "@/bench/target.ts";
import type { BenchRow } from "@/bench/report.ts";
import type { BenchTarget } from "@/bench/target.ts";
import { startS3Server } from "@/testkit/s3_server.ts";

const STORES = ["disk", "postgres", "s3"] as const;
type Store = (typeof STORES)[number];
const UPLOADS = sized(24, 8);
const WARMUP = sized(4, 2);
const UPLOAD_BYTES = 4 * 1024 * 1024;
const UPLOAD_CONCURRENCY = 8;
const DROP_OFFS = sized(16, 4);
const DROP_OFF_BYTES = 1024 * 1024;
const DROP_OFF_CONCURRENCY = 4;

interface Part {
  id: number;
  registration: string;
  repairer: number;
}

/** JPEGs of `size` bytes: the fixture's image, then random padding (each one distinct). */
async function photos(count: number, size: number): Promise<Uint8Array[]> {
  const jpeg = await Deno.readFile(new URL("../tests/fixtures/photo.jpg", import.meta.url));
  return Array.from({ length: count }, () => {
    const body = new Uint8Array(size);
    body.set(jpeg);
    for (let i = jpeg.length; i < size; i += 65536) {
      crypto.getRandomValues(body.subarray(i, Math.min(size, i + 65536)));
    }
    return body;
  });
}

const form = (bytes: Uint8Array) => {
  const f = new FormData();
  f.append("file", new Blob([bytes as BlobPart], { type: "image/jpeg" }), "photo.jpg");
  return f;
};

async function handler(url: string, payload: unknown) {
  const res = await fetch(`${url}/api/handler?publickey=${BENCH_PUBLIC_KEY}`, {
    method: "POST",
    body: JSON.stringify({ payload }),
  });
  return await res.json();
}

async function mint(url: string, part: Part) {
  const d = (await handler(url, {
    event_type: "parts_movement_upload_token",
    user_email: BENCH_DRIVER,
    Parts_Order: String(part.id),
    Movement_Stage: "direct_dropoff",
    rego: part.registration,
  })).result.data;
  return {
    recordId: d.record_id as number,
    path:
      `/api/v2.1/data/${d.app_owner}/${d.app_name}/report/${d.report_name}/${d.record_id}/${d.field_name}/upload`,
    token: d.token as string,
  };
}

async function upload(url: string, m: { path: string; token: string }, bytes: Uint8Array) {
  const res = await fetch(url + m.path, {
    method: "POST",
    headers: { authorization: `Zoho-oauthtoken ${m.token}` },
    body: form(bytes),
  });
  return res.ok && (await res.json()).code === 3000;
}

/** One run of both figures on `store`; `parts` are fresh Arrived parts for the drop-offs. */
async function run(target: BenchTarget, store: Store, s3Env: Record<string, string>, parts: Part[]) {
  const service = await startChild("tasks/start.ts", {
    ...serviceEnv(target),
    PHOTO_STORE: store,
    ...(store === "s3" ? s3Env : {}),
    MAX_PHOTO_BYTES: String(8 * 1024 * 1024),
  });
  try {
    const big = await photos(WARMUP + UPLOADS, UPLOAD_BYTES);
    const tokens: Awaited<ReturnType<typeof mint>>[] = [];
    for (let i = 0; i < WARMUP + UPLOADS; i++) tokens.push(await mint(service.url, parts[0]));
    const warm = await runLoad(WARMUP, UPLOAD_CONCURRENCY, (i) => upload(service.url, tokens[i], big[i]));
    const uploads = await runLoad(
      UPLOADS,
      UPLOAD_CONCURRENCY,
      (i) => upload(service.url, tokens[WARMUP + i], big[WARMUP + i]),
    );

    const small = await photos(DROP_OFFS, DROP_OFF_BYTES);
    const dropOffs = await runLoad(DROP_OFFS, DROP_OFF_CONCURRENCY, async (i) => {
      const part = parts[1 + i];
      const m = await mint(service.url, part);
      if (!await upload(service.url, m, small[i])) return false;
      const answer = await handler(service.url, {
        event_type: "parts_drop_off",
        user_email: BENCH_DRIVER,
        details: {
          rego: part.registration,
          movement_type: "direct",
          delivery_location: { id: String(part.repairer), name: "Bench Repairer" },
          parts: [{ parts_order_id: String(part.id), confirm: true, image_id: String(m.recordId) }],
        },
      });
      return answer.result?.status === "success";
    });
    assertNoFailures(`photo store ${store}`, warm, uploads, dropOffs);
    return { mbps: (UPLOADS * UPLOAD_BYTES) / 1e6 / uploads.seconds, perSecond: dropOffs.rps };
  } finally {
    await service.stop();
  }
}

export async function benchPhotoStores(target: BenchTarget): Promise<BenchRow[]> {
  // Arrived parts of claims whose registration is unique (a search finds exactly that claim).
  const runs = ROUNDS * 2 * (STORES.length - 1);
  const db = target.open();
  const parts = (await sql<Part>`select p.id, c.registration, cm.repairer_id as repairer from parts_orders p
    join claims c on c.id = p.claim_id join claim_management cm on cm.claim_id = c.id
    where p.status = 'Arrived' and c.registration in
      (select registration from claims group by registration having count(*) = 1)
    order by p.id limit ${runs * (DROP_OFFS + 1)}`.execute(db)).rows;
  await db.destroy();
  if (parts.length < runs * (DROP_OFFS + 1)) throw new Error("photo stores: too few parts");

  await using s3 = await startS3Server();
  let next = 0;
  const runOn = (store: Store) => run(target, store, s3.env, parts.slice(next, next += DROP_OFFS + 1));
  const rows: BenchRow[] = [];
  for (const store of STORES.filter((s) => s !== "disk")) {
    const samples = await interleave(() => runOn(store), () => runOn("disk"));
    const mbps = compare(samples, (s) => s.mbps, (b) => b.mbps);
    const perSecond = compare(samples, (s) => s.perSecond, (b) => b.perSecond);
    rows.push(
      {
        figure: `photo store ${store}: upload 4 MB, c=${UPLOAD_CONCURRENCY} (MB/s)`,
        service: mbps.service,
        vs: "same service, disk store",
        baseline: mbps.baseline,
        ratio: mbps.ratio,
        note: `${UPLOADS} uploads a run after ${WARMUP} untimed`,
      },
      {
        figure: `photo store ${store}: drop-off with a 1 MB photo, c=${DROP_OFF_CONCURRENCY} (/s)`,
        service: perSecond.service,
        vs: "same service, disk store",
        baseline: perSecond.baseline,
        ratio: perSecond.ratio,
        note: `2a + 2b + the submission, ${DROP_OFFS} a run`,
      },
    );
  }
  return rows;
}
