/**
 * Builds the browser assets into static/dist/ (git-ignored) and answers "which hashed file is X".
 * The work is split by job under render/assets/: js.ts (esbuild bundle of the islands), css.ts
 * (Tailwind), compress.ts (brotli and gzip copies of each), manifest.ts (the manifest, its fingerprint
 * and the dist folder's files).
 *
 * `ensureAssets()` runs at server start: it rebuilds only when the fingerprint of the inputs
 * (sources, styles, lockfile, this builder) differs from the one in static/dist/manifest.json,
 * so a fresh clone builds once and later starts only hash a few files.
 *
 * Islands come from islands/ only, unless `islandDirs` says otherwise: tests add tests/islands/
 * (test-only islands such as Counter) and build into their own dist folder, so production never
 * bundles a test island.
 */
import { createHash } from "node:crypto";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { precompress } from "./assets/compress.ts";
import { buildCss } from "./assets/css.ts";
import { buildJs, listIslands } from "./assets/js.ts";
import { buildServiceWorker, SERVICE_WORKER, STATIC_OFFLINE_FILES } from "./assets/sw.ts";
import { decoderWasm } from "./assets/decoder.ts";
import {
  type AssetManifest,
  type AssetProject,
  fingerprint,
  isFresh,
  MANIFEST_FILE,
  newManifest,
  prune,
  readManifest,
  writeManifest,
  writeOutputs,
} from "./assets/manifest.ts";

export type { AssetManifest } from "./assets/manifest.ts";

export const ASSET_URL_PREFIX = "/static/dist/";
export const REPO_ROOT = fileURLToPath(new URL("../", import.meta.url));
export const DIST_DIR = join(REPO_ROOT, "static", "dist");
/** The island folders of the production build. */
export const ISLAND_DIRS: readonly string[] = ["islands"];

/**
 * A built file name: stem, dash, content hash, .js, .css or .wasm (the QR decoder). No dots or slashes beyond the
 * extension, so a name that passes cannot leave the dist folder; the assets route relies on it.
 */
export const ASSET_FILE_NAME = /^[A-Za-z0-9_-]+-[A-Za-z0-9]{8,}\.(?:js|css|wasm)$/;

// The builder's own modules: a change to how assets are built makes every build stale.
const BUILDER_FILE = fileURLToPath(import.meta.url);
const BUILDER_DIR = fileURLToPath(new URL("./assets/", import.meta.url));

export interface AssetOptions {
  /** Project root holding islands/, static/styles.css, deno.lock. Default: this repository. */
  root?: string;
  /** Output folder. Default: <root>/static/dist. */
  distDir?: string;
  /**
   * Folders (relative to the root) whose PascalCase modules are islands. Default: ISLAND_DIRS.
   * Give a build with other folders its own `distDir`: one folder holds one build.
   */
  islandDirs?: readonly string[];
  /** Receives one line per build. Default: console.info. */
  log?: (line: string) => void;
}

interface Resolved extends AssetProject {
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
  const distDir = resolve(options.distDir ?? join(root, "static", "dist"));
  const islandDirs = normalizeIslandDirs(root, options.islandDirs ?? ISLAND_DIRS);
  // static/dist is what the server ships: a build with test islands there would reach production.
  if (distDir === resolve(DIST_DIR) && islandDirs.join() !== ISLAND_DIRS.join()) {
    throw new Error(`a build with island folders ${islandDirs.join(", ")} needs its own distDir`);
  }
  return { root, distDir, islandDirs, log: options.log ?? ((line) => console.info(line)) };
}

// One spelling per folder, so the fingerprint and the import rule compare like with like.
function normalizeIslandDirs(root: string, dirs: readonly string[]): string[] {
  const normalized = dirs.map((dir) => relative(root, resolve(root, dir)).split(sep).join("/"));
  for (const [i, dir] of normalized.entries()) {
    if (!dir || dir.startsWith("../") || dir === ".." || isAbsolute(dir)) {
      throw new Error(`island folder ${dirs[i]} must be a folder inside the project root`);
    }
  }
  return [...new Set(normalized)].sort();
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
  const islandPaths = await listIslands(opts);
  const wasm = await decoderWasm(opts.root);
  const decoderUrl = wasm ? ASSET_URL_PREFIX + wasm.file : "";
  const [js, css] = await Promise.all([buildJs(opts, islandPaths, decoderUrl), buildCss(opts)]);

  const cssFile = `styles-${createHash("sha256").update(css.code).digest("hex").slice(0, 10)}.css`;
  const outputs = new Map<string, Uint8Array>(js.outputs);
  outputs.set(cssFile, new TextEncoder().encode(css.code));
  // The tablet's service worker caches every file above for offline use (render/assets/sw.ts), but the
  // QR decoder: fetched on Scan only (scanning needs the network anyway; render/assets/decoder.ts).
  const precache = [...outputs.keys()].filter((f) => !js.decoder.includes(f));
  const worker = await buildServiceWorker(precache.map((f) => ASSET_URL_PREFIX + f), REPO_ROOT);
  if (wasm) outputs.set(wasm.file, wasm.bytes);
  outputs.set(worker.file, worker.code);

  const inRoot = (f: string) => relative(opts.root, f);
  // npm packages are pinned by deno.lock; files outside the root (this builder, when building
  // another root in tests) are not the project's inputs.
  const projectFile = (f: string) => !f.includes("node_modules" + sep) && !f.startsWith(".." + sep);
  const watch = {
    dirs: [...new Set([...css.dirs, BUILDER_DIR].map(inRoot))].filter(projectFile).sort(),
    files: [
      ...new Set([
        inRoot(BUILDER_FILE),
        "deno.json",
        "deno.lock",
        ...js.inputs,
        ...css.inputs.map(inRoot),
        ...STATIC_OFFLINE_FILES.map((url) => inRoot(join(REPO_ROOT, url))),
      ]),
    ].filter(projectFile).sort(),
  };
  const compressed = precompress(outputs);
  const manifest = newManifest({
    fingerprint: await fingerprint(opts, watch),
    builtAt: new Date().toISOString(),
    buildMs: 0,
    files: {
      "boot.js": js.boot,
      "styles.css": cssFile,
      [SERVICE_WORKER]: worker.file,
      ...(wasm ? { "zxing_reader.wasm": wasm.file } : {}),
    },
    islands: js.islands,
    imports: js.imports,
    decoder: [...js.decoder, ...(wasm ? [wasm.file] : [])].sort(),
    compressed: [...compressed.keys()].sort(),
    watch,
  });

  await writeOutputs(opts.distDir, new Map([...outputs, ...compressed]));
  manifest.buildMs = Math.round(performance.now() - started);
  await writeManifest(opts.distDir, manifest);
  await prune(opts.distDir, new Set([MANIFEST_FILE, ...outputs.keys(), ...compressed.keys()]));
  opts.log(
    `assets: built ${outputs.size} files (+${compressed.size} compressed) in ${manifest.buildMs} ms → ` +
      relative(opts.root, opts.distDir),
  );
  return manifest;
}
