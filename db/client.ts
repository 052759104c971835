/**
 * Opens the database: embedded PostgreSQL (PGlite) in `DATA_DIR/db` when no `DATABASE_URL` is set,
 * a PostgreSQL server through `pg` otherwise. Both speak the same SQL, so the rest of the code has
 * one path. PGlite serves one connection: Kysely queues its queries (its adapter reports no multiple
 * connections), so transactions there run one at a time.
 */
import type { PGlite } from "@electric-sql/pglite";
import { Kysely, PGliteDialect, PostgresDialect } from "kysely";
import { takeEarlyPgliteWasm } from "@/db/pglite_wasm.ts";
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
 * The server's time bounds, in milliseconds (docs/operations.md "Databases": a locked table used to hang
 * requests for as long as the lock lasted). 0 turns a server-side one off, as in PostgreSQL. On PGlite none
 * applies: it has one connection, so no other session can hold a lock against a request, and its
 * single-threaded build never fires `statement_timeout` (a `pg_sleep(1)` under a 200 ms bound ran its full
 * second).
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
 * A statement's connection died under it: the socket closed or failed without the server's word (the
 * server was stopped hard, a network cut, a proxy restart). pg answers such a statement with a plain
 * `Error("Connection terminated unexpectedly")` (or the socket's own error) and no SQLSTATE, so it is told
 * apart by where it came from: the connection had already reported its death on its client's 'error'
 * event when the statement failed (see `markLostConnections`).
 */
export class DatabaseConnectionLost extends Error {
  constructor(cause: unknown) {
    super(`database connection lost: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "DatabaseConnectionLost";
  }
}

/**
 * SQLSTATEs of a bound that ran out: query_canceled (statement_timeout), lock_not_available (lock_timeout),
 * idle_in_transaction_session_timeout. Nothing in the service cancels or uses NOWAIT otherwise.
 */
const TIMEOUT_STATES = new Set(["57014", "55P03", "25P03"]);

/**
 * SQLSTATEs of a server going away under a statement (PostgreSQL Appendix A, class 57 "Operator
 * Intervention"): admin_shutdown (a stop, or `pg_terminate_backend`), crash_shutdown (another backend
 * crashed), cannot_connect_now (starting up or shutting down). Class 08 (connection exception) is taken
 * whole.
 */
const SERVER_GONE_STATES = new Set(["57P01", "57P02", "57P03"]);

/**
 * Whether `error` means the database did not answer in time or could not be reached, decided by its kind
 * (SQLSTATE, or the pool's own error), never by its text. Such a request is answered 503 (main.ts).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnreachable || error instanceof DatabaseConnectionLost) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" &&
    (TIMEOUT_STATES.has(code) || SERVER_GONE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code));
}

/**
 * Makes `client`'s statements fail with DatabaseConnectionLost once its connection died. pg reports a dead
 * connection on the client's 'error' event synchronously, and fails the statements it held one tick later
 * (`process.nextTick`): by the time a statement's failure reaches its caller the client is marked. A
 * statement sent to a client already marked fails the same way ("not queryable"). An error the server sent
 * (with its SQLSTATE) is passed on as it is: 57P01 and friends are told by their code.
 */
function markLostConnections(client: pg.PoolClient): void {
  let lost = false;
  // Without a listener, a client that dies while checked out would crash the process with an unhandled
  // 'error'; this one also marks it.
  client.on("error", () => lost = true);
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  // deno-lint-ignore no-explicit-any
  (client as any).query = (...args: unknown[]) => {
    const result = query(...args);
    if (!(result instanceof Promise)) return result; // callback and submittable forms: not Kysely's
    return result.catch((error: unknown) => {
      throw lost && !(error instanceof pg.DatabaseError) ? new DatabaseConnectionLost(error) : error;
    });
  };
}

// Count columns, sums and identities fit in a JS number for this service's sizes; parse them as numbers
// rather than strings so `count(*)` and friends compare naturally.
pg.types.setTypeParser(20, (v: string) => Number(v));
pg.types.setTypeParser(1700, (v: string) => Number(v));

// db/ imports nothing from io/: the category is io/log.ts LOG_ROOT's, spelled out (LogTape routes it).
const log = getLogger(["parts-movement", "db"]);

/**
 * Each server database's pg pool (its use figures, LISTEN) and the same pool as Kysely sees it, with its
 * checkouts bounded (`onOneConnection`). PGlite has no pool.
 */
const servers = new WeakMap<Db, { pool: pg.Pool; bounded: BoundedPool }>();

type BoundedPool = { connect(): Promise<pg.PoolClient>; Client: typeof pg.Client; options: pg.PoolOptions };

/** The pool's connections now (pg's own counts), or null on the embedded database. */
export function poolUse(db: Db): { total: number; idle: number; waiting: number; max: number } | null {
  const pool = servers.get(db)?.pool;
  if (!pool) return null;
  return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max };
}

/** The connect bound of each server pool (`PoolTimeouts.connectMs`), for its LISTEN connection too. */
const connectBounds = new WeakMap<pg.Pool, number>();

/**
 * A connection from `pool`, waiting at most `ms` for a free one (pg-pool's own message when that runs
 * out). A checkout that comes after the wait was given up is handed straight back to the pool.
 */
async function checkoutWithin(pool: pg.Pool, ms: number): Promise<pg.PoolClient> {
  const checkout = pool.connect();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timeout exceeded when trying to connect")), ms);
  });
  try {
    return await Promise.race([checkout, expired]);
  } catch (error) {
    checkout.then((client) => client.release(), () => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

export function openDb(target: DbTarget): Db {
  if (target.url) {
    const t = target.timeouts;
    const connectMs = t?.connectMs || undefined; // 0: no bound, as pg reads it
    const pool = new pg.Pool({
      connectionString: target.url,
      max: target.poolSize ?? 10,
      // A connection killed by the server (pg_terminate_backend, restart) is dropped from the pool and
      // the next query opens a new one; the error is answered cleanly by the caller.
      idleTimeoutMillis: 30_000,
      // The connect bound is not the pool's `connectionTimeoutMillis`: with it, pg-pool starts and clears a
      // timer on every checkout, even of an idle connection (four a search: ~50 µs of one on the shared
      // 2-core machine). Each new connection bounds its own opening (pg.Client's option), and
      // `bounded.connect` below bounds a wait for a free one, the only checkouts that can wait.
      Client: connectMs
        ? class extends pg.Client {
          constructor(config?: pg.ClientConfig) {
            super({ ...config, connectionTimeoutMillis: connectMs });
          }
        }
        : pg.Client,
      // Sent as session settings when each connection opens, so every statement of the service is bounded.
      ...(t && {
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
    // the process. Its next query fails instead (answered 503, markLostConnections) and the pool drops it
    // on release.
    pool.on("connect", markLostConnections);
    // A checkout waits only when every connection is busy or others already wait; an idle connection is
    // handed over at once, and a new one is bounded by its own connect timeout.
    const mayWait = () =>
      pool.waitingCount > 0 || (pool.idleCount === 0 && pool.totalCount >= pool.options.max);
    // A failed checkout is told apart by where it failed (DatabaseUnreachable), not by pg's message.
    const bounded = {
      Client: pg.Client,
      options: pool.options,
      connect: () =>
        (connectMs && mayWait() ? checkoutWithin(pool, connectMs) : pool.connect())
          .catch((cause) => Promise.reject(new DatabaseUnreachable(cause))),
      end: () => pool.end(),
    };
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: bounded }) });
    servers.set(db, { pool, bounded });
    if (connectMs) connectBounds.set(pool, connectMs);
    return db;
  }
  // Opened on first use, by the first query or the first `listen`, whichever comes first. PGlite's module is
  // imported only here, so a process on the server database never loads it (~13 MB resident). Its
  // WebAssembly may have been compiled while the program loaded (db/pglite_wasm.ts).
  let pglite: Promise<PGlite> | undefined = target.pglite && Promise.resolve(target.pglite);
  const instance = () =>
    pglite ??= import("@/db/pglite.ts").then(async ({ newPGlite }) =>
      newPGlite({ dataDir: target.dir, wasm: await takeEarlyPgliteWasm() })
    );
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite: instance }) });
  pglites.set(db, instance);
  return db;
}

/**
 * Runs `fn` with one connection for all its statements: on a server, one checkout from the pool instead of
 * one per statement (a search's four statements each paid a checkout and a release, with pg-pool's idle
 * timer started and cleared). Not a transaction: each statement commits on its own, as before.
 * On PGlite, `db` itself: its one connection is taken per statement, so other requests' statements still
 * run between these.
 */
export async function onOneConnection<T>(db: Db, fn: (db: Db) => Promise<T>): Promise<T> {
  const server = servers.get(db);
  // After `db.destroy()`, Kysely's own refusal, as for any statement (a fault, not an unreachable server).
  if (!server || server.pool.ended) return await fn(db);
  const client = await server.bounded.connect();
  const held = heldConnection(server.bounded, client);
  try {
    return await fn(held.db);
  } finally {
    client.release(held.discard || undefined);
    held.discard = false;
  }
}

/** A pooled client's own Kysely (`db`), made on its first checkout and kept as long as the client is. */
interface HeldConnection {
  db: Db;
  /** Kysely asked for the client to be closed, not reused (a failed ROLLBACK): passed on at release. */
  discard: boolean;
}

const heldConnections = new WeakMap<pg.PoolClient, HeldConnection>();
/** The pooled client under each held connection's Kysely, for `heldClientOf`. */
const heldClients = new WeakMap<object, pg.PoolClient>();

/**
 * The Kysely of one checked-out client: its "pool" hands out that client and never releases it (the
 * checkout in `onOneConnection` does). Kysely's own `db.connection()` built a Kysely and an executor for
 * every call and ran each statement through a queue of promises; this one is made once per
 * client.
 */
function heldConnection(bounded: BoundedPool, client: pg.PoolClient): HeldConnection {
  let held = heldConnections.get(client);
  if (!held) {
    const handle = {
      query: client.query.bind(client) as pg.PoolClient["query"],
      release: (destroy?: boolean) => void (destroy && (held!.discard = true)),
    };
    // Client and options: what Kysely needs to open a control connection to cancel a statement.
    const pool = { ...bounded, connect: () => Promise.resolve(handle), end: () => Promise.resolve() };
    held = { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), discard: false };
    heldConnections.set(client, held);
    heldClients.set(held.db, client);
  }
  return held;
}

/**
 * The pooled client `db` runs on, when `db` is the Kysely of a held connection (`onOneConnection`), else
 * undefined: a compiled statement runs on it directly (db/queries/compiled.ts), without Kysely's executor.
 */
export function heldClientOf(db: object): pg.PoolClient | undefined {
  return heldClients.get(db);
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
  const pool = servers.get(db)?.pool;
  if (!pool) throw new Error("listen: not a database opened by openDb");
  let stopped = false;
  let client: pg.Client | null = null;
  const open = async (): Promise<void> => {
    // The pool's connect bound (DB_CONNECT_TIMEOUT_MS): an unreachable server fails the stream's start.
    const c = new pg.Client({
      connectionString: pool.options.connectionString,
      connectionTimeoutMillis: connectBounds.get(pool),
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
