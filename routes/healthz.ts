/** `GET /healthz` (D3): 200 once migrations ran and the database answers, 503 otherwise. */
import { Hono } from "hono";
import { sql } from "kysely";
import type { AppDeps } from "@/lib/deps.ts";

export function healthRoutes({ db }: AppDeps) {
  return new Hono().get("/", async (c) => {
    try {
      // The migrations table exists only once the migrator ran; a query on it proves both at once.
      await sql`select 1 from kysely_migration limit 1`.execute(db);
      return c.json({ status: "ok" });
    } catch {
      return c.json({ status: "unavailable" }, 503);
    }
  });
}
