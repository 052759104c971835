/**
 * Runs pending migrations. Safe when two processes start at once: on a PostgreSQL server Kysely's
 * migrator takes an advisory lock for the whole run; the embedded database belongs to one process.
 */
import { sql } from "kysely";
import { Migrator } from "kysely/migration";
import type { Db } from "@/db/client.ts";
import { migrations } from "@/db/migrations/mod.ts";

export async function migrateToLatest(db: Db): Promise<void> {
  // The request-time bounds of the pool (db/client.ts) are not the migrations': one may rewrite a big table
  // or wait for a running instance's lock. They run on one connection with both bounds off for its session,
  // and the connection gets the pool's bounds back (RESET returns to the values it was opened with).
  const { error, results } = await db.connection().execute(async (conn) => {
    await sql`set statement_timeout = 0`.execute(conn);
    await sql`set lock_timeout = 0`.execute(conn);
    try {
      const provider = { getMigrations: () => Promise.resolve(migrations) };
      return await new Migrator({ db: conn, provider }).migrateToLatest();
    } finally {
      await sql`reset statement_timeout`.execute(conn);
      await sql`reset lock_timeout`.execute(conn);
    }
  });
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    const name = failed ? ` (${failed.migrationName})` : "";
    throw new Error(`migration failed${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
