import assert from "node:assert/strict";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { type Db, openDb } from "@/db/client.ts";
import { newPGlite } from "@/db/pglite.ts";
import { FakeClock } from "@/io/clock.ts";
import { testConfig } from "@/io/config.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { createApp } from "@/main.ts";
import { appTest } from "@/testkit/app.ts";
import { serverOnlyTest } from "@/testkit/db.ts";

const JSON_TYPE = /^application\/json/;

async function healthOf(db: Db) {
  const dataDir = await Deno.makeTempDir({ prefix: "pm-health-" });
  try {
    const app = createApp({
      db,
      config: testConfig({ dataDir }),
      clock: new FakeClock(),
      storage: new DiskPhotoStore(`${dataDir}/photos`),
    });
    return await app.request("/healthz");
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}

async function expectUnavailable(res: Response) {
  assert.equal(res.status, 503);
  assert.match(res.headers.get("content-type")!, JSON_TYPE);
  const body = await res.json();
  assert.notEqual(body.status, "ok");
}

appTest("healthz D3: answers 200 {status: ok} once migrations ran and the database answers", async (a) => {
  const res = await a.app.request("/healthz");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, JSON_TYPE);
  assert.deepEqual(await res.json(), { status: "ok" });
});

appTest("healthz D3: answers 503 when the database is closed", async (a) => {
  // Healthy first: Kysely's destroy() is a no-op on an instance that never ran a query.
  const before = await a.app.request("/healthz");
  assert.equal(before.status, 200);
  await before.body?.cancel();
  await a.db.destroy();
  await expectUnavailable(await a.app.request("/healthz"));
});

Deno.test("healthz D3: answers 503 on an embedded database the migrations did not run on", async () => {
  const db = openDb({ pglite: newPGlite({}) });
  try {
    await expectUnavailable(await healthOf(db));
  } finally {
    await db.destroy();
  }
});

serverOnlyTest(
  "healthz D3: answers 503 on a PostgreSQL database the migrations did not run on",
  async (serverUrl) => {
    const name = `pm_h_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
    const admin = new Kysely({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: serverUrl, max: 1 }) }),
    });
    await sql`create database ${sql.id(name)}`.execute(admin);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const db = openDb({ url: url.toString(), poolSize: 1 });
    try {
      await expectUnavailable(await healthOf(db));
    } finally {
      await db.destroy();
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
      await admin.destroy();
    }
  },
);
