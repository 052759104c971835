/**
 * Every raw statement of db/queries/ names only tables and columns the migrated database has. Kysely's
 * builders are checked against db/schema.ts by the type check; a raw `sql` statement is text nothing checks,
 * so a column renamed in a migration (or misspelt in the statement) would only fail when that statement runs.
 * Here each one is compiled and PREPAREd (parsed and analysed, never run) on a freshly migrated database:
 * PGlite, and the server when TEST_DATABASE_URL is set.
 *
 * How the statements are found, so that a new one is hard to forget:
 * - every module in db/queries/ is imported (the folder is listed, not a list of files);
 * - compiled queries (`compiledQuery`, db/queries/compiled.ts) list themselves as they are made
 *   (`compiledQueriesMade`): each is prepared as compiled, with stand-ins for its arguments;
 * - a raw statement is built by an exported function whose name ends in `Sql` (the convention of
 *   db/queries/): every such export must have an entry in `SAMPLES` below (arguments for each shape its text
 *   can take), and the test fails naming any export that has none, and any entry whose export is gone;
 * - no module of db/queries/ executes a `sql` template where it is written (a template literal followed by
 *   `.execute(`): a raw statement written that way would escape the two lists, so the test refuses it.
 * What is left to the builders' own types: raw fragments inside a Kysely builder query (a `sql` condition or
 * column in a `select`), which run with the builder's statement.
 */
