/**
 * The bench's import graph (docs/performance.md "Running it"), as Deno resolves it (`deno info --json`, type-only
 * and dynamic imports included): no module of bench/, tasks/ or testkit/ imports one that imports it back; the
 * bench imports nothing from tests/; testkit/ (what the tests and the bench share) imports neither tests/ nor
 * bench/.
 */
import assert from "node:assert/strict";

const root = new URL("../", import.meta.url);
const FOLDERS = ["bench", "tasks", "testkit"];

/** The repository's path of a module (`bench/report.ts`), or null for one outside it (npm, node:, jsr). */
function local(specifier: string): string | null {
  return specifier.startsWith(root.href) ? specifier.slice(root.href.length) : null;
}

async function* modulesOf(folder: string): AsyncGenerator<URL> {
  const dir = new URL(`${folder}/`, root);
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) yield* modulesOf(`${folder}/${entry.name}`);
    else if (/\.tsx?$/.test(entry.name)) yield new URL(entry.name, dir);
  }
}

/** Every local module reachable from FOLDERS, with the local modules each imports. */
async function importGraph(): Promise<Map<string, string[]>> {
  const entry = await Deno.makeTempFile({ prefix: "pm-imports-", suffix: ".ts" });
  try {
    const lines: string[] = [];
    for (const folder of FOLDERS) {
      if (!(await Deno.stat(new URL(folder, root)).catch(() => null))) continue;
      for await (const url of modulesOf(folder)) lines.push(`import ${JSON.stringify(url.href)};`);
    }
    await Deno.writeTextFile(entry, lines.join("\n"));
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "info",
        "--json",
        `--config=${new URL("deno.json", root).pathname}`,
        `--lock=${new URL("deno.dev.lock", root).pathname}`,
        entry,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules: {
        specifier: string;
        dependencies?: { code?: { specifier?: string }; type?: { specifier?: string } }[];
      }[];
    };
    const graph = new Map<string, string[]>();
    for (const module of info.modules) {
      const from = local(module.specifier);
      if (from === null) continue;
      const to = (module.dependencies ?? [])
        .flatMap((d) => [d.code?.specifier, d.type?.specifier])
        .map((s) => s && local(s))
        .filter((s): s is string => Boolean(s));
      graph.set(from, [...new Set(to)]);
    }
    return graph;
  } finally {
    await Deno.remove(entry);
  }
}

/** The strongly connected components with more than one module, or one importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const inFolder = (path: string, folder: string) => path.startsWith(`${folder}/`);

Deno.test("bench imports: bench/, tasks/ and testkit/ import no module that imports them back", async () => {
  const graph = await importGraph();
  const ours = new Map(
    [...graph].filter(([m]) => FOLDERS.some((f) => inFolder(m, f))).map((
      [m, to],
    ) => [m, to.filter((t) => FOLDERS.some((f) => inFolder(t, f)))]),
  );
  assert.ok(ours.has("tasks/bench.ts"), "the graph holds tasks/bench.ts");
  assert.deepEqual(cycles(ours).map((c) => c.join(" ↔ ")), []);
});

Deno.test("bench imports: the bench imports nothing from tests/; testkit/ neither tests/ nor bench/", async () => {
  const graph = await importGraph();
  const wrong: string[] = [];
  for (const [from, to] of graph) {
    const forbidden = inFolder(from, "bench")
      ? ["tests"]
      : inFolder(from, "testkit")
      ? ["tests", "bench"]
      : [];
    for (const t of to) if (forbidden.some((f) => inFolder(t, f))) wrong.push(`${from} → ${t}`);
  }
  assert.deepEqual(wrong, []);
});
