/** Demo data (D4): loaded on a development start when the database has no users and no claims. */
import type { Db } from "@/db/client.ts";
import { anyClaim } from "@/db/queries/claims.ts";
import { anyUser } from "@/db/queries/users.ts";
import { importData } from "@/lib/import.ts";
import type { Clock } from "@/io/clock.ts";
import type { Config } from "@/io/config.ts";

export const DEMO_DATA_URL = new URL("../db/demo_data.json", import.meta.url);

/** Loads the demo data when allowed and the database is empty; returns whether it did. */
export async function loadDemoDataIfEmpty(db: Db, config: Config, clock: Clock): Promise<boolean> {
  if (config.appEnv !== "development") return false;
  if (await anyUser(db) || await anyClaim(db)) return false;
  await importData(db, JSON.parse(await Deno.readTextFile(DEMO_DATA_URL)), clock);
  return true;
}

export const DEMO_SIGN_IN_HINT = [
  "Demo data loaded. Sign in on a tablet at /tablet as dana@depot.example with PIN 4821 (driver),",
  "or on the dashboard at /hq as priya@depot.example / 2468 (dispatcher) or admin@depot.example / 9999 (admin).",
  "Try the regos ABC123 (direct), XYZ 789 (reverse pickup), 456 (several vehicles).",
].join("\n");
