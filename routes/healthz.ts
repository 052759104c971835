/**
 * `GET /healthz` (D3): 200 once migrations ran and the database answers, 503 otherwise. `GET /readyz`
 * (D26, the database part): 200 when the database answers and the latest migration of this code is
 * applied, 503 otherwise. Both answer within `DB_HEALTH_TIMEOUT_MS` whatever the database does
 * (db/health.ts), so a load balancer's probe never hangs on a locked table or a full pool.
 */
import { Hono } from "hono";
import { appliedMigration, LATEST_MIGRATION } from "@/db/health.ts";
import type { AppDeps } from "@/lib/deps.ts";

const UNAVAILABLE = { status: "unavailable" } as const;

export function healthRoutes({ db, config }: AppDeps) {
  return new Hono().get("/", async (c) => {
    try {
      await appliedMigration(db, config.db.healthMs);
      return c.json({ status: "ok" });
    } catch {
      return c.json(UNAVAILABLE, 503);
    }
  });
}

export function readyRoutes({ db, config }: AppDeps) {
  return new Hono().get("/", async (c) => {
    let applied: string | null;
    try {
      applied = await appliedMigration(db, config.db.healthMs);
    } catch {
      return c.json({ ...UNAVAILABLE, reason: "database" }, 503);
    }
    if (applied !== LATEST_MIGRATION) {
      return c.json({ ...UNAVAILABLE, reason: "migrations", applied, expected: LATEST_MIGRATION }, 503);
    }
    return c.json({ status: "ok", migration: applied });
  });
}
