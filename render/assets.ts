/**
 * Builds the browser assets into static/dist/ (git-ignored) and answers "which hashed file is X".
 *
 * - JavaScript: esbuild bundles a generated boot entry (render/island_boot.ts plus one lazy import
 *   per file in islands/), minified, ESM, code-split, content-hashed. A page loads boot-<hash>.js;
 *   the boot imports only the islands whose markers are on the page.
 * - CSS: Tailwind v4 (@tailwindcss/node compile + @tailwindcss/oxide Scanner, as its CLI does)
 *   from static/styles.css, minified, content-hashed.
 *
 * `ensureAssets()` runs at server start: it rebuilds only when the fingerprint of the inputs
 * (sources, styles, lockfile, this builder) differs from the one in static/dist/manifest.json,
 * so a fresh clone builds once and later starts only hash a few files.
 */
import { createHash } from "node:crypto";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type * as esbuildTypes from "esbuild";

export const ASSET_URL_PREFIX = "/static/dist/";
export const REPO_ROOT = fileURLToPath(new URL("../", import.meta.url));
export const DIST_DIR = join(REPO_ROOT, "static", "dist");

/**
 * A built file name: stem, dash, content hash, .js or .css. No dots or slashes beyond the
 * extension, so a name that passes cannot leave the dist folder; the assets route relies on it.
 */
export const ASSET_FILE_NAME = /^[A-Za-z0-9_-]+-[A-Za-z0-9]{8,}\.(?:js|css)$/;

const MANIFEST_FILE = "manifest.json";
// Bump when the manifest shape changes, so old manifests read as stale rather than malformed.
const MANIFEST_VERSION = 1;
// Files that were built but are no longer referenced are kept this long: a page rendered just
// before a rebuild (or by another process on an older build) can still fetch its scripts.
const PRUNE_AFTER_MS = 10 * 60 * 1000;
const BOOT_ENTRY = "island-boot:entry";

export interface AssetManifest {
  version: number;
  /** sha256 over the inputs listed in `watch`; a mismatch means the build is stale. */
  fingerprint: string;
  builtAt: string;
  buildMs: number;
  /** Logical name → built file name: "boot.js", "styles.css". */
  files: Record<string, string>;
  /** Island name (file name in islands/) → built file name of its module. */
  islands: Record<string, string>;
  /** Built JS file → every JS file it imports statically, directly or not (for modulepreload). */
  imports: Record<string, string[]>;
  /** What the fingerprint covers, relative to the root: folders walked whole, and single files. */
  watch: { dirs: string[]; files: string[] };
}

export interface AssetOptions {
  /** Project root holding islands/, static/styles.css, deno.lock. Default: this repository. */
  root?: string;
  /** Output folder. Default: <root>/static/dist. */
  distDir?: string;
  /** Receives one line per build. Default: console.info. */
  log?: (line: string) => void;
}

interface Resolved {
  root: string;
  distDir: string;
  log: (line: string) => void;
}

const loaded = new Map<string, Promise<AssetManifest>>();

/**
 * Returns an up-to-date manifest, building first when outputs are missing or stale. Concurrent
 * calls in one process share one check; processes racing on the same folder write the same
 * content-hashed files atomically, so they cannot corrupt each other.
 */
export function ensureAssets(options: AssetOptions = {}): Promise<AssetManifest> {
  const opts = resolveOptions(options);
  let pending = loaded.get(opts.distDir);
  if (!pending) {
    pending = remember(opts.distDir, checkAssets(opts).then((current) => current ?? build(opts)));
  }
  return pending;
}

/** The manifest if static/dist (or `distDir`) is complete and up to date, else null. Never builds. */
export async function checkAssets(options: AssetOptions = {}): Promise<AssetManifest | null> {
  const opts = resolveOptions(options);
  const current = await readManifest(opts.distDir);
  return current && await isFresh(current, opts) ? current : null;
}

