/**
 * Where a bench group's database lives and how the service child it starts reaches it: tasks/bench.ts makes one
 * target per database (embedded always, the server when DATABASE_URL is set) and hands it to every group.
 */
import type { Db } from "@/db/client.ts";

/** Where the bench's database lives and how a child process reaches it. */
export interface BenchTarget {
  kind: "embedded" | "server";
  /** Environment for child processes (DATABASE_URL or DATA_DIR). */
  env: Record<string, string>;
  dataDir: string;
  /** Opens an in-process connection (embedded: only while no child holds the database). */
  open(): Db;
}

/** The public key the bench's service children are started with. */
export const BENCH_PUBLIC_KEY = "bench-public-key";

/** Environment for the service child: development (no demo data: the database is not empty). */
export const serviceEnv = (target: BenchTarget) => ({
  ...target.env,
  APP_ENV: "development",
  PUBLIC_KEY: BENCH_PUBLIC_KEY,
  // The log format outside development (io/config.ts): every request's line is on the measured path.
  LOG_FORMAT: "json",
  // The whole load comes from one address and one user: the per-client limits would refuse most of it.
  RATE_LIMITS: "off",
});
