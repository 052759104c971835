/**
 * The real service (tests/helpers/service_process.ts) on a database of either kind that already holds a
 * signed-in driver and dispatcher: their sessions are made directly in the database before the start (the
 * embedded database can only be written while no server holds it), so tests need no sign-in flow.
 */
import { join } from "node:path";
import { openDb } from "@/db/client.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { type DbKind, freshDb } from "@/testkit/db.ts";
import { makeUser } from "@/testkit/factories.ts";
import { makeSession } from "@/tests/helpers/hq.ts";
import { type ServiceProcess, startService } from "@/tests/helpers/service_process.ts";

export interface ServedSession {
  /** The `Cookie` header value (development: the bare `pm_session` name). */
  cookie: string;
  csrf: string;
}

export interface ServedWithSessions {
  service: ServiceProcess;
  driver: ServedSession;
  dispatcher: ServedSession;
  admin: ServedSession;
  close(): Promise<void>;
}

export async function serveWithSessions(
  kind: DbKind,
  env: Record<string, string> = {},
): Promise<ServedWithSessions> {
  const dataDir = await Deno.makeTempDir({ prefix: "pm-served-" });
  const server = kind === "postgres" ? await freshDb("postgres") : null;
  const db = server?.db ?? openDb({ dir: join(dataDir, "db") });
  if (!server) await migrateToLatest(db);
  const session = async (role: "driver" | "dispatcher" | "admin"): Promise<ServedSession> => {
    const user = await makeUser(db, { role });
    const { token, csrf } = await makeSession(db, user.id, new Date());
    return { cookie: `pm_session=${token}`, csrf };
  };
  const driver = await session("driver");
  const dispatcher = await session("dispatcher");
  const admin = await session("admin");
  if (!server) await db.destroy();
  let service: ServiceProcess;
  try {
    service = await startService({
      DATA_DIR: dataDir,
      ...(server ? { DATABASE_URL: server.url! } : {}),
      ...env,
    });
  } catch (error) {
    await server?.close();
    throw error;
  }
  return {
    service,
    driver,
    dispatcher,
    admin,
    close: async () => {
      await service.kill("SIGTERM");
      await server?.close();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}
