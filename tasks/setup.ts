/** What every task does first: read the configuration (or exit naming the variable) and open the database. */
import { join } from "node:path";
import { openDb } from "@/db/client.ts";
import { EmbeddedDbBusy, lockEmbeddedDb } from "@/db/embedded_lock.ts";
import { type Config, ConfigError, parseConfig } from "@/io/config.ts";

/** Reads the configuration or stops the process with one line naming the variable (D2). */
export function configOrExit(): Config {
  try {
    return parseConfig(Deno.env.toObject());
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      Deno.exit(1);
    }
    throw error;
  }
}

/**
 * Opens the configured database (taking the embedded lock) or exits with the reason; `alternative` says
 * what to do instead while a server holds the embedded database.
 */
export async function openConfiguredDb(config: Config, purpose: string, alternative?: string) {
  // The time bounds apply to a server only (db/client.ts says why not to PGlite).
  if (config.databaseUrl) return openDb({ url: config.databaseUrl, timeouts: config.db });
  try {
    await lockEmbeddedDb(config.dataDir, purpose, alternative);
  } catch (error) {
    if (error instanceof EmbeddedDbBusy) {
      console.error(error.message);
      Deno.exit(1);
    }
    throw error;
  }
  return openDb({ dir: join(config.dataDir, "db") });
}
