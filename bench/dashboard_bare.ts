/**
 * The bare side of bench/dashboard.ts ("bare SQL"): the statements a page's data functions issue, recorded in
 * process by a Kysely plugin, replayed on a plain pg client or PGlite (no Kysely, no HTTP); and the parts
 * export's own two batch statements (the parts with their history, then the batch's claims) in a keyset loop.
 */
import { type CompiledQuery, PostgresQueryCompiler } from "kysely";
import pg from "pg";
import { type Db, openDb } from "@/db/client.ts";
import { newPGlite } from "@/db/pglite.ts";
import type { BenchTarget } from "@/bench/target.ts";
import { type DashPage, timedMs } from "@/bench/dashboard_pages.ts";
import { EXPORT_BATCH } from "@/lib/dashboard/exports.ts";
import { partExportBatch } from "@/db/queries/part_export.ts";
import { jitOffSql } from "@/db/queries/trends.ts";

/** The statements `run` issues through `db`, compiled as Kysely sends them (for the bare replay). */
export async function recorded(db: Db, run: (db: Db) => Promise<unknown>): Promise<CompiledQuery[]> {
  const seen: CompiledQuery[] = [];
  const compiler = new PostgresQueryCompiler();
  // A builder embedded in another statement (a subquery) passes transformQuery too but is never executed on
  // its own: only a query that comes back with a result is one the page sent.
  const compiled = new Map<unknown, CompiledQuery>();
  await run(db.withPlugin({
    transformQuery: ({ node, queryId }) => {
      compiled.set(queryId, compiler.compileQuery(node, queryId));
      return node;
    },
    transformResult: ({ queryId, result }) => {
      seen.push(compiled.get(queryId)!);
      return Promise.resolve(result);
    },
  }));
  return seen;
}

/**
 * The bare side: a plain driver, and a Kysely connection to record the statements with. The embedded
 * database is one PGlite instance under both (two instances must not open one folder).
 */
export interface Bare {
  db: Db;
  query(text: string, params: readonly unknown[]): Promise<unknown[]>;
  close(): Promise<void>;
}

export function bareSide(target: BenchTarget): Bare {
  const url = target.env.DATABASE_URL;
  if (url) {
    const client = new pg.Client({ connectionString: url });
    const ready = client.connect();
    const db = target.open();
    return {
      db,
      query: async (text, params) => (await ready, (await client.query(text, params as unknown[])).rows),
      close: async () => {
        await client.end();
        await db.destroy();
      },
    };
  }
  const pglite = newPGlite({ dataDir: `${target.env.DATA_DIR}/db` });
  const db = openDb({ pglite });
  return {
    db,
    query: async (text, params) => (await pglite.query(text, params as unknown[])).rows,
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}

/** What the bare side replays: each page's statements and the export's batch, recorded once. */
export interface Recording {
  pages: CompiledQuery[][];
  batch: CompiledQuery;
  /** Where the batch's keyset parameter (the id after which it reads) sits. */
  at: number;
  /** The batch's second statement: the claims of its parts (their ids as one array parameter). */
  claims: CompiledQuery;
  claimIdsAt: number;
}

export async function record(db: Db, pages: DashPage[]): Promise<Recording> {
  const statements: CompiledQuery[][] = [];
  for (const page of pages) statements.push(await recorded(db, page.data));
  const SENTINEL = -424242;
  const [batch, claims] = await recorded(db, (d) => partExportBatch(d, {}, SENTINEL, EXPORT_BATCH).rows);
  return {
    pages: statements,
    batch,
    at: batch.parameters.indexOf(SENTINEL),
    claims,
    claimIdsAt: claims.parameters.findIndex(Array.isArray),
  };
}

/**
 * One round of the bare side: every page's statements replayed, then the export's batch statements in a
 * keyset loop (the id of a batch's last row next; its claims read as the service reads them), rows only, no
 * CSV. Records on its first round (the
 * embedded database can be opened only while the service is stopped).
 */
export async function bareSample(target: BenchTarget, pages: DashPage[], recording: { value?: Recording }) {
  const bare = bareSide(target);
  try {
    const rec = recording.value ??= await record(bare.db, pages);
    const times: number[] = [];
    // A trends figure turns JIT off for its statement in a short transaction (db/queries/trends.ts): the
    // replay does the same, begin, the setting, the statement, commit, or set_config(…, true) would not
    // last and the baseline would time the JIT compilation the service skips.
    const jitOff = jitOffSql().compile(bare.db).sql;
    for (const statements of rec.pages) {
      times.push(
        await timedMs(async () => {
          for (let i = 0; i < statements.length; i++) {
            const s = statements[i];
            if (s.sql !== jitOff || i + 1 === statements.length) {
              await bare.query(s.sql, s.parameters);
              continue;
            }
            await bare.query("begin", []);
            await bare.query(s.sql, s.parameters);
            await bare.query(statements[++i].sql, statements[i].parameters);
            await bare.query("commit", []);
          }
        }),
      );
    }
    const t0 = performance.now();
    let rows = 0;
    for (let after = 0;;) {
      const params = [...rec.batch.parameters];
      params[rec.at] = after;
      const got = await bare.query(rec.batch.sql, params) as { id: number; claim_id: number }[];
      if (got.length === 0) break;
      const claimParams = [...rec.claims.parameters];
      claimParams[rec.claimIdsAt] = [...new Set(got.map((p) => p.claim_id))];
      await bare.query(rec.claims.sql, claimParams);
      rows += got.length;
      after = got[got.length - 1].id;
    }
    return { pages: times, csvRate: rows / ((performance.now() - t0) / 1000) };
  } finally {
    await bare.close();
  }
}