/** Builds unconditionally (ensureAssets is the normal entry point). */
export function buildAssets(options: AssetOptions = {}): Promise<AssetManifest> {
  const opts = resolveOptions(options);
  return remember(opts.distDir, build(opts));
}

function remember(distDir: string, pending: Promise<AssetManifest>): Promise<AssetManifest> {
  loaded.set(distDir, pending);
  // A failed build is forgotten, so the next call (after a fix) tries again.
  pending.catch(() => {
    if (loaded.get(distDir) === pending) loaded.delete(distDir);
  });
  return pending;
}

let manifestCache: AssetManifest | undefined;

/**
 * The manifest of the default dist folder, for rendering. Uses what ensureAssets() built in this
 * process, else reads static/dist/manifest.json as is (tests that render pages without starting
 * the server); throws if neither exists.
 */
export async function getAssets(): Promise<AssetManifest> {
  const pending = loaded.get(DIST_DIR);
  if (pending) return await pending;
  manifestCache ??= await readManifest(DIST_DIR);
  if (!manifestCache) {
    throw new Error("static assets are not built: call ensureAssets() first (deno task start does)");
  }
  return manifestCache;
}

/** URL of a built file by logical name ("styles.css", "boot.js"). */
export function assetUrl(manifest: AssetManifest, logicalName: string): string {
  const file = manifest.files[logicalName];
  if (!file) throw new Error(`no built asset named ${logicalName}`);
  return ASSET_URL_PREFIX + file;
}

/**
 * The script a page with these islands needs: the boot module's URL plus every module it will
 * import for them, to announce with <link rel="modulepreload"> so the browser fetches them in
 * parallel instead of discovering them one import at a time. Null when there are no islands.
 */
export function islandScripts(
  manifest: AssetManifest,
  islandNames: Iterable<string>,
): { boot: string; preload: string[] } | null {
  const names = [...islandNames];
  if (names.length === 0) return null;
  const boot = manifest.files["boot.js"];
  const files = new Set<string>(manifest.imports[boot] ?? []);
  for (const name of names) {
    const file = manifest.islands[name];
    if (!file) {
      throw new Error(`island "${name}" is not in the asset build: is there an islands/${name}.tsx?`);
    }
    files.add(file);
    for (const dep of manifest.imports[file] ?? []) files.add(dep);
  }
  files.delete(boot);
  return {
    boot: ASSET_URL_PREFIX + boot,
    preload: [...files].map((f) => ASSET_URL_PREFIX + f),
  };
}

function resolveOptions(options: AssetOptions): Resolved {
  const root = resolve(options.root ?? REPO_ROOT);
  return {
    root,
    distDir: resolve(options.distDir ?? join(root, "static", "dist")),
    log: options.log ?? ((line) => console.info(line)),
  };
}

async function readManifest(distDir: string): Promise<AssetManifest | undefined> {
  try {
    const manifest = JSON.parse(await Deno.readTextFile(join(distDir, MANIFEST_FILE)));
    return manifest?.version === MANIFEST_VERSION ? manifest as AssetManifest : undefined;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof SyntaxError) return undefined;
    throw error;
  }
}

async function isFresh(manifest: AssetManifest, opts: Resolved): Promise<boolean> {
  const outputs = [...Object.values(manifest.files), ...Object.values(manifest.islands)];
  for (const deps of Object.values(manifest.imports)) outputs.push(...deps);
  for (const file of outputs) {
    if (!await exists(join(opts.distDir, file))) return false;
  }
  return manifest.fingerprint === await fingerprint(opts, manifest.watch);
}

// One build at a time per process: esbuild's service is shared, and stop() would cut off a
// concurrent build.
let buildQueue: Promise<unknown> = Promise.resolve();

function build(opts: Resolved): Promise<AssetManifest> {
  const run = buildQueue.then(() => buildNow(opts));
  buildQueue = run.catch(() => {});
  return run;
}

