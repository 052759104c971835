import assert from "node:assert/strict";
import { chromiumInstallCommand, ensureChromium, ensureNginx } from "@/tasks/prepare_tests.ts";

Deno.test("prepare_tests: Chromium already in place: nothing to do", async () => {
  const path = await Deno.makeTempFile({ prefix: "chromium" });
  try {
    assert.equal(await ensureChromium(path, false), null);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("prepare_tests: Chromium missing and not root: one line with the exact command, nothing run", async () => {
  const path = `${await Deno.makeTempDir()}/chromium`;
  assert.equal(
    await ensureChromium(path, false),
    `Chromium is missing at ${path} (needed by the browser tests); run: ` +
      "sudo apt-get update && sudo apt-get install -y chromium",
  );
});

Deno.test("prepare_tests: root runs apt-get without sudo", () => {
  assert.equal(chromiumInstallCommand(true), "apt-get update && apt-get install -y chromium");
});

Deno.test("prepare_tests: nginx missing and not root: one line with the exact command, nothing run", async () => {
  const path = `${await Deno.makeTempDir()}/nginx`;
  assert.equal(
    await ensureNginx(path, false),
    `nginx is missing at ${path} (needed by tests/nginx_proxy_test.ts); run: ` +
      "sudo apt-get update && sudo apt-get install -y nginx",
  );
});