import assert from "node:assert/strict";
import { type RawBuilder, sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { announcementCountsSql, insertAnnouncementsSql } from "@/db/queries/announcements.ts";
import { insertShopEmailSql } from "@/db/queries/shop_emails.ts";
import { leaseChannelRowsSql } from "@/db/queries/announcement_worker.ts";
import { notifyChangeSql, notifyChangeStatementSql } from "@/db/queries/changes.ts";
import { compiledQueriesMade, sqlCompiler } from "@/db/queries/compiled.ts";
import { writeLeg2DropOffSql, writeNewMovementSql } from "@/db/queries/movements.ts";
import { lockRunDaySql, runSheetLinesSql } from "@/db/queries/run_sheet.ts";
import { deliveriesOfPartsSql } from "@/db/queries/shop_page.ts";
import { driverTrendsSql, jitOffSql, movementsPerDaySql, turnaroundSql } from "@/db/queries/trends.ts";
import { type SubmissionReadQuery, submissionReadSql } from "@/db/queries/submission_reads.ts";
import { dbTest } from "@/testkit/db.ts";

const QUERIES = new URL("../db/queries/", import.meta.url);

/** The modules of db/queries/, by file name. */
const modules: Record<string, Record<string, unknown>> = {};
for (const { name } of [...Deno.readDirSync(QUERIES)].sort((a, b) => a.name.localeCompare(b.name))) {
  if (name.endsWith(".ts")) modules[name] = await import(new URL(name, QUERIES).href);
}

const at = new Date("2026-11-21T09:30:00Z");
const shopEmail = { messageId: crypto.randomUUID(), repairerId: 1, configured: true };
const outbox = {
  announcement: {
    title: "Parts Delivered" as const,
    rego: "ABC123",
    place: "Shop",
    parts: [{ partNo: "P-1", description: "Bumper" }],
    driver: "Dana",
    at: at.toISOString(),
  },
  linkPrefix: "http://localhost:8000/hq/movements/",
  rows: [{ messageId: crypto.randomUUID(), channel: "parts_movement" as const, state: "pending" as const }],
  at,
};
const flip = {
  ids: [1, 2],
  from: "Arrived" as const,
  to: "Delivered to Repair Shop directly" as const,
  at,
  by: 1,
};

/** A submission read for each shape of its text: flow, locks, and the image column its steps look in. */
function submissionReads(): RawBuilder<unknown>[] {
  const reads: RawBuilder<unknown>[] = [];
  for (const flow of ["direct", "reverse"] as const) {
    for (const lock of [false, true]) {
      for (const imageColumn of ["pickup_image_id", "delivery_image_id"] as const) {
        const q: SubmissionReadQuery = {
          email: "dana@depot.example",
          roles: ["driver"],
          knownHomeHqId: null,
          norm: "ABC123",
          contains: true,
          flow,
          pinnedClaimId: null,
          pickup: flow === "reverse",
          tripId: null,
          partIds: [1, 2],
          lock,
          steps: { pairs: [{ part_id: 1, image_id: 1 }], imageColumn, toStatus: "Arrived" },
          imageIds: [1],
          repairerId: 1,
        };
        reads.push(submissionReadSql(sqlCompiler, q));
      }
    }
  }
  return reads;
}

/**
 * Arguments for every exported `…Sql` of db/queries/, keyed `file#export`: each function returns the
 * statements to prepare (one per shape of the text the arguments can give).
 */
const trendDays = {
  from: "2026-11-21",
  to: "2026-11-21",
  start: "2026-11-20T13:00:00.000Z",
  end: "2026-11-21T13:00:00.000Z",
};

const SAMPLES: Record<string, () => RawBuilder<unknown>[]> = {
  "trends.ts#movementsPerDaySql": () => [movementsPerDaySql(trendDays)],
  "trends.ts#driverTrendsSql": () => [driverTrendsSql(trendDays)],
  "trends.ts#turnaroundSql": () => [turnaroundSql(trendDays)],
  "trends.ts#jitOffSql": () => [jitOffSql()],
  "announcements.ts#announcementCountsSql": () => [
    announcementCountsSql(["pending"]),
    announcementCountsSql(["pending", "delivered", "failed", "feed_only"]),
  ],
  "announcements.ts#insertAnnouncementsSql": () => [
    insertAnnouncementsSql(outbox, sql<number>`${1}::int`),
    insertAnnouncementsSql({ ...outbox, email: shopEmail }, sql<number>`${1}::int`),
    insertAnnouncementsSql(
      { ...outbox, email: { ...shopEmail, repairerId: undefined, claimId: 1 } },
      sql<number>`${1}::int`,
    ),
  ],
  "shop_emails.ts#insertShopEmailSql": () => [
    insertShopEmailSql(shopEmail, { ...outbox.announcement, title: "Parts On The Way" }, at),
  ],
  "announcement_worker.ts#leaseChannelRowsSql":
    () => [leaseChannelRowsSql(["parts_movement"], 10, at, at, crypto.randomUUID())],
  "changes.ts#notifyChangeSql": () => [notifyChangeSql("movements")],
  "changes.ts#notifyChangeStatementSql": () => [notifyChangeStatementSql("parts")],
  "movements.ts#writeLeg2DropOffSql": () => [
    writeLeg2DropOffSql({
      movementId: 1,
      rows: [{ part_id: 1, image_id: 1, photo_id: 1 }],
      flip: { ...flip, from: "Picked Up from Repair Shop", to: "Returned to HQ" },
      outbox,
      audit: { stage: "reverse_dropoff", sourceAddress: "203.0.113.7" },
    }),
  ],
  "movements.ts#writeNewMovementSql": () => [
    writeNewMovementSql({
      movement: {
        claim_id: 1,
        movement_type: "direct",
        movement_status: "Parts Dropped off",
        picked_up_by: 1,
        dropped_off_by: 1,
        pick_up_at: at,
        dropped_off_at: at,
        repairer_id: 1,
        location_type: null,
        hq_location_id: null,
      },
      deliverParts: [{ part_id: 1, qty_ordered: 1, pickup_image_id: 1, pickup_photo_id: 1 }],
      delivered: true,
      flip,
      linkOnManagement: false,
      outbox,
      unlessOpenTrip: false,
      audit: { stage: "direct_dropoff", sourceAddress: "203.0.113.7" },
    }),
  ],
  "run_sheet.ts#lockRunDaySql": () => [lockRunDaySql("2026-11-21")],
  "shop_page.ts#deliveriesOfPartsSql": () => [deliveriesOfPartsSql([1, 2])],
  "run_sheet.ts#runSheetLinesSql": () => [
    runSheetLinesSql({ from: at, to: new Date(at.getTime() + 86_400_000), includeOpen: true }),
  ],
  "submission_reads.ts#submissionReadSql": submissionReads,
};

/** Every exported `…Sql` function of db/queries/, as `file#export`. */
function statementBuilders(): string[] {
  return Object.entries(modules).flatMap(([file, exports]) =>
    Object.entries(exports)
      .filter(([name, value]) => typeof value === "function" && name.endsWith("Sql"))
      .map(([name]) => `${file}#${name}`)
  );
}

/** Every statement to check, named for the failure message. */
function statements(): { name: string; text: string }[] {
  const samples = Object.entries(SAMPLES).flatMap(([key, make]) =>
    make().map((raw, i) => ({ name: `${key} [${i}]`, text: raw.compile(sqlCompiler).sql }))
  );
  const compiled = compiledQueriesMade().map((query, i) => ({
    name: `compiled query ${i} (${query.sql.replace(/\s+/g, " ").slice(0, 60)}…)`,
    text: query.sql,
  }));
  return [...samples, ...compiled];
}

/**
 * PREPAREs each statement on one connection of `db` (parse and analysis: every table and column looked up,
 * nothing run); the failures, one line each.
 */
async function unpreparable(db: Db, list: { name: string; text: string }[]): Promise<string[]> {
  return await db.connection().execute(async (conn) => {
    const failures: string[] = [];
    for (const [i, { name, text }] of list.entries()) {
      try {
        await sql.raw(`prepare pm_column_check_${i} as ${text}`).execute(conn);
      } catch (error) {
        failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    await sql`deallocate all`.execute(conn);
    return failures;
  });
}

Deno.test("sql columns: every exported …Sql of db/queries/ has sample arguments here, and every sample its export", () => {
  const builders = statementBuilders();
  assert.deepEqual(
    builders.filter((key) => !(key in SAMPLES)),
    [],
    "a raw statement builder without a sample: add it to SAMPLES in tests/sql_columns_test.ts",
  );
  assert.deepEqual(
    Object.keys(SAMPLES).filter((key) => !builders.includes(key)),
    [],
    "a sample of no export",
  );
});

Deno.test("sql columns: no module of db/queries/ runs a raw sql template where it is written", async () => {
  const inline: string[] = [];
  for (const file of Object.keys(modules)) {
    const source = await Deno.readTextFile(new URL(file, QUERIES));
    for (const match of source.matchAll(/`\s*\.execute\(/g)) {
      inline.push(`db/queries/${file}:${source.slice(0, match.index).split("\n").length}`);
    }
  }
  assert.deepEqual(inline, [], "build the statement in an exported …Sql function (see this file's comment)");
});

dbTest(
  "sql columns: every raw statement and compiled query of db/queries/ prepares on the migrated database",
  async ({ db }) => {
    const list = statements();
    assert.ok(compiledQueriesMade().length > 0, "the compiled queries listed themselves");
    // The check itself: a statement naming a column the database lacks does fail to prepare.
    assert.equal(
      (await unpreparable(db, [{ name: "probe", text: "select no_such_column from claims" }])).length,
      1,
    );
    const failures = await unpreparable(db, list);
    assert.equal(
      failures.length,
      0,
      `${failures.length} of ${list.length} statements:\n${failures.join("\n")}`,
    );
  },
);
