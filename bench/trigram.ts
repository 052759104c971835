/**
 * Contains-search p99 with the trigram GIN index against the same query without it: the same fragments
 * (equal samples), one at a time on one connection on both sides (same concurrency), each side warmed up,
 * interleaved rounds. The unindexed side drops the index inside a transaction that is rolled back, so
 * nothing has to be rebuilt between rounds; the indexed side runs inside a transaction too, alike.
 */
import { sql } from "kysely";
import type { Transaction } from "kysely";
import type { Database } from "@/db/schema.ts";
import { matchingVehicles } from "@/db/queries/claims.ts";
import { percentile } from "@/bench/load.ts";
import { compare, interleave, sized } from "@/bench/pairs.ts";
import type { BenchRow } from "@/bench/report.ts";
import type { BenchTarget } from "@/bench/target.ts";

const QUERIES = sized(300, 100);
const WARMUP = sized(30, 10);

/** Rolls the transaction back after `fn` (the dropped index comes back with it). */
class Rollback extends Error {}

async function p99(tx: Transaction<Database>, fragments: string[]): Promise<number> {
  // Four characters never match exactly (registrations have six), so this is the contains query.
  for (const f of fragments.slice(0, WARMUP)) await matchingVehicles(tx, f, 6);
  const times: number[] = [];
  for (const f of fragments.slice(WARMUP)) {
    const t0 = performance.now();
    await matchingVehicles(tx, f, 6);
    times.push(performance.now() - t0);
  }
  return percentile(times.sort((a, b) => a - b), 99);
}

export async function benchTrigram(target: BenchTarget, claims: number): Promise<BenchRow[]> {
  const db = target.open();
  try {
    const fragments = (await sql<{ r: string }>`select registration_norm as r from claims
      order by md5('sample' || id::text) limit ${QUERIES + WARMUP}`.execute(db)).rows.map((x) =>
      x.r.slice(1, 5)
    );
    const side = (dropIndex: boolean) => async () => {
      let result = NaN;
      await db.transaction().execute(async (tx) => {
        if (dropIndex) await sql`drop index claims_registration_norm_trgm`.execute(tx);
        result = await p99(tx, fragments);
        throw new Rollback();
      }).catch((e) => {
        if (!(e instanceof Rollback)) throw e;
      });
      return result;
    };
    const samples = await interleave(side(false), side(true));
    const c = compare(samples, (s) => s, (b) => b);
    return [{
      figure: `contains-search p99 at ${claims} claims (ms)`,
      service: c.service,
      vs: "baseline",
      baseline: c.baseline,
      ratio: c.ratio,
      note: `baseline: the same query without the pg_trgm index; ${QUERIES} queries a side, c=1, ` +
        `after ${WARMUP} untimed`,
    }];
  } finally {
    await db.destroy();
  }
}
