/**
 * Run by `deno task test` before the suite, so a fresh machine needs no other set-up step: the browser
 * tests drive Debian's Chromium, which only this step installs (as root, through apt-get). Anywhere else
 * it prints the one command to run and fails, rather than letting every browser test fail on its own.
 */

/** Where the browser tests launch Chromium from (Debian's `chromium` package). */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** What to run by hand when this step cannot install Chromium itself (root needs no sudo). */
export function chromiumInstallCommand(root = Deno.uid() === 0): string {
  const sudo = root ? "" : "sudo ";
  return `${sudo}apt-get update && ${sudo}apt-get install -y chromium`;
}

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
 * Makes sure Chromium is at `path`; returns the one line to print when it cannot be, else null.
 * apt-get missing from PATH (not Debian) counts as "cannot install here", like not being root.
 */
export async function ensureChromium(path = CHROMIUM_PATH, root = Deno.uid() === 0): Promise<string | null> {
  if (await exists(path)) return null;
  const command = chromiumInstallCommand(root);
  const missing = `Chromium is missing at ${path} (needed by the browser tests); run: ${command}`;
  if (!root) return missing;
  let update: Promise<string | null>;
  try {
    update = aptGet(["update"]);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return missing;
    throw error;
  }
  console.log("Installing Chromium for the browser tests (apt-get install chromium)…");
  const problem = await update ?? await aptGet(["install", "-y", "chromium"]);
  if (problem) return `Chromium could not be installed (${problem}); run: ${command}`;
  return (await exists(path)) ? null : missing;
}

// An argument replaces the path, so the missing case can be tried without uninstalling Chromium.
if (import.meta.main) {
  const problem = await ensureChromium(Deno.args[0]);
  if (problem) {
    console.error(problem);
    Deno.exit(1);
  }
}
