import assert from "node:assert/strict";
import { join } from "node:path";
import { Hono } from "hono";
import {
  ASSET_FILE_NAME,
  type AssetManifest,
  assetUrl,
  buildAssets,
  checkAssets,
  ensureAssets,
  islandScripts,
  REPO_ROOT,
} from "@/render/assets.ts";
import { assetsRoutes } from "@/routes/assets.ts";
import { ensureTestAssets, TEST_ISLAND_DIRS } from "@/tests/islands/_assets.ts";

const quiet = () => {};

/**
 * A throwaway project: the real island runtime, Counter (in tests/islands/, so builds name it with
 * `islandDirs: TEST_ISLAND_DIRS`) and styles, our node_modules.
 */
async function scratchProject(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "assets_test_" });
  for (const dir of ["islands", "lib", "static", "routes", "components", "render", "tests/islands"]) {
    await Deno.mkdir(join(root, dir), { recursive: true });
  }
  for (const file of ["tests/islands/Counter.tsx", "render/island_boot.ts", "static/styles.css"]) {
    await Deno.copyFile(join(REPO_ROOT, file), join(root, file));
  }
  await Deno.symlink(join(REPO_ROOT, "node_modules"), join(root, "node_modules"));
  return root;
}

function readText(dir: string, file: string): Promise<string> {
  return Deno.readTextFile(join(dir, file));
}

