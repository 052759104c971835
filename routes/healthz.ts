/** `GET /healthz` (D3): 200 once migrations ran and the database answers, 503 otherwise. */
import { Hono } from "hono";
import { migrationsRan } from "@/db/migrate.ts";
import type { AppDeps } from "@/lib/deps.ts";

/**
 * A pooled connection the server has just closed (restart, pg_terminate_backend) fails its next query
 * once and is then dropped from the pool; quick retries keep that from reading as an outage.
 */
const ATTEMPTS = 3;
const RETRY_DELAY_MS = 100;

export function healthRoutes({ db }: AppDeps) {
  return new Hono().get("/", async (c) => {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        await migrationsRan(db);
        return c.json({ status: "ok" });
      } catch {
        if (attempt < ATTEMPTS) await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
      }
    }
    return c.json({ status: "unavailable" }, 503);
  });
}
