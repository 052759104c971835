/**
 * The database side of `/healthz` and `/readyz`: the latest migration applied, read within a short bound of
 * its own, so a probe answers in time even when the database does not (D26; docs/operations.md "Databases").
 * Two bounds: the statement runs under its own `statement_timeout` (readLatest), and the whole read, waiting
 * for a free connection included, is raced against a timer. A read that loses the race still ends by itself
 * (at the statement bound) and gives its connection back to the pool.
 */
import { sql } from "kysely";
import { DatabaseUnreachable, type Db } from "@/db/client.ts";
import { migrations } from "@/db/migrations/mod.ts";

/** The newest migration the code knows. */
export const LATEST_MIGRATION = Object.keys(migrations).at(-1)!;

/**
 * `work`, or a rejection with `late()` once `ms` have passed (a DatabaseUnreachable by default). Also the
 * bound of `/readyz`'s photo store probe (routes/healthz.ts).
 */
export function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  late: () => Error = () => new DatabaseUnreachable(`no answer within ${ms} ms`),
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  // A failure after the deadline has nobody left to answer; it must not become an unhandled rejection.
  work.catch(() => {});
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * A pooled connection the server has just closed (restart, pg_terminate_backend) fails its next query
 * once and is then dropped from the pool; quick retries, within the bound, keep that from reading as an
 * outage.
 */
const ATTEMPTS = 3;
const RETRY_DELAY_MS = 100;

/**
 * The read, on one connection whose statement bound is the probe's for its duration and the pool's again
 * after (RESET returns to the value the connection opened with). Not a transaction with SET LOCAL: Kysely's
 * PGlite driver leaves a rejected promise unhandled when a transaction is begun on a closed database.
 */
async function readLatest(db: Db, statementMs: number): Promise<string | null> {
  return await db.connection().execute(async (conn) => {
    await sql`select set_config('statement_timeout', ${String(statementMs)}, false)`.execute(conn);
    try {
      // The table exists only once the migrator ran, so this one query proves both (D3).
      const { rows } = await sql<{ name: string }>`
        select name from kysely_migration order by name desc limit 1`.execute(conn);
      return rows[0]?.name ?? null;
    } finally {
      await sql`reset statement_timeout`.execute(conn);
    }
  });
}

/**
 * The name of the latest migration applied (null: the migrator ran, none applied yet). Throws when the
 * database does not answer within `timeoutMs` or the migrator never ran on it.
 */
export function appliedMigration(db: Db, timeoutMs: number): Promise<string | null> {
  const attempts = async () => {
    for (let attempt = 1;; attempt++) {
      try {
        return await readLatest(db, timeoutMs);
      } catch (error) {
        if (attempt >= ATTEMPTS) throw error;
        await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
      }
    }
  };
  return withDeadline(attempts(), timeoutMs);
}
