/**
 * Runs pending migrations. Safe when two processes start at once: on a PostgreSQL server Kysely's
 * migrator takes an advisory lock for the whole run; the embedded database belongs to one process.
 */
import { sql } from "kysely";
import { Migrator } from "kysely/migration";
import type { Db } from "@/db/client.ts";
import { migrations } from "@/db/migrations/mod.ts";

export async function migrateToLatest(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: () => Promise.resolve(migrations) } });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    const name = failed ? ` (${failed.migrationName})` : "";
    throw new Error(`migration failed${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Resolves once the database answers and the migrator has run; throws otherwise. The migrations table
 * exists only once the migrator ran, so one query on it proves both (the health check).
 */
export async function migrationsRan(db: Db): Promise<void> {
  await sql`select 1 from kysely_migration limit 1`.execute(db);
}
