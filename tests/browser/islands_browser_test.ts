import assert from "node:assert/strict";
import { Hono } from "hono";
import { h } from "preact";
import { island } from "@/render/islands.tsx";
import { renderPage } from "@/render/page.tsx";
import { assetsRoutes } from "@/routes/assets.ts";
import Counter from "@/tests/islands/Counter.tsx";
import { ensureTestAssets, TEST_DIST_DIR } from "@/tests/islands/_assets.ts";
import { launchBrowser, screenshot, serveApp } from "@/testkit/browser.ts";

const CounterIsland = island("Counter", Counter);
// Survives the trip through the marker attribute only if escaping and JSON.parse agree.
const TRICKY_LABEL = `Count </script><!-- "x" & <b>y</b>`;

/** Serves and renders from the test build (production islands plus tests/islands, its own dist folder). */
async function demoApp(): Promise<Hono> {
  const assets = await ensureTestAssets();
  const app = new Hono();
  app.route("/", assetsRoutes({ distDir: TEST_DIST_DIR }));
  app.get("/counter", (c) =>
    c.html(renderPage(
      h("section", null, h("h1", null, "Counter"), h(CounterIsland, { start: 3, label: TRICKY_LABEL })),
      { title: "Counter demo", assets },
    )));
  app.get("/plain", (c) => c.html(renderPage(h("p", null, "No islands here"), { title: "Plain", assets })));
  return app;
}

async function gzipSize(bytes: Uint8Array<ArrayBuffer>): Promise<number> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

Deno.test("islands: the Counter island hydrates in Chromium and counts clicks", async () => {
  const served = serveApp(await demoApp());
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => {
      // Failed fetches are checked below by URL (Chromium asks for /favicon.ico on its own).
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
        errors.push(message.text());
      }
    });
    const scripts: Promise<number>[] = [];
    page.on("response", (response) => {
      if (response.status() >= 400 && !response.url().endsWith("/favicon.ico")) {
        errors.push(`${response.status()} ${response.url()}`);
      }
      if (response.request().resourceType() === "script") {
        scripts.push(response.body().then((body) => gzipSize(new Uint8Array(body))));
      }
    });

    const response = await page.goto(`${served.baseUrl}/counter`);
    assert.equal(response?.status(), 200);
    const marker = page.locator('[data-island="Counter"][data-hydrated]');
    await marker.waitFor({ timeout: 10_000 });

    assert.equal(await page.getByTestId("count").textContent(), "3");
    assert.equal(await marker.locator("span").textContent(), TRICKY_LABEL);
    await page.getByRole("button", { name: "Add one" }).click();
    await page.getByRole("button", { name: "Add one" }).click();
    assert.equal(await page.getByTestId("count").textContent(), "5");
    await screenshot(page, "islands_counter_after_clicks");

    assert.deepEqual(errors, [], "no script errors or hydration warnings");
    const jsGzipped = (await Promise.all(scripts)).reduce((a, b) => a + b, 0);
    console.info(`islands: counter page loaded ${scripts.length} scripts, ${jsGzipped} bytes gzipped`);
    assert.ok(jsGzipped < 30_000, `page JS is ${jsGzipped} bytes gzipped`);
  } finally {
    await browser.close();
    await served.close();
  }
});

Deno.test("islands: a page without islands ships no script", async () => {
  const served = serveApp(await demoApp());
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on("request", (request) => requested.push(request.url()));
    const response = await page.goto(`${served.baseUrl}/plain`);
    assert.equal(response?.status(), 200);
    assert.equal(await page.locator("script").count(), 0);
    assert.equal(await page.locator('link[rel="modulepreload"]').count(), 0);
    assert.deepEqual(requested.filter((url) => url.endsWith(".js")), []);
    // The stylesheet still applies: the <main> landmark exists and CSS was fetched.
    assert.equal(await page.getByRole("main").count(), 1);
    assert.equal(requested.filter((url) => url.endsWith(".css")).length, 1);
  } finally {
    await browser.close();
    await served.close();
  }
});
