/**
 * The browser JavaScript: esbuild bundles a generated boot entry (render/island_boot.ts plus one lazy
 * import per island) minified, ESM, code-split and content-hashed. A page loads boot-<hash>.js; the boot
 * imports only the islands whose markers are on the page.
 */
import { join, relative, sep } from "node:path";
import type * as esbuildTypes from "esbuild";
import type { AssetProject } from "./manifest.ts";
import { DECODER_URL_CONSTANT, isDecoderInput } from "./decoder.ts";

const BOOT_ENTRY = "island-boot:entry";

export interface JsBuild {
  boot: string;
  islands: Record<string, string>;
  imports: Record<string, string[]>;
  outputs: Map<string, Uint8Array>;
  /** Repository files the bundle read, relative to the root. */
  inputs: string[];
  /** Output files holding the QR decoder (render/assets/decoder.ts): fetched on Scan, never ahead. */
  decoder: string[];
}

/**
 * Island name → absolute path, for each PascalCase module directly in an island folder (helpers
 * start with "_"). Names are unique across folders: the browser finds an island by name alone.
 */
export async function listIslands({ root, islandDirs }: AssetProject): Promise<Map<string, string>> {
  const islands = new Map<string, string>();
  for (const dir of islandDirs) {
    try {
      for await (const entry of Deno.readDir(join(root, dir))) {
        const match = /^([A-Z][A-Za-z0-9]*)\.(?:tsx|jsx|ts|js)$/.exec(entry.name);
        if (!entry.isFile || !match) continue;
        const other = islands.get(match[1]);
        if (other) {
          throw new Error(
            `two island modules are named ${match[1]}: ${relative(root, other)}, ${dir}/${entry.name}`,
          );
        }
        islands.set(match[1], join(root, dir, entry.name));
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return new Map([...islands].sort(([a], [b]) => a.localeCompare(b)));
}

/** `decoderUrl`: where the QR decoder's WebAssembly is served ("" when the project has none). */
export async function buildJs(
  project: AssetProject,
  islandPaths: Map<string, string>,
  decoderUrl = "",
): Promise<JsBuild> {
  const { root } = project;
  const result = await bundle(project, islandPaths, decoderUrl);
  const inputs = Object.keys(result.metafile.inputs).filter((p) =>
    !p.includes(":") && !p.includes("node_modules/")
  );
  checkBrowserInputs(result.metafile, project.islandDirs);

  const outputs = new Map<string, Uint8Array>();
  for (const file of result.outputFiles) outputs.set(baseName(file.path), file.contents);

  const byEntry = new Map<string, string>();
  const directImports = new Map<string, string[]>();
  const decoder: string[] = [];
  for (const [path, meta] of Object.entries(result.metafile.outputs)) {
    if (Object.keys(meta.inputs).some(isDecoderInput)) decoder.push(baseName(path));
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
    const out = byEntry.get(relative(root, path).split(sep).join("/"));
    if (!out) throw new Error(`esbuild produced no module for island ${name}`);
    islands[name] = out;
  }
  const boot = byEntry.get(BOOT_ENTRY);
  if (!boot) throw new Error("esbuild produced no boot module");
  return { boot, islands, imports, outputs, inputs, decoder };
}

async function bundle({ root, distDir }: AssetProject, islandPaths: Map<string, string>, decoderUrl: string) {
  const esbuild = await import("esbuild");

  // The boot entry is generated so that adding an island file needs no registration step; the
  // dynamic imports make esbuild emit one chunk per island, fetched only where used.
  const entry = [
    `import { hydrateIslands } from ${JSON.stringify(join(root, "render", "island_boot.ts"))};`,
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
        resolveDir: root,
      }));
      // deno.json's "@/" import-map entry; bare npm names resolve through node_modules/.
      b.onResolve({ filter: /^@\// }, (args) => ({ path: join(root, args.path.slice(2)) }));
    },
  };

  try {
    return await esbuild.build({
      absWorkingDir: root,
      // Islands are entry points too (besides being imported lazily by the boot) only so that
      // their files carry their names, e.g. TabletFlow-<hash>.js, which reads better in devtools.
      entryPoints: [
        { in: BOOT_ENTRY, out: "boot" },
        ...[...islandPaths].map(([name, path]) => ({ in: path, out: name })),
      ],
      outdir: distDir,
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
      define: { "process.env.NODE_ENV": '"production"', [DECODER_URL_CONSTANT]: JSON.stringify(decoderUrl) },
      logLevel: "silent",
      plugins: [plugin],
    });
  } finally {
    // esbuild keeps a child process alive between builds; a server builds once, so let it go.
    await esbuild.stop();
  }
}

// Islands run in the browser and may use the island folders, components/ and npm packages; anything
// else in the repository is server code (database, config, secrets) that must not ship to the tablet.
// Type-only imports are erased by esbuild and never show up here; "<runtime>" is esbuild's own helpers
// (an npm package's class fields lowered for the es2020 target).
function checkBrowserInputs(metafile: esbuildTypes.Metafile, islandDirs: string[]): void {
  const browserDirs = [...islandDirs, "components"].map((d) => d + "/");
  const allowed = (p: string) =>
    // node_modules paths are realpaths, so they can sit outside the root ("../x/node_modules/").
    p.includes(":") || /(^|\/)node_modules\//.test(p) || p === "render/island_boot.ts" ||
    p === "<runtime>" || browserDirs.some((d) => p.startsWith(d));
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

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
