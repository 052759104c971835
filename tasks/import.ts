/** `deno task import <file.json>` (D5): validates, then upserts; prints every problem or a summary. */
import { migrateToLatest } from "@/db/migrate.ts";
import { importData, ImportRejected } from "@/lib/import.ts";
import { systemClock } from "@/io/clock.ts";
import { configOrExit, openConfiguredDb } from "@/tasks/setup.ts";

const path = Deno.args[0];
if (!path) {
  console.error("Usage: deno task import <file.json>");
  Deno.exit(2);
}
let input: unknown;
try {
  input = JSON.parse(await Deno.readTextFile(path));
} catch (error) {
  console.error(`Cannot read ${path}: ${error instanceof Error ? error.message : error}`);
  Deno.exit(1);
}
const config = configOrExit();
const db = await openConfiguredDb(
  config,
  "importing",
  "import through the running server: dashboard → Admin → Import",
);
try {
  await migrateToLatest(db);
  const summary = await importData(db, input, systemClock);
  console.log(
    `Imported ${path}: ${summary.claims} claims, ${summary.parts} parts (${summary.status_changes} status changes), ` +
      `${summary.users} users, ${summary.repairers} repairers, ${summary.hq_locations} HQ locations.`,
  );
} catch (error) {
  if (!(error instanceof ImportRejected)) throw error;
  console.error(error.message);
  for (const p of error.problems) console.error(`  ${p.path}: ${p.problem}`);
  Deno.exitCode = 1;
} finally {
  await db.destroy();
}
