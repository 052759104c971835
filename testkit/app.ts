/**
 * The app under test: `createApp` over a fresh database of each kind, a fake clock, photo storage in a
 * temporary folder, and a `handler()` shortcut that posts a payload to the mobile handler.
 */
import { FakeClock } from "@/io/clock.ts";
import { type Config, testConfig } from "@/io/config.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { createApp } from "@/main.ts";
import { type DbKind, dbTest, serverTest, type TestDb } from "@/testkit/db.ts";

export interface TestApp extends AppDeps {
  /** The disk store: tests may look at its files (photo_store_*_test.ts cover the other backends). */
  storage: DiskPhotoStore;
  kind: DbKind;
  /** The server URL of this test's database (PostgreSQL server runs only). */
  url?: string;
  clock: FakeClock;
  app: ReturnType<typeof createApp>;
  dataDir: string;
  /** POSTs `{ payload }` to the handler with the right public key; returns the HTTP response. */
  handler(payload: unknown): Promise<Response>;
  /** Like `handler`, parsed: the JSON body, asserting HTTP 200 JSON. */
  call(payload: unknown): Promise<HandlerAnswer>;
}

export interface HandlerAnswer {
  code: number;
  result: { status: "success" | "failure"; data?: Record<string, unknown>; text?: string };
}

/** The test apps' health bound: see buildTestApp. */
export const TEST_HEALTH_MS = 60_000;

export async function buildTestApp(t: TestDb, config: Partial<Config> = {}): Promise<TestApp> {
  const dataDir = await Deno.makeTempDir({ prefix: "pm-test-" });
  const clock = new FakeClock();
  const deps = {
    db: t.db,
    // The probes' database bound (2 s in service) far above a loaded CI machine's slowest query: a test
    // about what /healthz or /readyz check must not get a 503 because the machine was busy. Tests of the
    // bound itself set their own (tests/db_timeouts_test.ts, tests/readyz_test.ts).
    config: testConfig({ dataDir, db: { ...testConfig().db, healthMs: TEST_HEALTH_MS }, ...config }),
    clock,
    storage: new DiskPhotoStore(`${dataDir}/photos`),
  } satisfies AppDeps;
  return { ...deps, kind: t.kind, url: t.url, clock, dataDir, ...appOver(deps) };
}

/** The app over `deps`, with the `handler`/`call` shortcuts (also for tests that rebuild it over new deps). */
export function appOver(deps: AppDeps): Pick<TestApp, "app" | "handler" | "call"> {
  const app = createApp(deps);
  const handler = (payload: unknown) =>
    Promise.resolve(app.request(`/api/handler?publickey=${encodeURIComponent(deps.config.publicKey)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ payload }),
    }));
  return {
    app,
    handler,
    call: async (payload) => {
      const res = await handler(payload);
      if (res.status !== 200) throw new Error(`handler answered HTTP ${res.status}: ${await res.text()}`);
      if (!res.headers.get("content-type")?.startsWith("application/json")) {
        throw new Error("handler: not JSON");
      }
      return await res.json();
    },
  };
}

type AppTestOptions = { config?: Partial<Config>; only?: DbKind; poolSize?: number };

async function runWithApp(t: TestDb, fn: (a: TestApp) => Promise<void>, config?: Partial<Config>) {
  const a = await buildTestApp(t, config);
  try {
    await fn(a);
  } finally {
    await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
  }
}

/** An app test on every database kind (see dbTest). */
export function appTest(name: string, fn: (a: TestApp) => Promise<void>, opts: AppTestOptions = {}): void {
  dbTest(name, (t) => runWithApp(t, fn, opts.config), opts);
}

/** An app test that needs the PostgreSQL server (races): see serverTest. */
export function serverAppTest(
  name: string,
  fn: (a: TestApp) => Promise<void>,
  opts: AppTestOptions = {},
): void {
  serverTest(name, (t) => runWithApp(t, fn, opts.config), opts);
}
