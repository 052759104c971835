/**
 * `deno task photos:migrate --to postgres|s3`: copies every photo (and thumbnail) of the configured store
 * (PHOTO_STORE, the source) into another, and verifies each copy by reading it back from the target and
 * hashing it (the key is its SHA-256). It switches nothing: once it reports every photo copied and verified,
 * the operator sets PHOTO_STORE to the target on every instance and restarts them (docs/operations.md).
 * Photos already in the target are verified, not copied again, so a second run right before the switch
 * only copies what was uploaded meanwhile. The source is never changed.
 */
import { createHash } from "node:crypto";
import { parseArgs } from "node:util";
import type { PhotoStoreName } from "@/io/config.ts";
import type { PhotoStore } from "@/io/photo_storage.ts";
import { configOrExit, openConfiguredDb, openPhotoStore } from "@/tasks/setup.ts";

export interface MigrationReport {
  copied: number;
  /** Already in the target with the right bytes. */
  present: number;
  /** Keys that could not be copied or did not verify, with the reason. */
  failed: { key: string; reason: string }[];
}

/** SHA-256 (hex) of a stored photo as the store gives it back, or null if it is missing. */
async function hashOf(store: PhotoStore, key: string): Promise<string | null> {
  const body = await store.open(key);
  if (!body) return null;
  const hash = createHash("sha256");
  for await (const chunk of body) hash.update(chunk);
  return hash.digest("hex");
}

/** Copies and verifies every photo of `from` into `to`; `log` hears about each hundredth photo. */
export async function copyPhotos(
  from: PhotoStore,
  to: PhotoStore,
  log: (line: string) => void = () => {},
): Promise<MigrationReport> {
  const report: MigrationReport = { copied: 0, present: 0, failed: [] };
  let seen = 0;
  for await (const key of from.keys()) {
    try {
      if (await to.exists(key) && await hashOf(to, key) === key) {
        report.present++;
      } else {
        const stat = await from.stat(key);
        const body = await from.open(key);
        if (!stat || !body) throw new Error("it vanished from the source");
        // writeStream hashes the bytes as they arrive and the target verifies its copy on commit.
        const stored = await to.writeStream(body, { maxBytes: stat.bytes });
        if (stored.key !== key) throw new Error(`the source holds other bytes (${stored.key})`);
        if (await hashOf(to, key) !== key) throw new Error("the target gives back other bytes");
        report.copied++;
      }
    } catch (error) {
      report.failed.push({ key, reason: error instanceof Error ? error.message : String(error) });
    }
    if (++seen % 100 === 0) log(`${seen} photos done…`);
  }
  return report;
}

const TARGETS: PhotoStoreName[] = ["disk", "postgres", "s3"];

async function main(): Promise<void> {
  const { values } = parseArgs({ args: Deno.args, options: { to: { type: "string" } } });
  const to = values.to as PhotoStoreName | undefined;
  if (!to || !TARGETS.includes(to)) {
    console.error("usage: deno task photos:migrate --to postgres|s3   (or disk; the source is PHOTO_STORE)");
    Deno.exit(2);
  }
  const config = configOrExit();
  if (to === config.photoStore) {
    console.error(`PHOTO_STORE is already ${to}: nothing to migrate.`);
    Deno.exit(2);
  }
  if (to === "s3" && !config.s3) {
    console.error("Set S3_BUCKET (and the other S3_* variables) for the target first.");
    Deno.exit(2);
  }
  const db = await openConfiguredDb(config, "migrating photos");
  const source = await openPhotoStore(config, db);
  const target = await openPhotoStore(config, db, to);
  try {
    const r = await copyPhotos(source, target, (line) => console.log(line));
    console.log(`${r.copied} photos copied, ${r.present} already there, ${r.failed.length} failed.`);
    if (r.failed.length) {
      for (const f of r.failed.slice(0, 20)) console.error(`  ${f.key}: ${f.reason}`);
      console.error(`Nothing was switched. Fix the cause and run it again (it resumes where it stopped).`);
      Deno.exit(1);
    }
    console.log(
      `Every photo of the ${config.photoStore} store is in ${to}, verified by its SHA-256. Nothing was switched: ` +
        `set PHOTO_STORE=${to} on every instance and restart them. The ${config.photoStore} copies are left as they are.`,
    );
  } finally {
    source.close();
    target.close();
    await db.destroy();
  }
}

if (import.meta.main) await main();
