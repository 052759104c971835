/**
 * Counting database round trips (issue 14), shared by tests/statement_count_test.ts and the bench
 * (bench/drop_off.ts). A round trip is one request to the database that the service waits on before
 * sending the next: each SQL statement, and each transaction's BEGIN and its COMMIT or ROLLBACK (Kysely
 * sends them as statements of their own and neither pg nor PGlite pipelines them, so each costs a round
 * trip). Statements are counted by a Kysely plugin on an instance sharing the database's connection,
 * transactions by wrapping that instance's `transaction()`.
 */
import type {
  Kysely,
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from "kysely";

/** Counts executed statements; `countTransactions` adds each transaction's BEGIN and COMMIT/ROLLBACK. */
export class RoundTripCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }
  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.count++;
    return Promise.resolve(args.result);
  }
}

/** Adds two round trips (BEGIN, then COMMIT or ROLLBACK) for each transaction run on `db`. */
export function countTransactions<D>(db: Kysely<D>, counter: RoundTripCounter): Kysely<D> {
  const transaction = db.transaction.bind(db);
  db.transaction = () => {
    const builder = transaction();
    const execute = builder.execute.bind(builder);
    builder.execute = (fn) => {
      counter.count += 2;
      return execute(fn);
    };
    return builder;
  };
  return db;
}

/** `db` seen through a counter of every round trip it makes (statements, BEGIN, COMMIT/ROLLBACK). */
export function countingDb<D>(db: Kysely<D>): { db: Kysely<D>; counter: RoundTripCounter } {
  const counter = new RoundTripCounter();
  return { db: countTransactions(db.withPlugin(counter), counter), counter };
}
