/**
 * The database of the bench's bare baselines (bench/baseline_*_server.ts): a plain `pg` pool on DATABASE_URL,
 * or PGlite on DATA_DIR/db (its module loaded only then, as the service does, db/client.ts), with no query
 * builder and no framework.
 *
 * A bench child closes its database when bench/process.ts stops it (SIGTERM), as the service does
 * (tasks/serve.ts), and only then exits. An embedded folder left open is shut down uncleanly, so whichever
 * process opens it next runs PostgreSQL's crash recovery first (with fsync on it syncs every file of the
 * folder): the bench's warm restart row, which alternates the service with the bare baseline, timed the
 * service's starts after the baseline's unclean exits and the baseline's after the service's clean stops
 * (docs/performance.md "Memory and start-up"). Exiting also lets a `--cpu-prof` run write its profile.
 */
import pg from "pg";

/** One statement's rows. */
export type BareQuery = <R = Record<string, unknown>>(
  text: string,
  params: readonly unknown[],
) => Promise<R[]>;

/** Closes the database on SIGTERM, then exits (see above). */
export function closeOnSigterm(close: () => Promise<unknown>): void {
  Deno.addSignalListener("SIGTERM", async () => {
    try {
      await close();
    } finally {
      Deno.exit(0);
    }
  });
}

/** Opens the configured database, closed on SIGTERM; each statement takes a connection of its own. */
export async function openBareDb(): Promise<BareQuery> {
  const open = await openBareConnections();
  return (text, params) => open((query) => query(text, params));
}

/**
 * Runs `fn`'s statements on one connection, as the service's `onOneConnection` (db/client.ts) does: on a
 * server one pool checkout for all of them, not one per statement; on PGlite its one connection.
 */
export type OnOneConnection = <T>(fn: (query: BareQuery) => Promise<T>) => Promise<T>;

/** Opens the configured database, closed on SIGTERM, for work done one connection at a time. */
export async function openBareConnections(): Promise<OnOneConnection> {
  const url = Deno.env.get("DATABASE_URL");
  if (url) {
    // The service's pool size (db/client.ts: 10).
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    closeOnSigterm(() => pool.end());
    return async (fn) => {
      const client = await pool.connect();
      try {
        // The parameters as they are (pg reads them, never changes them): no copy a request.
        return await fn(async <R>(text: string, params: readonly unknown[]) =>
          (await client.query(text, params as unknown[])).rows as R[]
        );
      } finally {
        client.release();
      }
    };
  }
  const { newPGlite } = await import("@/db/pglite.ts");
  const pglite = newPGlite({ dataDir: `${Deno.env.get("DATA_DIR")}/db` });
  closeOnSigterm(() => pglite.close());
  const query: BareQuery = async <R>(text: string, params: readonly unknown[]) =>
    (await pglite.query<R>(text, [...params])).rows;
  return (fn) => fn(query);
}