async function buildNow(opts: Resolved): Promise<AssetManifest> {
  const started = performance.now();
  const islandPaths = await listIslands(opts.root);
  const [js, css] = await Promise.all([buildJs(opts, islandPaths), buildCss(opts)]);

  const cssFile = `styles-${createHash("sha256").update(css.code).digest("hex").slice(0, 10)}.css`;
  const outputs = new Map<string, Uint8Array>(js.outputs);
  outputs.set(cssFile, new TextEncoder().encode(css.code));

  const watch = {
    dirs: css.dirs.map((d) => relative(opts.root, d)).sort(),
    files: [
      ...new Set([
        relative(opts.root, fileURLToPath(import.meta.url)),
        "deno.json",
        "deno.lock",
        ...js.inputs,
        ...css.inputs.map((f) => relative(opts.root, f)),
      ]),
    ]
      // npm packages are pinned by deno.lock; files outside the root (this builder, when building
      // another root in tests) are not the project's inputs.
      .filter((f) => !f.includes("node_modules" + sep) && !f.startsWith(".." + sep)).sort(),
  };
  const manifest: AssetManifest = {
    version: MANIFEST_VERSION,
    fingerprint: await fingerprint(opts, watch),
    builtAt: new Date().toISOString(),
    buildMs: 0,
    files: { "boot.js": js.boot, "styles.css": cssFile },
    islands: js.islands,
    imports: js.imports,
    watch,
  };

  await Deno.mkdir(opts.distDir, { recursive: true });
  for (const [name, bytes] of outputs) {
    // Same name means same content, so an existing file (another process's build) is kept.
    if (!await exists(join(opts.distDir, name))) await writeAtomic(join(opts.distDir, name), bytes);
  }
  manifest.buildMs = Math.round(performance.now() - started);
  await writeAtomic(
    join(opts.distDir, MANIFEST_FILE),
    new TextEncoder().encode(JSON.stringify(manifest, null, 2) + "\n"),
  );
  await prune(opts.distDir, new Set([MANIFEST_FILE, ...outputs.keys()]));
  opts.log(
    `assets: built ${outputs.size} files in ${manifest.buildMs} ms → ${relative(opts.root, opts.distDir)}`,
  );
  return manifest;
}

