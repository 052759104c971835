/** Contains-search p99 with the trigram GIN index against the same query with the index dropped. */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { matchingVehicles } from "@/db/queries/claims.ts";
import { percentile } from "@/bench/load.ts";
import type { BenchRow, BenchTarget } from "@/tasks/bench.ts";

async function p99(db: Db, fragments: string[]): Promise<number> {
  const times: number[] = [];
  for (const f of fragments) {
    const t0 = performance.now();
    // Four characters never match exactly (registrations have six), so this is the contains query.
    await matchingVehicles(db, f, 6);
    times.push(performance.now() - t0);
  }
  return percentile(times.sort((a, b) => a - b), 99);
}

export async function benchTrigram(target: BenchTarget, claims: number): Promise<BenchRow[]> {
  const db = target.open();
  try {
    const regos = (await sql<
      { r: string }
    >`select registration_norm as r from claims order by md5('sample' || id::text) limit 300`
      .execute(db)).rows.map((x) => x.r);
    const fragments = regos.map((r) => r.slice(1, 5));
    const withIndex = await p99(db, fragments);
    await sql`drop index claims_registration_norm_trgm`.execute(db);
    // A sequential scan per query: fewer of them keep the run short on a million claims.
    const withoutIndex = await p99(db, fragments.slice(0, 60));
    await sql`create index claims_registration_norm_trgm on claims using gin (registration_norm gin_trgm_ops)`
      .execute(db);
    return [{
      figure: `contains-search p99 at ${claims} claims (ms)`,
      service: withIndex.toFixed(1),
      baseline: withoutIndex.toFixed(1),
      ratio: (withIndex / withoutIndex).toFixed(3),
      note: "baseline: the same query without the pg_trgm index",
    }];
  } finally {
    await db.destroy();
  }
}
