/**
 * Run by `deno task test` before the suite, so a fresh machine needs no other set-up step: the browser
 * tests drive Debian's Chromium and tests/nginx_proxy_test.ts runs Debian's nginx, which only this step
 * installs (as root, through apt-get). Anywhere else it prints the one command to run and fails, rather
 * than letting those tests fail on their own.
 */

/** Where the browser tests launch Chromium from (Debian's `chromium` package). */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** Where tests/nginx_proxy_test.ts starts nginx from (Debian's `nginx` package). */
export const NGINX_PATH = "/usr/sbin/nginx";

/** What to run by hand when this step cannot install `pkg` itself (root needs no sudo). */
function installCommand(pkg: string, root: boolean): string {
  const sudo = root ? "" : "sudo ";
  return `${sudo}apt-get update && ${sudo}apt-get install -y ${pkg}`;
}

export const chromiumInstallCommand = (root = Deno.uid() === 0) => installCommand("chromium", root);
export const nginxInstallCommand = (root = Deno.uid() === 0) => installCommand("nginx", root);

async function exists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/**
 * Starts one apt-get step without prompts (throws NotFound at once when there is no apt-get); resolves to
 * the last line of its output when it fails, else null.
 */
function aptGet(args: string[]): Promise<string | null> {
  const child = new Deno.Command("apt-get", {
    args: ["-qq", ...args],
    env: { DEBIAN_FRONTEND: "noninteractive" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  return child.output().then(({ code, stdout, stderr }) => {
    if (code === 0) return null;
    const text = new TextDecoder().decode(stderr).trim() || new TextDecoder().decode(stdout).trim();
    return text.split("\n").at(-1) || `apt-get ${args.join(" ")} exited with ${code}`;
  });
}

/**
 * Makes sure Debian's `pkg` is installed, `path` being its program; returns the one line to print when it
 * cannot be, else null. apt-get missing from PATH (not Debian) counts as "cannot install here", like not
 * being root.
 */
async function ensurePackage(
  p: { pkg: string; name: string; path: string; neededBy: string },
  root: boolean,
): Promise<string | null> {
  if (await exists(p.path)) return null;
  const command = installCommand(p.pkg, root);
  const missing = `${p.name} is missing at ${p.path} (needed by ${p.neededBy}); run: ${command}`;
  if (!root) return missing;
  let update: Promise<string | null>;
  try {
    update = aptGet(["update"]);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return missing;
    throw error;
  }
  console.log(`Installing ${p.name} for ${p.neededBy} (apt-get install ${p.pkg})…`);
  const problem = await update ?? await aptGet(["install", "-y", p.pkg]);
  if (problem) return `${p.name} could not be installed (${problem}); run: ${command}`;
  return (await exists(p.path)) ? null : missing;
}

/** Makes sure Chromium is at `path`; returns the one line to print when it cannot be, else null. */
export const ensureChromium = (path = CHROMIUM_PATH, root = Deno.uid() === 0) =>
  ensurePackage({ pkg: "chromium", name: "Chromium", path, neededBy: "the browser tests" }, root);

/** Makes sure nginx is at `path`; returns the one line to print when it cannot be, else null. */
export const ensureNginx = (path = NGINX_PATH, root = Deno.uid() === 0) =>
  ensurePackage({ pkg: "nginx", name: "nginx", path, neededBy: "tests/nginx_proxy_test.ts" }, root);

/** Where tests/evidence_zip_test.ts finds Info-ZIP's `unzip`, the real reader it opens the evidence pack with. */
export const UNZIP_PATH = "/usr/bin/unzip";

/** Makes sure unzip is at `path`; returns the one line to print when it cannot be, else null. */
export const ensureUnzip = (path = UNZIP_PATH, root = Deno.uid() === 0) =>
  ensurePackage({ pkg: "unzip", name: "unzip", path, neededBy: "tests/evidence_zip_test.ts" }, root);

// An argument replaces the path, so the missing case can be tried without uninstalling Chromium.
if (import.meta.main) {
  const problem = await ensureChromium(Deno.args[0]) ?? await ensureNginx() ?? await ensureUnzip();
  if (problem) {
    console.error(problem);
    Deno.exit(1);
  }
}
