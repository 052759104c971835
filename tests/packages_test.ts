/**
 * What installing the service fetches (docs/testing.md "Packages and lock files"): deno.json's import map and
 * deno.lock, which `deno install` and `deno task start` install whole, name no test-only package nor anything
 * only those bring; deno.dev.lock, the tests' and the bench's, holds them; both locks are frozen.
 */
import assert from "node:assert/strict";

const TEST_ONLY = [
  "s3rver",
  "playwright-core",
  "fast-check",
  "axe-core",
  "@remix-run/multipart-parser",
  "hono-rate-limiter",
  "smtp-server",
  "mailparser",
];
/** Brought by s3rver alone (fast-xml-parser 3 and dicer carry known CVEs). */
const BROUGHT_BY_TEST_ONLY = ["fast-xml-parser", "dicer", "koa"];

const root = new URL("../", import.meta.url);
const readJson = async (name: string) => JSON.parse(await Deno.readTextFile(new URL(name, root)));

/** Package names (without versions) of a lock file's npm section. */
function lockedPackages(lock: { npm?: Record<string, unknown> }): Set<string> {
  // Keys are `name@version`, with peers after an underscore (`hono-rate-limiter@0.5.4_hono@4.13.19`).
  return new Set(Object.keys(lock.npm ?? {}).map((key) => key.slice(0, key.indexOf("@", 1))));
}

Deno.test("packages: the service's import map and lock name no test-only package", async () => {
  const config = await readJson("deno.json");
  const imports = Object.values(config.imports as Record<string, string>).join(" ");
  for (const name of TEST_ONLY) assert.ok(!imports.includes(`npm:${name}@`), `deno.json imports ${name}`);
  const locked = lockedPackages(await readJson("deno.lock"));
  for (const name of [...TEST_ONLY, ...BROUGHT_BY_TEST_ONLY]) {
    assert.ok(!locked.has(name), `deno.lock holds ${name}`);
  }
});

Deno.test("packages: the tests' lock holds the test-only packages; both locks are frozen", async () => {
  const locked = lockedPackages(await readJson("deno.dev.lock"));
  for (const name of TEST_ONLY) assert.ok(locked.has(name), `deno.dev.lock lacks ${name}`);
  const config = await readJson("deno.json");
  assert.deepEqual(config.lock, { path: "./deno.lock", frozen: true });
  for (const task of ["test", "check", "bench"]) {
    assert.match(config.tasks[task], /--lock=deno\.dev\.lock/, `task ${task} runs on deno.lock`);
  }
});
