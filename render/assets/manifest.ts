/**
 * The build's record in the dist folder: the manifest's shape, reading it, the fingerprint that says
 * whether it is stale, and the file operations that keep the folder safe for concurrent processes.
 */
import { createHash } from "node:crypto";
import { dirname, join, relative } from "node:path";

export const MANIFEST_FILE = "manifest.json";
// Bump when the manifest shape changes, so old manifests read as stale rather than malformed.
const MANIFEST_VERSION = 3;
// Files that were built but are no longer referenced are kept this long: a page rendered just
// before a rebuild (or by another process on an older build) can still fetch its scripts.
const PRUNE_AFTER_MS = 10 * 60 * 1000;

export interface AssetManifest {
  version: number;
  /** sha256 over the island folders and the inputs listed in `watch`; a mismatch means stale. */
  fingerprint: string;
  builtAt: string;
  buildMs: number;
  /** Logical name → built file name: "boot.js", "styles.css". */
  files: Record<string, string>;
  /** Island name (file name in an island folder) → built file name of its module. */
  islands: Record<string, string>;
  /** Built JS file → every JS file it imports statically, directly or not (for modulepreload). */
  imports: Record<string, string[]>;
  /** The QR decoder's files (its chunks and WebAssembly): fetched on Scan only, never precached. */
  decoder: string[];
  /** The precompressed copies (`boot-X.js.br`, `styles-Y.css.gz`), written beside their files. */
  compressed: string[];
  /** What the fingerprint covers, relative to the root: folders walked whole, and single files. */
  watch: { dirs: string[]; files: string[] };
}

/** What one build reads and writes (absolute root and dist folder; island folders relative to root). */
export interface AssetProject {
  root: string;
  distDir: string;
  /** Sorted, "/"-separated, inside root: "islands" in production, plus "tests/islands" in tests. */
  islandDirs: string[];
}

export function newManifest(fields: Omit<AssetManifest, "version">): AssetManifest {
  return { version: MANIFEST_VERSION, ...fields };
}

export async function readManifest(distDir: string): Promise<AssetManifest | undefined> {
  try {
    const manifest = JSON.parse(await Deno.readTextFile(join(distDir, MANIFEST_FILE)));
    return manifest?.version === MANIFEST_VERSION ? manifest as AssetManifest : undefined;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof SyntaxError) return undefined;
    throw error;
  }
}

export function writeManifest(distDir: string, manifest: AssetManifest): Promise<void> {
  return writeAtomic(
    join(distDir, MANIFEST_FILE),
    new TextEncoder().encode(JSON.stringify(manifest, null, 2) + "\n"),
  );
}

/** True when every file the manifest names exists and no input changed since it was built. */
export async function isFresh(manifest: AssetManifest, project: AssetProject): Promise<boolean> {
  const outputs = [
    ...Object.values(manifest.files),
    ...Object.values(manifest.islands),
    ...manifest.decoder,
    ...manifest.compressed,
  ];
  for (const deps of Object.values(manifest.imports)) outputs.push(...deps);
  // Checked at once rather than one after another: this runs on every start (docs/performance.md
  // "Memory and start-up").
  const present = await Promise.all(outputs.map((file) => exists(join(project.distDir, file))));
  if (!present.every(Boolean)) return false;
  return manifest.fingerprint === await fingerprint(project, manifest.watch);
}

export async function fingerprint(project: AssetProject, watch: AssetManifest["watch"]): Promise<string> {
  const { root, distDir } = project;
  const files = new Set(watch.files.map((f) => join(root, f)));
  for (const dir of watch.dirs) {
    for (const file of await walk(join(root, dir), distDir)) files.add(file);
  }
  // The island folders are part of the fingerprint: a build made with the test islands (another
  // folder list) must read as stale to a check for the production list, even if no file changed.
  const hash = createHash("sha256")
    .update(`manifest v${MANIFEST_VERSION}\nislands ${project.islandDirs.join(",")}\n`);
  const sorted = [...files].sort();
  // Read at once, hashed in name order: the same digest as reading one by one, without a wait per file.
  const contents = await Promise.all(sorted.map(async (file) => {
    try {
      return await Deno.readFile(file);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      return "(missing)";
    }
  }));
  for (const [i, file] of sorted.entries()) {
    hash.update(relative(root, file) + "\0");
    hash.update(contents[i]);
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

/** Writes the built files; same name means same content, so a file already there is kept. */
export async function writeOutputs(distDir: string, outputs: Map<string, Uint8Array>): Promise<void> {
  await Deno.mkdir(distDir, { recursive: true });
  for (const [name, bytes] of outputs) {
    if (!await exists(join(distDir, name))) await writeAtomic(join(distDir, name), bytes);
  }
}

/** Removes files no longer named by the manifest once they are old enough (see PRUNE_AFTER_MS). */
export async function prune(distDir: string, keep: Set<string>): Promise<void> {
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
