/**
 * Opens the database: embedded PostgreSQL (PGlite) in `DATA_DIR/db` when no `DATABASE_URL` is set,
 * a PostgreSQL server through `pg` otherwise. Both speak the same SQL, so the rest of the code has
 * one path. PGlite serves one connection: Kysely queues its queries (its adapter reports no multiple
 * connections), so transactions there run one at a time.
 */
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { Kysely, PGliteDialect, PostgresDialect } from "kysely";
import pg from "pg";
import { getLogger } from "@logtape/logtape";
import type { Database } from "@/db/schema.ts";

export type Db = Kysely<Database>;

export interface DbTarget {
  /** `postgres://…` for a server; undefined for the embedded database. */
  url?: string;
  /** Embedded database folder; undefined (with no url) for an in-memory database. */
  dir?: string;
  /** Embedded: use this instance (tests clone a migrated template). */
  pglite?: PGlite;
  /** Server: pool size. */
  poolSize?: number;
}

// Count columns, sums and identities fit in a JS number for this service's sizes; parse them as numbers
// rather than strings so `count(*)` and friends compare naturally.
pg.types.setTypeParser(20, (v: string) => Number(v));
pg.types.setTypeParser(1700, (v: string) => Number(v));

// db/ imports nothing from io/: the category is io/log.ts LOG_ROOT's, spelled out (LogTape routes it).
const log = getLogger(["parts-movement", "db"]);

/** The pg pool under each server connection, for its use figures (PGlite has no pool). */
const pools = new WeakMap<Db, pg.Pool>();

/** The pool's connections now (pg's own counts), or null on the embedded database. */
export function poolUse(db: Db): { total: number; idle: number; waiting: number; max: number } | null {
  const pool = pools.get(db);
  if (!pool) return null;
  return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max };
}

export function openDb(target: DbTarget): Db {
  if (target.url) {
    const pool = new pg.Pool({
      connectionString: target.url,
      max: target.poolSize ?? 10,
      // A connection killed by the server (pg_terminate_backend, restart) is dropped from the pool and
      // the next query opens a new one; the error is answered cleanly by the caller.
      idleTimeoutMillis: 30_000,
    });
    // An idle client that the server disconnects emits 'error' on the pool; without a listener that
    // would crash the process.
    pool.on("error", (err) => log.warn("Database pool: {error}", { error: err.message }));
    // A client checked out of the pool has no pool listener: one disconnected between two statements (inside
    // a transaction, or while the caller awaits something else) would emit an unhandled 'error' and crash
    // the process. Its next query fails instead (answered 503) and the pool drops it on release.
    pool.on("connect", (client) => client.on("error", () => {}));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    pools.set(db, pool);
    return db;
  }
  const pglite = target.pglite ?? (() => newPGlite({ dataDir: target.dir }));
  return new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
}

/** A PGlite instance with the extensions and type parsers the service relies on. */
export function newPGlite(options: { dataDir?: string; loadDataDir?: Blob }): PGlite {
  return new PGlite({
    ...options,
    extensions: { pg_trgm },
    // int8 (count) and numeric arrive as numbers on both databases (see the pg parsers above).
    parsers: { 20: (v: string) => Number(v), 1700: (v: string) => Number(v) },
  });
}
