/**
 * Opens the database: embedded PostgreSQL (PGlite) in `DATA_DIR/db` when no `DATABASE_URL` is set,
 * a PostgreSQL server through `pg` otherwise. Both speak the same SQL, so the rest of the code has
 * one path. PGlite serves one connection: Kysely queues its queries (its adapter reports no multiple
 * connections), so transactions there run one at a time.
 */
import type { PGlite } from "@electric-sql/pglite";
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
  /** Server: time bounds (see PoolTimeouts); none when absent (tests' admin pools, tools). */
  timeouts?: PoolTimeouts;
}

/**
 * The server's time bounds, in milliseconds (issue 15: a locked table used to hang requests for as long as
 * the lock lasted). 0 turns a server-side one off, as in PostgreSQL. On PGlite none applies: it has one
 * connection, so no other session can hold a lock against a request, and its single-threaded build never
 * fires `statement_timeout` (a `pg_sleep(1)` under a 200 ms bound ran its full second).
 */
export interface PoolTimeouts {
  /** Opening a connection, or waiting for a free one in the pool (pg's `connectionTimeoutMillis`). */
  connectMs: number;
  /** One statement, lock waits included (`statement_timeout`): cancelled with SQLSTATE 57014. */
  statementMs: number;
  /** Waiting for one lock (`lock_timeout`): 55P03. Below the statement bound, a lock wait fails first. */
  lockMs: number;
  /** A transaction left idle (`idle_in_transaction_session_timeout`): the server ends the session. */
  idleInTransactionMs: number;
}

/** The pool could not give a connection (server unreachable, refused, or no free one in time). */
export class DatabaseUnreachable extends Error {
  constructor(cause: unknown) {
    super(`database unreachable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "DatabaseUnreachable";
  }
}

/**
 * SQLSTATEs of a bound that ran out: query_canceled (statement_timeout), lock_not_available (lock_timeout),
 * idle_in_transaction_session_timeout. Nothing in the service cancels or uses NOWAIT otherwise.
 */
const TIMEOUT_STATES = new Set(["57014", "55P03", "25P03"]);

/**
 * Whether `error` means the database did not answer in time or could not be reached, decided by its kind
 * (SQLSTATE, or the pool's own error), never by its text. Such a request is answered 503 (main.ts).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnreachable) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && TIMEOUT_STATES.has(code);
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
    const t = target.timeouts;
    const pool = new pg.Pool({
      connectionString: target.url,
      max: target.poolSize ?? 10,
      // A connection killed by the server (pg_terminate_backend, restart) is dropped from the pool and
      // the next query opens a new one; the error is answered cleanly by the caller.
      idleTimeoutMillis: 30_000,
      // Sent as session settings when each connection opens, so every statement of the service is bounded.
      ...(t && {
        connectionTimeoutMillis: t.connectMs,
        statement_timeout: t.statementMs,
        lock_timeout: t.lockMs,
        idle_in_transaction_session_timeout: t.idleInTransactionMs,
      }),
    });
    // An idle client that the server disconnects emits 'error' on the pool; without a listener that
    // would crash the process.
    pool.on("error", (err) => log.warn("Database pool: {error}", { error: err.message }));
    // A client checked out of the pool has no pool listener: one disconnected between two statements (inside
    // a transaction, or while the caller awaits something else) would emit an unhandled 'error' and crash
    // the process. Its next query fails instead (answered 503) and the pool drops it on release.
    pool.on("connect", (client) => client.on("error", () => {}));
    // A failed checkout is told apart by where it failed (DatabaseUnreachable), not by pg's message.
    const bounded = {
      Client: pg.Client,
      options: pool.options,
      connect: () => pool.connect().catch((cause) => Promise.reject(new DatabaseUnreachable(cause))),
      end: () => pool.end(),
    };
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: bounded }) });
    pools.set(db, pool);
    return db;
  }
  // Opened on first use, by the first query or the first `listen`, whichever comes first. PGlite's module is
  // imported only here, so a process on the server database never loads it (~13 MB resident, issue 14).
  let pglite: Promise<PGlite> | undefined = target.pglite && Promise.resolve(target.pglite);
  const instance = () =>
    pglite ??= import("@/db/pglite.ts").then(({ newPGlite }) => newPGlite({ dataDir: target.dir }));
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite: instance }) });
  pglites.set(db, instance);
  return db;
}

/** The PGlite instance under each embedded connection, for LISTEN (`listen` below). */
const pglites = new WeakMap<Db, () => Promise<PGlite>>();

/**
 * LISTEN on `channel`: `onPayload` gets each NOTIFY's payload, after the notifying transaction commits, from
 * every process on this database. On a server this is a dedicated connection outside the pool (a pooled one
 * would be handed to other queries and lose the LISTEN); when it breaks, it is opened again after a second
 * and `onPayload(null)` says notifications may have been missed. On PGlite it is PGlite's own listen (one
 * process, one connection). Returns the function that stops listening.
 */
export async function listen(
  db: Db,
  channel: string,
  onPayload: (payload: string | null) => void,
): Promise<() => Promise<void>> {
  const pglite = pglites.get(db);
  if (pglite) return await (await pglite()).listen(channel, (payload) => onPayload(payload));
  const pool = pools.get(db);
  if (!pool) throw new Error("listen: not a database opened by openDb");
  let stopped = false;
  let client: pg.Client | null = null;
  const open = async (): Promise<void> => {
    // The pool's connect bound (DB_CONNECT_TIMEOUT_MS): an unreachable server fails the stream's start.
    const c = new pg.Client({
      connectionString: pool.options.connectionString,
      connectionTimeoutMillis: pool.options.connectionTimeoutMillis,
    });
    c.on("notification", (m) => m.channel === channel && onPayload(m.payload ?? ""));
    c.on("error", (err) => log.warn("Database listener: {error}", { error: err.message }));
    try {
      await c.connect();
      await c.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      await c.end().catch(() => {});
      throw new DatabaseUnreachable(error); // answered 503 like a pool that cannot connect
    }
    if (stopped) return void await c.end().catch(() => {}); // stopped while (re)opening
    client = c;
    // Only a listening connection reopens when it ends; a failed open is retried by `reopen`.
    c.on("end", () => {
      if (stopped) return;
      client = null;
      setTimeout(() => reopen(), 1000);
    });
  };
  // After a break, changes may have been committed while nobody listened: `null` says so.
  const reopen = () => {
    if (stopped) return;
    open().then(() => !stopped && onPayload(null)).catch((err) => {
      log.warn("Database listener: {error}", { error: err instanceof Error ? err.message : String(err) });
      setTimeout(() => reopen(), 1000);
    });
  };
  await open();
  return async () => {
    stopped = true;
    await (client as pg.Client | null)?.end().catch(() => {});
  };
}
