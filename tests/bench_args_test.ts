/**
 * `deno task bench`'s options (tasks/bench.ts, docs/performance.md "Running it"): a `--scale-url` that cannot
 * be used is refused before anything is filled or measured, with the reason.
 */
import assert from "node:assert/strict";

async function bench(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--lock=deno.dev.lock", "tasks/bench.ts", ...args],
    cwd: new URL("../", import.meta.url),
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

const URL_ = "postgres://postgres@127.0.0.1:5432/pm_nothing";

Deno.test("--scale-url: refused without DATABASE_URL, for other groups, or when not a postgres URL", async () => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [["--only", "dashboard", "--scale-url", URL_], { DATABASE_URL: "" }, /needs DATABASE_URL/],
    [["--only", "pages", "--scale-url", URL_], { DATABASE_URL: URL_ }, /dashboard and runsheet/],
    [["--only", "dashboard", "--scale-url", "/tmp/x"], { DATABASE_URL: URL_ }, /postgres:\/\/ URL/],
  ];
  for (const [args, env, reason] of cases) {
    const { code, stderr } = await bench(args, env);
    assert.equal(code, 2, stderr);
    assert.match(stderr, reason);
  }
});
