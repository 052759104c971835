/**
 * The stylesheet: Tailwind v4 (@tailwindcss/node compile + @tailwindcss/oxide Scanner, as its CLI
 * does) from static/styles.css, minified.
 */
import { dirname, join, resolve } from "node:path";
import type { AssetProject } from "./manifest.ts";

export interface CssBuild {
  code: string;
  /** Folders Tailwind scans for class names. */
  dirs: string[];
  /** Files the stylesheet itself read (static/styles.css and its @imports). */
  inputs: string[];
}

export async function buildCss({ root, islandDirs }: AssetProject): Promise<CssBuild> {
  const [{ compile, optimize }, { Scanner }] = await Promise.all([
    import("@tailwindcss/node"),
    import("@tailwindcss/oxide"),
  ]);
  const from = join(root, "static", "styles.css");
  const inputs = new Set([from]);
  const compiler = await compile(await Deno.readTextFile(from), {
    base: dirname(from),
    from,
    onDependency: (path) => inputs.add(path),
  });
  // The same source list the Tailwind CLI derives: `source(none)` disables the automatic root,
  // and each `@source` adds a glob relative to the stylesheet.
  const sources = compiler.sources.map((s) => ({ ...s }));
  if (compiler.root !== "none") {
    sources.unshift({ ...(compiler.root ?? { base: root, pattern: "**/*" }), negated: false });
  }
  const dirsOf = () => sources.filter((s) => !s.negated).map((s) => resolve(s.base, staticPrefix(s.pattern)));
  // Every island folder is a source, so a build that adds tests/islands styles its islands too;
  // islands/ is already an @source of styles.css, which keeps the production stylesheet as it was.
  const listed = new Set(dirsOf());
  for (const dir of islandDirs.map((d) => join(root, d))) {
    if (!listed.has(dir)) sources.push({ base: dir, pattern: "**/*", negated: false });
  }
  const scanner = new Scanner({ sources });
  const code = optimize(compiler.build(scanner.scan()), { minify: true }).code;
  return { code, dirs: dirsOf(), inputs: [...inputs] };
}

/** The folder part of a glob before its first wildcard ("../routes/**\/*.tsx" → "../routes"). */
function staticPrefix(pattern: string): string {
  const parts = pattern.split("/");
  const i = parts.findIndex((p) => /[*?[{]/.test(p));
  return i === -1 ? pattern : parts.slice(0, i).join("/") || ".";
}
