/**
 * Every data-layer test runs on each database: embedded PGlite always, and the PostgreSQL server when
 * `TEST_DATABASE_URL` is set (as on CI). Each test gets its own freshly migrated database, cloned from a
 * template so the cost is a copy, not a migration run.
 */
import { createHash } from "node:crypto";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { type Db, openDb } from "@/db/client.ts";
import { newPGlite } from "@/db/pglite.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { migrations } from "@/db/migrations/mod.ts";

export type DbKind = "pglite" | "postgres";

export const serverUrl = Deno.env.get("TEST_DATABASE_URL") || undefined;

/** The database kinds this run covers. */
export const dbKinds: DbKind[] = serverUrl ? ["pglite", "postgres"] : ["pglite"];

let pgliteTemplate: Promise<Blob> | undefined;

async function buildPgliteTemplate(): Promise<Blob> {
  const pglite = newPGlite({});
  const db = openDb({ pglite });
  await migrateToLatest(db);
  const dump = await pglite.dumpDataDir("none");
  await db.destroy();
  return dump;
}

/** The template's name changes with the migration sources, so a stale template is never reused. */
async function templateName(): Promise<string> {
  const hash = createHash("sha256");
  for (const name of Object.keys(migrations)) {
    hash.update(name);
    hash.update(await Deno.readTextFile(new URL(`../db/migrations/${name}.ts`, import.meta.url)));
  }
  return `pm_tpl_${hash.digest("hex").slice(0, 16)}`;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

let serverTemplate: Promise<string> | undefined;

async function ensureServerTemplate(): Promise<string> {
  const name = await templateName();
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    // Parallel test workers race to build the template: one builds it under an advisory lock.
    await admin.query("select pg_advisory_lock(724001)");
    const exists = await admin.query("select 1 from pg_database where datname = $1", [name]);
    if (exists.rowCount === 0) {
      await admin.query(`create database ${name}_build`).catch(() => {});
      const db = openDb({ url: withDatabase(serverUrl!, `${name}_build`), poolSize: 1 });
      await migrateToLatest(db);
      await db.destroy();
      await admin.query(`alter database ${name}_build rename to ${name}`);
    }
    await admin.query("select pg_advisory_unlock(724001)");
  } finally {
    await admin.end();
  }
  return name;
}

export interface TestDb {
  kind: DbKind;
  db: Db;
  /** For tests that need their own connections (races, faults): the server URL of this database. */
  url?: string;
  close(): Promise<void>;
}

/** A fresh, migrated, empty database of the given kind. */
export async function freshDb(kind: DbKind, opts: { poolSize?: number } = {}): Promise<TestDb> {
  if (kind === "pglite") {
    pgliteTemplate ??= buildPgliteTemplate();
    const db = openDb({ pglite: newPGlite({ loadDataDir: await pgliteTemplate }) });
    return { kind, db, close: () => db.destroy() };
  }
  serverTemplate ??= ensureServerTemplate();
  const template = await serverTemplate;
  const name = `pm_t_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
  const admin = new Kysely({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: serverUrl, max: 1 }) }),
  });
  await sql`create database ${sql.id(name)} template ${sql.id(template)}`.execute(admin);
  const url = withDatabase(serverUrl!, name);
  const db = openDb({ url, poolSize: opts.poolSize ?? 10 });
  return {
    kind,
    db,
    url,
    close: async () => {
      await db.destroy();
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
      await admin.destroy();
    },
  };
}

/**
 * Registers `fn` once per database kind, named `<name> [pglite]` / `<name> [postgres]`.
 * The database is created before and dropped after the test. With `only: "postgres"` it is a server-only
 * test: see serverTest for what happens without a server.
 */
export function dbTest(
  name: string,
  fn: (t: TestDb) => Promise<void>,
  opts: { only?: DbKind; poolSize?: number } = {},
): void {
  if (opts.only === "postgres" && !serverUrl) return registerWithoutServer(name);
  for (const kind of dbKinds) {
    if (opts.only && opts.only !== kind) continue;
    Deno.test({
      name: `${name} [${kind}]`,
      // pg keeps sockets and timers in its pool between queries; the database is closed in finally.
      sanitizeResources: false,
      sanitizeOps: false,
      fn: async () => {
        const t = await freshDb(kind, opts);
        try {
          await fn(t);
        } finally {
          await t.close();
        }
      },
    });
  }
}

let toldAboutServer = false;

/**
 * The stand-in for a server-only test when `TEST_DATABASE_URL` is not set: shown as ignored, with one line
 * saying why; on CI (`CI=true`) it runs and FAILS, so CI can never skip a server test by vanishing it.
 * Every server-only registration goes through here (serverTest, serverOnlyTest, dbTest's only: "postgres").
 */
function registerWithoutServer(name: string): void {
  if (!toldAboutServer) {
    console.log("PostgreSQL-server tests not run here: set TEST_DATABASE_URL (bash .ci/run does).");
    toldAboutServer = true;
  }
  Deno.test({
    name: `${name} [postgres]`,
    ignore: Deno.env.get("CI") !== "true",
    fn: () => {
      throw new Error("needs TEST_DATABASE_URL (a PostgreSQL server) on CI");
    },
  });
}

/**
 * Tests that must run on the PostgreSQL server (races between real connections), each on a fresh
 * migrated database of its own. Without `TEST_DATABASE_URL`: see registerWithoutServer.
 */
export function serverTest(
  name: string,
  fn: (t: TestDb) => Promise<void>,
  opts: { poolSize?: number } = {},
): void {
  dbTest(name, fn, { only: "postgres", poolSize: opts.poolSize });
}

/**
 * A server-only test that manages its own databases (an unmigrated one, say): `fn` gets the server URL.
 * Without `TEST_DATABASE_URL`: see registerWithoutServer.
 */
export function serverOnlyTest(name: string, fn: (serverUrl: string) => Promise<void>): void {
  if (!serverUrl) return registerWithoutServer(name);
  const url = serverUrl;
  Deno.test({ name: `${name} [postgres]`, sanitizeResources: false, sanitizeOps: false, fn: () => fn(url) });
}
