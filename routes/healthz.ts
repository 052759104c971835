/**
 * `GET /healthz` (D3): 200 once migrations ran and the database answers, 503 otherwise. `GET /readyz`
 * (D26): 200 when the database answers, the latest migration of this code is applied and the photo store
 * takes a write (PhotoStore.checkWritable: the staging folder, then a probe in the backend) and DATA_DIR's
 * file system has at least `MIN_FREE_DISK_BYTES` free (lib/disk_space.ts), 503 naming what failed otherwise. Both answer within `DB_HEALTH_TIMEOUT_MS` whatever the database does
 * (db/health.ts), so a load balancer's probe never hangs on a locked table or a full pool.
 */
import { Hono } from "hono";
import { appliedMigration, LATEST_MIGRATION, withDeadline } from "@/db/health.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { diskSpaceOf } from "@/lib/disk_space.ts";

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

export function readyRoutes(deps: AppDeps) {
  const { db, config, storage } = deps;
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
    try {
      // Within the same bound: a store that hangs (S3 unreachable) must not hang the probe.
      await withDeadline(
        storage.checkWritable(),
        config.db.healthMs,
        () => new Error("photo store: no answer"),
      );
    } catch {
      return c.json({ ...UNAVAILABLE, reason: "photo_store" }, 503);
    }
    try {
      // A full disk fails the embedded database and every upload's staging: not ready before it is full.
      if ((await diskSpaceOf(deps).check()).state === "under") throw new Error("low");
    } catch {
      return c.json({ ...UNAVAILABLE, reason: "disk_space" }, 503);
    }
    return c.json({ status: "ok", migration: applied });
  });
}
