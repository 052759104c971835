/**
 * Runs pending migrations. Safe when two processes start at once: on a PostgreSQL server Kysely's
 * migrator takes an advisory lock for the whole run; the embedded database belongs to one process.
 */
import { sql } from "kysely";
import { DEFAULT_MIGRATION_TABLE, Migrator } from "kysely/migration";
import type { Db } from "@/db/client.ts";
import { migrations } from "@/db/migrations/mod.ts";

export async function migrateToLatest(db: Db): Promise<void> {
  if (await isAtLatest(db)) return;
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

/** SQLSTATE undefined_table: a database no migration ever ran on has no migration table. */
const UNDEFINED_TABLE = "42P01";

/**
 * Whether every migration of the list has run: one read of the migration table, where the Migrator would
 * create its tables if missing, take its lock and read them (a third of a warm restart on the embedded
 * database). Any difference (a new migration, a database with no table) goes to the Migrator,
 * which decides as before, under its lock.
 */
async function isAtLatest(db: Db): Promise<boolean> {
  try {
    const { rows } = await sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`
      .execute(db);
    const names = Object.keys(migrations);
    // Exactly the list: a name the list lacks (run by newer code) is the Migrator's error to raise.
    return rows.length === names.length && rows.every((r) => Object.hasOwn(migrations, r.name));
  } catch (error) {
    if ((error as { code?: unknown }).code === UNDEFINED_TABLE) return false;
    throw error;
  }
}
