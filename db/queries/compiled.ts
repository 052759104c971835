/**
 * Hot queries built and compiled once, then run with each call's values (Kysely's "compile, then execute"
 * recipe, with parameters). Building and compiling a Kysely query costs more of the service's CPU than
 * sending it; the search runs its statements on every call, so those are compiled once. The SQL sent is
 * exactly what the builder produces.
 */
import {
  type Compilable,
  type CompiledQuery,
  createQueryId,
  DummyDriver,
  Kysely,
  NoResultError,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryNode,
  type RawBuilder,
  type Transaction,
} from "kysely";
import type { Database } from "@/db/schema.ts";
import { heldClientOf } from "@/db/client.ts";

/** A database or a transaction: anything that builds and runs queries. */
export type QueryRunner = Pick<Kysely<Database>, "selectFrom" | "executeQuery">;

/** An open transaction: queries that lock rows or must commit with others take one. */
export type Tx = Transaction<Database>;

/** Stands in for an argument while the query compiles; any use other than as a plain value fails loudly. */
class Slot {
  constructor(readonly index: number) {}
  [Symbol.toPrimitive](): never {
    throw new Error("compiledQuery: pass each argument to the builder as a value, unchanged");
  }
}

/** A compiled query's runners, named after the builder's methods they replace. */
export interface CompiledRunner<A extends unknown[], O> {
  execute(db: QueryRunner, ...args: A): Promise<O[]>;
  executeTakeFirst(db: QueryRunner, ...args: A): Promise<O | undefined>;
  /** The first row, else Kysely's NoResultError, as `executeTakeFirstOrThrow` does. */
  executeTakeFirstOrThrow(db: QueryRunner, ...args: A): Promise<O>;
}

/**
 * Every query `compiledQuery` made so far (each module's, as it loaded), as a function that compiles it:
 * tests/sql_columns_test.ts prepares each against a migrated database, so no compiled query goes unchecked.
 */
const made: (() => CompiledQuery<unknown>)[] = [];

/** Every compiled query made so far, compiled (stand-ins where its arguments go), for the column check. */
export function compiledQueriesMade(): CompiledQuery<unknown>[] {
  return made.map((compile) => compile());
}

/**
 * The query `build` makes, compiled on first use. `build` receives one stand-in per declared argument
 * (`build.length - 1` of them) and must hand each to Kysely as a value unchanged (`.where(col, "=", arg)`):
 * no string building or branching on it. Both databases use Kysely's PostgreSQL compiler with no plugins,
 * so one compilation serves every database and transaction.
 */
export function compiledQuery<A extends unknown[], O>(
  build: (db: QueryRunner, ...args: A) => Compilable<O>,
): CompiledRunner<A, O> {
  let compiled: CompiledQuery<O> | undefined;
  const prepare = (db: QueryRunner) =>
    compiled ??= build(db, ...Array.from({ length: build.length - 1 }, (_, i) => new Slot(i)) as A).compile();
  made.push(() => prepare(sqlCompiler));
  const execute = async (db: QueryRunner, ...args: A) => {
    const query = prepare(db);
    const parameters = query.parameters.map((p) => p instanceof Slot ? args[p.index] : p);
    // On a connection held for several statements, straight to its client: the same text and values as
    // Kysely's PostgreSQL driver sends, without its executor, which held no plugin and transformed nothing.
    const client = heldClientOf(db);
    if (client) return (await client.query(query.sql, parameters)).rows as O[];
    const { rows } = await db.executeQuery<O>({ ...query, queryId: createQueryId(), parameters });
    return rows;
  };
  return {
    execute,
    executeTakeFirst: async (db, ...args) => (await execute(db, ...args))[0],
    executeTakeFirstOrThrow: async (db, ...args) => {
      const [row] = await execute(db, ...args);
      if (row === undefined) throw new NoResultError(compiled!.query as QueryNode);
      return row;
    },
  };
}

/**
 * A Kysely that only compiles (no connection): PostgreSQL's compiler with no plugins, as both databases use.
 * Raw `sql` statements compile against it, so a statement can be compiled once (`asCompilable`) and the
 * bench's bare baselines can run the service's exact SQL text on a bare driver.
 */
export const sqlCompiler = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** A raw `sql` statement as a `Compilable`, for `compiledQuery`. */
export function asCompilable<O>(raw: RawBuilder<O>): Compilable<O> {
  return { compile: () => raw.compile(sqlCompiler) };
}