/** Island name → absolute path, for each PascalCase module in islands/ (helpers start with "_"). */
async function listIslands(root: string): Promise<Map<string, string>> {
  const islands = new Map<string, string>();
  try {
    for await (const entry of Deno.readDir(join(root, "islands"))) {
      const match = /^([A-Z][A-Za-z0-9]*)\.(?:tsx|jsx|ts|js)$/.exec(entry.name);
      if (!entry.isFile || !match) continue;
      if (islands.has(match[1])) throw new Error(`two modules in islands/ are named ${match[1]}`);
      islands.set(match[1], join(root, "islands", entry.name));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return new Map([...islands].sort(([a], [b]) => a.localeCompare(b)));
}

interface JsBuild {
  boot: string;
  islands: Record<string, string>;
  imports: Record<string, string[]>;
  outputs: Map<string, Uint8Array>;
  /** Repository files the bundle read, relative to the root. */
  inputs: string[];
}

async function buildJs(opts: Resolved, islandPaths: Map<string, string>): Promise<JsBuild> {
  const esbuild = await import("esbuild");

  // The boot entry is generated so that adding a file to islands/ needs no registration step;
  // the dynamic imports make esbuild emit one chunk per island, fetched only where used.
  const entry = [
    `import { hydrateIslands } from ${JSON.stringify(join(opts.root, "render", "island_boot.ts"))};`,
    "hydrateIslands({",
    ...[...islandPaths].map(([name, path]) => `  ${name}: () => import(${JSON.stringify(path)}),`),
    "});",
  ].join("\n");

  const plugin: esbuildTypes.Plugin = {
    name: "parts-movement",
    setup(b) {
      b.onResolve({ filter: /^island-boot:entry$/ }, () => ({ path: "entry", namespace: "island-boot" }));
      b.onLoad({ filter: /.*/, namespace: "island-boot" }, () => ({
        contents: entry,
        loader: "ts",
        resolveDir: opts.root,
      }));
      // deno.json's "@/" import-map entry; bare npm names resolve through node_modules/.
      b.onResolve({ filter: /^@\// }, (args) => ({ path: join(opts.root, args.path.slice(2)) }));
    },
  };

  let result: esbuildTypes.BuildResult<{ metafile: true; write: false }>;
  try {
    result = await esbuild.build({
      absWorkingDir: opts.root,
      // Islands are entry points too (besides being imported lazily by the boot) only so that
      // their files carry their names, e.g. Counter-<hash>.js, which reads better in devtools.
      entryPoints: [
        { in: BOOT_ENTRY, out: "boot" },
        ...[...islandPaths].map(([name, path]) => ({ in: path, out: name })),
      ],
      outdir: opts.distDir,
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "browser",
      target: "es2020",
      minify: true,
      write: false,
      metafile: true,
      entryNames: "[name]-[hash]",
      chunkNames: "chunk-[hash]",
      jsx: "automatic",
      jsxImportSource: "preact",
      legalComments: "none",
      define: { "process.env.NODE_ENV": '"production"' },
      logLevel: "silent",
      plugins: [plugin],
    });
  } finally {
    // esbuild keeps a child process alive between builds; a server builds once, so let it go.
    await esbuild.stop();
  }

  const inputs = Object.keys(result.metafile.inputs).filter((p) =>
    !p.includes(":") && !p.includes("node_modules/")
  );
  checkBrowserInputs(result.metafile);

  const outputs = new Map<string, Uint8Array>();
  for (const file of result.outputFiles) outputs.set(baseName(file.path), file.contents);

  const byEntry = new Map<string, string>();
  const directImports = new Map<string, string[]>();
  for (const [path, meta] of Object.entries(result.metafile.outputs)) {
    if (meta.entryPoint) byEntry.set(meta.entryPoint, baseName(path));
    directImports.set(
      baseName(path),
      meta.imports.filter((i) => i.kind === "import-statement" && !i.external).map((i) => baseName(i.path)),
    );
  }
  const imports: Record<string, string[]> = {};
  for (const file of directImports.keys()) imports[file] = closure(file, directImports);

  const islands: Record<string, string> = {};
  for (const [name, path] of islandPaths) {
    const out = byEntry.get(relative(opts.root, path).split(sep).join("/"));
    if (!out) throw new Error(`esbuild produced no module for islands/${name}`);
    islands[name] = out;
  }
  const boot = byEntry.get(BOOT_ENTRY);
  if (!boot) throw new Error("esbuild produced no boot module");
  return { boot, islands, imports, outputs, inputs };
}

// Islands run in the browser and may use islands/, components/ and npm packages; anything else in
// the repository is server code (database, config, secrets) that must not ship to the tablet.
// Type-only imports are erased by esbuild and never show up here.
function checkBrowserInputs(metafile: esbuildTypes.Metafile): void {
  const allowed = (p: string) =>
    // node_modules paths are realpaths, so they can sit outside the root ("../x/node_modules/").
    p.includes(":") || /(^|\/)node_modules\//.test(p) || p.startsWith("islands/") ||
    p.startsWith("components/") || p === "render/island_boot.ts";
  for (const [path, meta] of Object.entries(metafile.inputs)) {
    for (const imp of meta.imports) {
      if (!allowed(imp.path)) {
        throw new Error(
          `${path} imports ${imp.path}, which is server code: islands may import only types from ` +
            "server modules (use `import type`) and talk to the server through its routes",
        );
      }
    }
  }
}

function closure(file: string, direct: Map<string, string[]>): string[] {
  const seen = new Set<string>();
  const visit = (f: string) => {
    for (const dep of direct.get(f) ?? []) {
      if (!seen.has(dep)) {
        seen.add(dep);
        visit(dep);
      }
    }
  };
  visit(file);
  seen.delete(file);
  return [...seen].sort();
}

interface CssBuild {
  code: string;
  /** Folders Tailwind scans for class names. */
  dirs: string[];
  /** Files the stylesheet itself read (static/styles.css and its @imports). */
  inputs: string[];
}

async function buildCss(opts: Resolved): Promise<CssBuild> {
  const [{ compile, optimize }, { Scanner }] = await Promise.all([
    import("@tailwindcss/node"),
    import("@tailwindcss/oxide"),
  ]);
  const from = join(opts.root, "static", "styles.css");
  const base = dirname(from);
  const inputs = new Set([from]);
  const compiler = await compile(await Deno.readTextFile(from), {
    base,
    from,
    onDependency: (path) => inputs.add(path),
  });
  // The same source list the Tailwind CLI derives: `source(none)` disables the automatic root,
  // and each `@source` adds a glob relative to the stylesheet.
  const sources = compiler.sources.map((s) => ({ ...s }));
  if (compiler.root !== "none") {
    sources.unshift({ ...(compiler.root ?? { base: opts.root, pattern: "**/*" }), negated: false });
  }
  const scanner = new Scanner({ sources });
  const code = optimize(compiler.build(scanner.scan()), { minify: true }).code;
  const dirs = sources.filter((s) => !s.negated).map((s) => resolve(s.base, staticPrefix(s.pattern)));
  return { code, dirs, inputs: [...inputs] };
}

/** The folder part of a glob before its first wildcard ("../routes/**\/*.tsx" → "../routes"). */
function staticPrefix(pattern: string): string {
  const parts = pattern.split("/");
  const i = parts.findIndex((p) => /[*?[{]/.test(p));
  return i === -1 ? pattern : parts.slice(0, i).join("/") || ".";
}

async function fingerprint(opts: Resolved, watch: AssetManifest["watch"]): Promise<string> {
  const files = new Set(watch.files.map((f) => join(opts.root, f)));
  for (const dir of watch.dirs) {
    for (const file of await walk(join(opts.root, dir), opts.distDir)) files.add(file);
  }
  const hash = createHash("sha256").update(`manifest v${MANIFEST_VERSION}\n`);
  for (const file of [...files].sort()) {
    hash.update(relative(opts.root, file) + "\0");
    try {
      hash.update(await Deno.readFile(file));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      hash.update("(missing)");
    }
    hash.update("\0");
  }
  return hash.digest("hex");
}

// Hidden folders, node_modules and the output folder never hold class names we write.
async function walk(dir: string, distDir: string): Promise<string[]> {
  const files: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.name.startsWith(".") || entry.name === "node_modules" || path === distDir) continue;
      if (entry.isDirectory) files.push(...await walk(path, distDir));
      else if (entry.isFile) files.push(path);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return files;
}

async function prune(distDir: string, keep: Set<string>): Promise<void> {
  const cutoff = Date.now() - PRUNE_AFTER_MS;
  for await (const entry of Deno.readDir(distDir)) {
    if (!entry.isFile || keep.has(entry.name)) continue;
    const path = join(distDir, entry.name);
    try {
      const { mtime } = await Deno.stat(path);
      if (mtime && mtime.getTime() < cutoff) await Deno.remove(path);
    } catch (error) {
      // Another process pruning the same folder got there first.
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
}

async function writeAtomic(path: string, bytes: Uint8Array): Promise<void> {
  const tmp = `${dirname(path)}/.tmp-${crypto.randomUUID()}`;
  await Deno.writeFile(tmp, bytes);
  await Deno.rename(tmp, path);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
