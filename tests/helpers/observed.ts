/**
 * For the logs and metrics tests: the test app rebuilt with metrics on (and other configuration), and
 * the service's log lines captured in-process as the configured formatter writes them.
 */
import type { Config } from "@/io/config.ts";
import { configureLogging, type LogSetup, resetLogging } from "@/io/log.ts";
import { Metrics } from "@/lib/metrics.ts";
import { appOver, type TestApp } from "@/testkit/app.ts";

export const METRICS_TOKEN = "metrics-token-for-tests-0123456789";

/** `a` with its app rebuilt over `config` overrides and fresh metrics (METRICS_TOKEN set). */
export function observedApp(a: TestApp, config: Partial<Config> = {}): TestApp & { metrics: Metrics } {
  const metrics = new Metrics();
  const deps = { ...a, config: { ...a.config, metricsToken: METRICS_TOKEN, ...config }, metrics };
  return { ...deps, ...appOver(deps) };
}

export interface CapturedLogs extends Disposable {
  /** Every line written so far, as the formatter wrote it. */
  lines: string[];
  /** The JSON lines parsed (throws on a line that is not one JSON object). */
  records(): Record<string, unknown>[];
}

/**
 * Sends every log line of the process to memory, in `format` (default json) from `level` (default info),
 * until disposed; then logging is back to the default of io/log.ts (errors, as text, on the console).
 */
export function captureLogs(setup: Partial<Omit<LogSetup, "write">> = {}): CapturedLogs {
  const lines: string[] = [];
  configureLogging({ format: "json", level: "info", ...setup, write: (line) => lines.push(line) });
  return {
    lines,
    records: () =>
      lines.map((line) => {
        const value = JSON.parse(line);
        if (typeof value !== "object" || value === null || Array.isArray(value)) {
          throw new Error(`not a JSON object: ${line}`);
        }
        return value;
      }),
    [Symbol.dispose]: resetLogging,
  };
}
