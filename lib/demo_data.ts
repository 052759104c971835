/** Demo data (D4): loaded on a development start when the database has no users and no claims. */
import type { Db } from "@/db/client.ts";
import { anyClaim } from "@/db/queries/claims.ts";
import { activeUserByEmail, anyUser } from "@/db/queries/users.ts";
import type { Device } from "@/db/schema.ts";
import { enrolDevice } from "@/lib/devices.ts";
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

/** The demo's admin (in db/demo_data.json): its presence says the demo data is loaded. */
const DEMO_ADMIN_EMAIL = "admin@depot.example";
export const DEMO_TABLET_NAME = "Demo tablet";

/**
 * The development demo's automatic tablet enrolment: with APP_ENV=development and the demo data loaded
 * (its admin account is active), a browser that opens /tablet/sign-in without a device cookie is enrolled
 * as "Demo tablet", enrolled by the demo admin, so `deno task start` then /tablet works at once. Anywhere
 * else (stage, production, a development database without the demo data) it returns null and an admin
 * enrols each tablet from /hq/admin/tablets.
 */
export async function enrolDemoTablet(
  db: Db,
  config: Config,
  clock: Clock,
): Promise<{ device: Device; token: string } | null> {
  if (config.appEnv !== "development") return null;
  const admin = await activeUserByEmail.executeTakeFirst(db, DEMO_ADMIN_EMAIL);
  if (admin?.role !== "admin") return null;
  return await enrolDevice(db, clock, { name: DEMO_TABLET_NAME, enrolledBy: admin.id });
}

export const DEMO_SIGN_IN_HINT = [
  "Demo data loaded. Sign in on a tablet at /tablet as dana@depot.example with PIN 4821 (driver)",
  "(in development the browser is enrolled as a depot tablet by itself: see docs/tablet.md),",
  "or on the dashboard at /hq as priya@depot.example / dispatcher-demo-2468 (dispatcher)",
  "or admin@depot.example / admin-demo-9999 (admin).",
  "Try the regos ABC123 (direct), XYZ 789 (reverse pickup), 456 (several vehicles).",
].join("\n");
