/**
 * bench/bare_db.ts: every bench child that opens the embedded database closes it when the bench stops it
 * (SIGTERM), as the service does. A folder left open is shut down uncleanly, and the next process to open it
 * pays PostgreSQL's crash recovery: the warm restart row timed exactly that for the service, after each of the
 * bare baseline's starts (docs/performance.md "Memory and start-up"). Read from the folder's own pg_control: the
 * state PostgreSQL records, "in production" while a process has it open, "shut down" after a clean stop.
 */
import assert from "node:assert/strict";
import { startChild } from "@/bench/process.ts";
import { newPGlite } from "@/db/pglite.ts";

/** PostgreSQL's DBState values (src/include/catalog/pg_control.h), stored after three integers. */
const SHUT_DOWN = 1;
const IN_PRODUCTION = 6;

async function folderState(dataDir: string): Promise<number> {
  const control = await Deno.readFile(`${dataDir}/db/global/pg_control`);
  return new DataView(control.buffer, control.byteOffset).getInt32(16, true);
}

/** Waits until a started child has the folder open (its state written as in production). */
async function untilOpen(dataDir: string): Promise<void> {
  for (let i = 0; i < 200 && await folderState(dataDir) !== IN_PRODUCTION; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(await folderState(dataDir), IN_PRODUCTION, "the child opened the folder");
}

const CHILDREN = [
  "tasks/start.ts",
  "bench/baseline_search_server.ts",
  "bench/baseline_idle_server.ts",
  "bench/search_core_server.ts",
  "bench/baseline_drop_off_server.ts",
  "bench/baseline_upload_server.ts",
];

Deno.test("bench children: each closes the embedded database when stopped, leaving it shut down cleanly", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    const pglite = newPGlite({ dataDir: `${dataDir}/db` });
    await pglite.close();
    assert.equal(await folderState(dataDir), SHUT_DOWN);
    for (const script of CHILDREN) {
      const child = await startChild(script, {
        DATA_DIR: dataDir,
        DATABASE_URL: "",
        UPLOAD_DIR: `${dataDir}/uploads`,
        APP_ENV: "development",
        RATE_LIMITS: "off",
      });
      try {
        await untilOpen(dataDir);
      } finally {
        await child.stop();
      }
      assert.equal(await folderState(dataDir), SHUT_DOWN, `${script} stopped cleanly`);
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