Deno.test("assets: a build writes content-hashed files and a manifest naming them", async () => {
  const root = await scratchProject();
  try {
    const manifest = await buildAssets({ root, islandDirs: TEST_ISLAND_DIRS, log: quiet });
    const dist = join(root, "static", "dist");
    const built = [...Object.values(manifest.files), ...Object.values(manifest.islands)];
    for (const file of built) {
      assert.match(file, ASSET_FILE_NAME);
      await Deno.stat(join(dist, file));
    }
    assert.match(manifest.files["boot.js"], /^boot-[A-Z0-9]{8}\.js$/);
    assert.match(manifest.files["styles.css"], /^styles-[0-9a-f]{10}\.css$/);
    assert.match(manifest.islands.Counter, /^Counter-[A-Z0-9]{8}\.js$/);
    assert.equal(assetUrl(manifest, "styles.css"), `/static/dist/${manifest.files["styles.css"]}`);

    // The boot loads islands lazily, so a page pays only for the islands it shows.
    const boot = await readText(dist, manifest.files["boot.js"]);
    assert.ok(boot.includes(`import("./${manifest.islands.Counter}")`));
    // Preact is shared by the boot and the island, not bundled twice.
    const [shared] = manifest.imports[manifest.files["boot.js"]];
    assert.ok(manifest.imports[manifest.islands.Counter].includes(shared));
    const scripts = islandScripts(manifest, ["Counter"]);
    assert.equal(scripts?.boot, `/static/dist/${manifest.files["boot.js"]}`);
    assert.deepEqual(
      scripts?.preload.sort(),
      [`/static/dist/${manifest.islands.Counter}`, `/static/dist/${shared}`].sort(),
    );
    assert.equal(islandScripts(manifest, []), null);

    // Tailwind saw the class names in tests/islands/ (an island folder of this build) and kept the marker rule from styles.css.
    const css = await readText(dist, manifest.files["styles.css"]);
    assert.ok(css.includes(".tabular-nums{"), "utility used by Counter");
    assert.ok(!css.includes(".grid-cols-7{"), "utility used nowhere");
    assert.ok(css.includes("[data-island]{display:contents}"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("assets: an up-to-date build is reused; changed or new sources make it stale", async () => {
  const root = await scratchProject();
  try {
    const opts = { root, islandDirs: TEST_ISLAND_DIRS };
    const first = await ensureAssets({ ...opts, log: quiet });
    const warm = await checkAssets(opts);
    assert.equal(warm?.builtAt, first.builtAt);
    assert.equal(await checkAssets({ root }), null, "a build with other island folders");

    await Deno.writeTextFile(
      join(root, "routes", "page.tsx"),
      `export const P = () => <p class="grid-cols-7" />;`,
    );
    assert.equal(await checkAssets(opts), null, "a new route file is a new Tailwind source");
    const second = await buildAssets({ ...opts, log: quiet });
    assert.notEqual(second.files["styles.css"], first.files["styles.css"]);
    assert.equal(second.files["boot.js"], first.files["boot.js"], "unchanged JS keeps its name");
    assert.ok(
      (await readText(join(root, "static", "dist"), second.files["styles.css"])).includes(".grid-cols-7{"),
    );
    assert.equal((await checkAssets(opts))?.builtAt, second.builtAt);

    await Deno.writeTextFile(join(root, "tests", "islands", "Counter.tsx"), "\n// edited\n", {
      append: true,
    });
    assert.equal(await checkAssets(opts), null, "an edited island");

    const third = await buildAssets({ ...opts, log: quiet });
    assert.equal((await checkAssets(opts))?.builtAt, third.builtAt);
    await Deno.remove(join(root, "static", "dist", third.islands.Counter));
    assert.equal(await checkAssets(opts), null, "a missing output");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("assets: islands may not pull server modules into the browser bundle", async () => {
  const root = await scratchProject();
  try {
    await Deno.writeTextFile(join(root, "lib", "secrets.ts"), `export const KEY = "s3cret";`);
    await Deno.writeTextFile(
      join(root, "islands", "Leaky.tsx"),
      `import { KEY } from "@/lib/secrets.ts";\nexport default function Leaky() { return <p>{KEY}</p>; }\n`,
    );
    await assert.rejects(
      buildAssets({ root, islandDirs: TEST_ISLAND_DIRS, log: quiet }),
      /islands\/Leaky\.tsx imports lib\/secrets\.ts, which is server code/,
    );

    // A type-only import is erased and therefore fine.
    await Deno.writeTextFile(
      join(root, "islands", "Leaky.tsx"),
      `import type { KEY } from "@/lib/secrets.ts";\nexport default function Leaky(p: { k: typeof KEY }) { return <p>{p.k}</p>; }\n`,
    );
    const manifest = await buildAssets({ root, islandDirs: TEST_ISLAND_DIRS, log: quiet });
    assert.deepEqual(Object.keys(manifest.islands), ["Counter", "Leaky"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

async function routeFixture(): Promise<{ app: Hono; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "assets_route_test_" });
  const dist = join(dir, "dist");
  await Deno.mkdir(dist);
  await Deno.writeTextFile(join(dist, "boot-ABCD2345.js"), "export {};\n");
  await Deno.writeTextFile(join(dist, "styles-0123456789.css"), "p{color:red}\n");
  await Deno.writeTextFile(join(dist, "manifest.json"), "{}");
  // Outside the served folder, with a name the route would otherwise accept.
  await Deno.writeTextFile(join(dir, "secret-ABCD2345.js"), "SECRET");
  const app = new Hono();
  app.route("/", assetsRoutes({ distDir: dist }));
  return { app, dir };
}

Deno.test("assets route: built files are served with their type and a one-year immutable cache", async () => {
  const { app, dir } = await routeFixture();
  try {
    const js = await app.request("/static/dist/boot-ABCD2345.js");
    assert.equal(js.status, 200);
    assert.equal(js.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(js.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(js.headers.get("x-content-type-options"), "nosniff");
    assert.equal(await js.text(), "export {};\n");

    const css = await app.request("/static/dist/styles-0123456789.css");
    assert.equal(css.status, 200);
    assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
    assert.equal(css.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(await css.text(), "p{color:red}\n");

    const head = await app.request("/static/dist/boot-ABCD2345.js", { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-type"), "text/javascript; charset=utf-8");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("assets route: unknown names, the manifest and path traversal get 404", async () => {
  const { app, dir } = await routeFixture();
  try {
    const refused = [
      "/static/dist/boot-ZZZZ2345.js",
      "/static/dist/manifest.json",
      "/static/dist/boot.js",
      "/static/dist/..%2Fsecret-ABCD2345.js",
      "/static/dist/%2E%2E%2Fsecret-ABCD2345.js",
      "/static/dist/..%5Csecret-ABCD2345.js",
      "/static/dist/../secret-ABCD2345.js",
      "/static/dist/sub/boot-ABCD2345.js",
      "/static/dist/boot-ABCD2345.js%00.css",
    ];
    for (const path of refused) {
      const response = await app.request(path);
      assert.equal(response.status, 404, path);
      assert.ok(!(await response.text()).includes("SECRET"), path);
      assert.equal(
        response.headers.get("cache-control"),
        null,
        `${path}: a 404 must not be cached for a year`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("assets: an island in a test folder follows the same import rule", async () => {
  const root = await scratchProject();
  try {
    await Deno.writeTextFile(join(root, "lib", "secrets.ts"), `export const KEY = "s3cret";`);
    await Deno.writeTextFile(
      join(root, "tests", "islands", "Probe.tsx"),
      `import { KEY } from "@/lib/secrets.ts";\nexport default function Probe() { return <p>{KEY}</p>; }\n`,
    );
    await assert.rejects(
      buildAssets({ root, islandDirs: TEST_ISLAND_DIRS, log: quiet }),
      /tests\/islands\/Probe\.tsx imports lib\/secrets\.ts, which is server code/,
    );
    // Without tests/islands in the build, its modules are not browser code: an island may not use them.
    await Deno.writeTextFile(
      join(root, "tests", "islands", "Probe.tsx"),
      `export default function Probe() { return <p>probe</p>; }\n`,
    );
    await Deno.writeTextFile(
      join(root, "islands", "Uses.tsx"),
      `import Probe from "@/tests/islands/Probe.tsx";\nexport default function Uses() { return <Probe />; }\n`,
    );
    await assert.rejects(
      buildAssets({ root, log: quiet }),
      /islands\/Uses\.tsx imports tests\/islands\/Probe\.tsx, which is server code/,
    );
    const manifest = await buildAssets({ root, islandDirs: TEST_ISLAND_DIRS, log: quiet });
    assert.deepEqual(Object.keys(manifest.islands), ["Counter", "Probe", "Uses"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("assets: island names are unique across folders; folders stay in the root; test islands never reach static/dist", async () => {
  const root = await scratchProject();
  try {
    await Deno.copyFile(join(root, "tests", "islands", "Counter.tsx"), join(root, "islands", "Counter.tsx"));
    await assert.rejects(
      buildAssets({ root, islandDirs: TEST_ISLAND_DIRS, log: quiet }),
      /two island modules are named Counter: islands\/Counter\.tsx, tests\/islands\/Counter\.tsx/,
    );
    // A mistake in the call, not in the sources: refused before anything starts.
    assert.throws(
      () => buildAssets({ root, islandDirs: ["../elsewhere"], log: quiet }),
      /island folder \.\.\/elsewhere must be a folder inside the project root/,
    );
    assert.throws(
      () => ensureAssets({ islandDirs: TEST_ISLAND_DIRS, log: quiet }),
      /a build with island folders islands, tests\/islands needs its own distDir/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("assets: the repository's own build is current after ensureAssets and bundles no test island", async () => {
  const manifest: AssetManifest = await ensureAssets({ log: quiet });
  assert.equal((await checkAssets())?.fingerprint, manifest.fingerprint);
  assert.ok(manifest.islands.TabletFlow);
  assert.equal(manifest.islands.Counter, undefined);
  assert.ok(!manifest.watch.dirs.includes("tests/islands"), "tests/islands is no Tailwind source either");
  // No built file carries Counter's code (its button text), not even inside a shared chunk.
  const dist = join(REPO_ROOT, "static", "dist");
  const built = new Set([...Object.values(manifest.files), ...Object.keys(manifest.imports)]);
  for (const file of built) {
    assert.ok(!(await readText(dist, file)).includes("Add one"), `${file} holds test island code`);
  }
});

Deno.test("assets: the test build adds tests/islands in its own dist folder", async () => {
  const manifest = await ensureTestAssets();
  assert.ok(manifest.islands.Counter);
  assert.ok(manifest.islands.TabletFlow);
  assert.equal((await checkAssets())?.islands.Counter, undefined, "static/dist is untouched");
});

Deno.test("assets route: the tablet's service worker, web app manifest, icons and favicon", async () => {
  const manifest = await ensureAssets({ log: quiet });
  const app = new Hono();
  app.route("/", assetsRoutes());
  const worker = await app.request("/static/tablet-sw.js");
  assert.equal(worker.status, 200);
  assert.equal(worker.headers.get("content-type"), "text/javascript; charset=utf-8");
  // Revalidated on every update check, and allowed to control /tablet from its /static/ folder.
  assert.equal(worker.headers.get("cache-control"), "no-cache");
  assert.equal(worker.headers.get("service-worker-allowed"), "/tablet");
  const code = await worker.text();
  // It caches this build's files for offline use (a new build is a new worker).
  assert.ok(code.includes(assetUrl(manifest, "boot.js")), "the boot module is precached");
  assert.ok(code.includes(assetUrl(manifest, "styles.css")), "the stylesheet is precached");
  assert.match(code, /\/static\/icons\/icon-192\.png\?v=[0-9a-f]{10}/);

  const webManifest = await app.request("/static/tablet.webmanifest");
  assert.equal(webManifest.headers.get("content-type"), "application/manifest+json");
  const parsed = await webManifest.json();
  assert.equal(parsed.start_url, "/tablet");
  assert.equal(parsed.scope, "/tablet");
  for (const icon of parsed.icons as { src: string; type: string }[]) {
    const res = await app.request(icon.src);
    assert.equal(res.status, 200, icon.src);
    assert.equal(res.headers.get("content-type"), icon.type);
    await res.body?.cancel();
  }
  const favicon = await app.request("/favicon.ico");
  assert.equal(favicon.status, 301);
  assert.equal(favicon.headers.get("location"), "/static/icons/icon.svg");
});
