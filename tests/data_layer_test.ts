/**
 * The data layer's boundaries: every SQL statement of the service lives under db/, and db/
 * imports nothing from the layers above it. Read as text, so a new file is covered by being added.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(join(root, dir))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

async function offenders(dirs: string[], pattern: RegExp): Promise<string[]> {
  const found: string[] = [];
  for (const dir of dirs) {
    for await (const path of sourceFiles(dir)) {
      const lines = (await Deno.readTextFile(join(root, path))).split("\n");
      lines.forEach((line, i) => {
        if (pattern.test(line)) found.push(`${path}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  return found;
}

Deno.test("data layer: lib/ and routes/ build no SQL (queries live in db/queries)", async () => {
  assert.deepEqual(
    await offenders(["lib", "routes"], /selectFrom|insertInto|updateTable|deleteFrom|sql`/),
    [],
  );
});

Deno.test("data layer: db/ imports nothing from lib/, io/, routes/ or render/", async () => {
  assert.deepEqual(await offenders(["db"], /from "@\/(lib|io|routes|render)\//), []);
});
