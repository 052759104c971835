/**
 * Counting database round trips (docs/performance.md "Round trips"), shared by tests/statement_count_test.ts and the bench
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
import assert from "node:assert/strict";
import type { HandlerAnswer, TestApp } from "@/testkit/app.ts";
import {
  confirmed,
  dropOffPayload,
  dropOffReversePayload,
  flowSetup,
  pickUpPayload,
  stageFor,
} from "@/testkit/movements.ts";

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

/**
 * The three movement submissions whose round trips are counted (the statement-count test and the bench's
 * `roundtrips` row): `prepare` sets up a claim of `size` parts ready for the flow and returns the
 * submission itself, which the caller counts.
 */
export const COUNTED_SUBMISSIONS: {
  name: string;
  prepare: (a: TestApp, size: number) => Promise<() => Promise<HandlerAnswer>>;
}[] = [
  {
    name: "drop-off",
    prepare: async (a, size) => {
      const s = await flowSetup(a, { count: size, status: "Arrived", stage: "direct_dropoff" });
      return () => a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
    },
  },
  {
    name: "reverse pickup",
    prepare: async (a, size) => {
      const s = await flowSetup(a, {
        count: size,
        status: "Pending Repair Shop Pick-Up",
        stage: "reverse_pickup",
      });
      return () => a.call(pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs)));
    },
  },
  {
    name: "leg 2",
    prepare: async (a, size) => {
      const s = await flowSetup(a, {
        count: size,
        status: "Pending Repair Shop Pick-Up",
        stage: "reverse_pickup",
      });
      const leg1 = await a.call(pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs)));
      assert.equal(leg1.result.status, "success", JSON.stringify(leg1));
      const images = await stageFor(a, s.parts, "reverse_dropoff", s.user.id);
      const pairs = s.parts.map((p, i) => ({ part: p.id, image: images[i] }));
      const movement = leg1.result.data!.parts_movement_id as number;
      return () =>
        a.call(dropOffReversePayload(s.user.email, s.claim.registration, movement, confirmed(pairs)));
    },
  },
];
