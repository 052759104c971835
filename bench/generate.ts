/**
 * Generated bench data, written set-based by the database itself (generate_series), so a million claims
 * load in seconds rather than through a million round trips. Registrations are six hex-ish characters
 * from md5, so fragments match a realistic handful of vehicles.
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";

export const BENCH_DRIVER = "bench@depot.example";

export async function fillClaims(db: Db, claims: number): Promise<void> {
  await sql`insert into hq_locations (name) values ('Bench HQ') on conflict do nothing`.execute(db);
  await sql`insert into repairers (name) select 'Bench Repairer ' || g from generate_series(1, 20) g
    on conflict do nothing`.execute(db);
  await sql`insert into users (email, name, role) values (${BENCH_DRIVER}, 'Bench Driver', 'driver')
    on conflict do nothing`.execute(db);
  const batch = 100_000;
  for (let from = 1; from <= claims; from += batch) {
    const to = Math.min(claims, from + batch - 1);
    // One statement a batch, the claims' new ids passed along: joining back on claim_number, PostgreSQL, with
    // no statistics yet for the new rows, chose the claim number's trigram index for every lookup, whose
    // trigrams ('bch', 'ch-', …) every bench claim shares (the server's fill of 10 000 claims took 461 s).
    await sql`with new_claims as (
        insert into claims (claim_number, registration, created_at)
        select 'BCH-' || g, upper(substr(md5(g::text), 1, 6)), now() - make_interval(secs => g)
        from generate_series(${from}::int, ${to}::int) g
        returning id
      ), managed as (
        insert into claim_management (claim_id, repairer_id)
        select c.id, (select min(id) from repairers) + c.id % 20 from new_claims c
      )
      insert into parts_orders (claim_id, part_no, description, qty_ordered, status)
      select c.id, 'BP-' || c.id || '-' || k, 'Bench part ' || k, 1,
        (array['Arrived', 'Ordered', 'Pending Repair Shop Pick-Up'])[k]
      from new_claims c, generate_series(1, 3) k`.execute(db);
  }
  await sql`analyze`.execute(db);
}

/** Registrations of some claims, for exact-match searches (each answers a direct search successfully). */
export async function sampleRegos(db: Db, count: number): Promise<string[]> {
  const rows = await sql<{ registration: string }>`select registration from claims
    where claim_number like 'BCH-%' order by md5('sample' || id::text) limit ${count}`.execute(db);
  return rows.rows.map((r) => r.registration);
}
