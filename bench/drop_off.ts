/**
 * Direct drop-offs of 1, 10 and 50 parts through the real handler: movements/s at concurrency 4, and SQL
 * statements per submission (counted by a Kysely plugin on an in-process app). The baseline of each size
 * is the 1-part submission, so the ratio shows what each extra part costs; the statement count should
 * not grow at all (set-based writes).
 */
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from "kysely";
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { systemClock } from "@/io/clock.ts";
import { testConfig } from "@/io/config.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { createApp } from "@/main.ts";
import { BENCH_DRIVER } from "@/bench/generate.ts";
import { assertNoFailures, runLoad } from "@/bench/load.ts";
import type { BenchRow, BenchTarget } from "@/tasks/bench.ts";
import { startChild } from "@/bench/process.ts";
import { BENCH_PUBLIC_KEY, serviceEnv } from "@/bench/search.ts";

const SIZES = [1, 10, 50];
/** Movements per size: enough for a stable rate, few enough for a 10-minute bench. */
const MOVEMENTS: Record<number, number> = { 1: 300, 10: 120, 50: 40 };
const CONCURRENCY = 4;
/** Untimed 1-part drop-offs first, so the first timed size does not pay for JIT and cold caches. */
const WARMUP = 40;

class StatementCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs) {
    return args.node;
  }
  transformResult(args: PluginTransformResultArgs) {
    this.count++;
    return Promise.resolve(args.result);
  }
}

export interface Job {
  rego: string;
  parts: { part: number; image: number }[];
}

/** Claims of `size` Arrived parts, each part with a staged photo, written set-based. */
export async function seed(
  db: Db,
  size: number,
  count: number,
  tag: string,
): Promise<{ jobs: Job[]; shop: number }> {
  const shop = (await sql<{ id: number }>`select min(id) as id from repairers`.execute(db)).rows[0].id;
  const photo =
    (await sql<{ id: number }>`insert into photos (storage_key, content_type, byte_size, width, height)
    values (md5(${tag}) || md5(${tag} || 'x'), 'image/jpeg', 1, 1, 1)
    on conflict (storage_key) do update set byte_size = 1 returning id`.execute(db)).rows[0].id;
  await sql`insert into claims (claim_number, registration)
    select ${tag} || '-' || g, ${tag} || g from generate_series(1, ${count}::int) g`.execute(db);
  await sql`insert into claim_management (claim_id, repairer_id)
    select id, ${shop}::int from claims where claim_number like ${tag + "-%"}`.execute(db);
  await sql`insert into parts_orders (claim_id, part_no, description, qty_ordered, status)
    select c.id, ${tag} || '-' || c.id || '-' || k, 'Bench part', 1, 'Arrived'
    from claims c, generate_series(1, ${size}::int) k where c.claim_number like ${tag + "-%"}`.execute(db);
  await sql`insert into uploaded_images (part_id, claim_id, movement_stage, uploaded_by, uploaded_time, photo_id)
    select p.id, p.claim_id, 'direct_dropoff', (select id from users where email = ${BENCH_DRIVER}), now(), ${photo}::int
    from parts_orders p join claims c on c.id = p.claim_id where c.claim_number like ${tag + "-%"}`.execute(
    db,
  );
  const rows = (await sql<{ registration: string; part: number; image: number }>`
    select c.registration, p.id as part, i.id as image from claims c
    join parts_orders p on p.claim_id = c.id join uploaded_images i on i.part_id = p.id
    where c.claim_number like ${tag + "-%"} order by c.id, p.id`.execute(db)).rows;
  const byRego = new Map<string, Job>();
  for (const r of rows) {
    const job = byRego.get(r.registration) ?? { rego: r.registration, parts: [] };
    job.parts.push({ part: r.part, image: r.image });
    byRego.set(r.registration, job);
  }
  return { jobs: [...byRego.values()], shop };
}

export const payload = (job: Job, shop: number) => ({
  payload: {
    event_type: "parts_drop_off",
    user_email: BENCH_DRIVER,
    details: {
      rego: job.rego,
      movement_type: "direct",
      delivery_location: { id: String(shop), name: "Bench Repairer" },
      parts: job.parts.map((p) => ({
        parts_order_id: String(p.part),
        confirm: true,
        image_id: String(p.image),
      })),
    },
  },
});

/** Statements of one submission per size, through the handler of an in-process app. */
async function countStatements(target: BenchTarget): Promise<Record<number, number>> {
  const db = target.open();
  const counts: Record<number, number> = {};
  try {
    for (const size of SIZES) {
      const { jobs, shop } = await seed(db, size, 1, `BCS${size}`);
      const counter = new StatementCounter();
      const config = { ...testConfig(), publicKey: BENCH_PUBLIC_KEY };
      const app = createApp({
        db: db.withPlugin(counter),
        config,
        clock: systemClock,
        storage: new DiskPhotoStore(`${target.dataDir}/count-photos`),
      });
      const res = await app.request(`/api/handler?publickey=${BENCH_PUBLIC_KEY}`, {
        method: "POST",
        body: JSON.stringify(payload(jobs[0], shop)),
      });
      const body = await res.json();
      if (body.result?.status !== "success") {
        throw new Error(`statement count run failed: ${JSON.stringify(body)}`);
      }
      counts[size] = counter.count;
    }
  } finally {
    await db.destroy();
  }
  return counts;
}

export async function benchDropOff(target: BenchTarget): Promise<BenchRow[]> {
  const statements = await countStatements(target);
  const db = target.open();
  const seeded: Record<number, { jobs: Job[]; shop: number }> = {};
  for (const size of SIZES) seeded[size] = await seed(db, size, MOVEMENTS[size], `BDO${size}`);
  const warmup = await seed(db, 1, WARMUP, "BDOW");
  await db.destroy();

  const service = await startChild("tasks/start.ts", serviceEnv(target));
  const rates: Record<number, number> = {};
  const submitAll = ({ jobs, shop }: { jobs: Job[]; shop: number }) =>
    runLoad(jobs.length, CONCURRENCY, async (i) => {
      const res = await fetch(`${service.url}/api/handler?publickey=${BENCH_PUBLIC_KEY}`, {
        method: "POST",
        body: JSON.stringify(payload(jobs[i], shop)),
      });
      return (await res.json()).result?.status === "success";
    });
  try {
    assertNoFailures("drop-off warm-up", await submitAll(warmup));
    for (const size of SIZES) {
      const result = await submitAll(seeded[size]);
      assertNoFailures(`drop-off of ${size} parts`, result);
      rates[size] = result.rps;
    }
  } finally {
    await service.stop();
  }
  return SIZES.flatMap((size) => [
    {
      figure: `drop-off of ${size} part${size > 1 ? "s" : ""}: movements/s (c=${CONCURRENCY})`,
      service: rates[size].toFixed(1),
      baseline: rates[1].toFixed(1),
      ratio: (rates[size] / rates[1]).toFixed(2),
      note: `not a baseline: the same service, 1 part; ${(rates[size] * size).toFixed(0)} parts/s`,
    },
    {
      figure: `drop-off of ${size} part${size > 1 ? "s" : ""}: SQL statements`,
      service: String(statements[size]),
      baseline: String(statements[1]),
      ratio: (statements[size] / statements[1]).toFixed(2),
      note:
        "not a baseline: the same service, 1 part (same count for any number of parts; statements only, no BEGIN/COMMIT)",
    },
  ]);
}
