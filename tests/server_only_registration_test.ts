/**
 * Every server-only test (testkit/db.ts: serverTest, serverOnlyTest, dbTest/appTest with
 * `only: "postgres"`) is shown as ignored without TEST_DATABASE_URL, and FAILS on CI (`CI=true`) without
 * it: a server test can never pass on CI by not being registered.
 */
import assert from "node:assert/strict";

const FIXTURE = new URL("./fixtures/server_only_fixture.ts", import.meta.url).pathname;
const NAMES = [
  "fixture serverTest",
  "fixture serverAppTest",
  "fixture serverOnlyTest",
  "fixture dbTest only postgres",
  "fixture appTest only postgres",
];

/** Runs the fixture's tests with this environment minus TEST_DATABASE_URL and CI, plus `extra`. */
async function runFixture(extra: Record<string, string>) {
  const env = Deno.env.toObject();
  delete env.TEST_DATABASE_URL;
  delete env.CI;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--no-check", FIXTURE],
    cwd: new URL("..", import.meta.url).pathname,
    env: { ...env, ...extra, NO_COLOR: "1" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    text: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr),
  };
}

Deno.test("server-only tests: ignored without a server, but FAIL on CI without one", async () => {
  const local = await runFixture({});
  assert.equal(local.code, 0, local.text);
  for (const name of NAMES) {
    assert.match(local.text, new RegExp(`${name} \\[postgres\\] \\.\\.\\. ignored`), local.text);
  }

  const ci = await runFixture({ CI: "true" });
  assert.notEqual(ci.code, 0, ci.text);
  for (const name of NAMES) {
    assert.match(ci.text, new RegExp(`${name} \\[postgres\\] \\.\\.\\. FAILED`), ci.text);
  }
  assert.match(ci.text, /needs TEST_DATABASE_URL \(a PostgreSQL server\) on CI/);
  assert.match(ci.text, /0 passed \| 5 failed/);
});
