/**
 * Helpers for Chromium tests: launch the Debian Chromium through playwright-core, serve a Hono
 * app on a free local port, and save screenshots for humans to look at.
 */
// deno-lint-ignore no-import-prefix -- a test-only package stays out of the service's import map
import { type Browser, chromium, type Page } from "npm:playwright-core@1.65.1";
export type {
  Browser,
  BrowserContext,
  BrowserContextOptions,
  CDPSession,
  Page,
} from "npm:playwright-core@1.65.1";
import { CHROMIUM_PATH, chromiumInstallCommand } from "@/tasks/prepare_tests.ts";
const SCREENSHOT_DIR = new URL("../test-output/screenshots/", import.meta.url);

// The networking flags keep Chromium from phoning home at start: this machine refuses outside
// connections, and the refused attempts otherwise stall the launch.
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Launches Chromium; fails (never skips) with one line saying how to install it when absent (`deno task
 * test` installs it first when it can: tasks/prepare_tests.ts). `args` are added to the usual flags (a fake
 * camera, for one).
 */
export async function launchBrowser(options: { args?: string[] } = {}): Promise<Browser> {
  try {
    await Deno.stat(CHROMIUM_PATH);
  } catch {
    throw new Error(
      `Chromium is missing at ${CHROMIUM_PATH}: run "deno task test" (installs it as root) or "${chromiumInstallCommand()}"`,
    );
  }
  return await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, ...options.args ?? []],
  });
}

export interface ServedApp {
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Serves an app (anything with Hono's `fetch`) on 127.0.0.1 at a port the OS picks, or at `port` (a
 * server brought back after a test stopped it to cut the tablet off).
 */
export function serveApp(
  app: { fetch: (request: Request) => Response | Promise<Response> },
  port = 0,
): ServedApp {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, onListen() {} },
    (request) => app.fetch(request),
  );
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}`,
    close: () => server.shutdown(),
  };
}

/** Saves a full-page PNG as test-output/screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = new URL(`${name.replace(/[^A-Za-z0-9_-]/g, "_")}.png`, SCREENSHOT_DIR).pathname;
  await page.screenshot({ path, fullPage: true });
  return path;
}
