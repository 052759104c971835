import assert from "node:assert/strict";
import { h } from "preact";
import type { AssetManifest } from "@/render/assets.ts";
import { island, renderWithIslands, serializeIslandProps } from "@/render/islands.tsx";
import { renderPage } from "@/render/page.tsx";

function Greeting({ text }: { text: string }) {
  return h("p", null, text);
}
function Pair({ left }: { left: string }) {
  return h("div", null, h(GreetingIsland, { text: left }));
}
const GreetingIsland = island("Greeting", Greeting);
const PairIsland = island("Pair", Pair);

// A hand-made build, so these tests need neither esbuild nor Tailwind.
function fakeManifest(): AssetManifest {
  return {
    version: 3,
    fingerprint: "f",
    builtAt: "2026-01-01T00:00:00.000Z",
    buildMs: 0,
    files: { "boot.js": "boot-AAAAAAAA.js", "styles.css": "styles-bbbbbbbbbb.css" },
    islands: { Greeting: "Greeting-CCCCCCCC.js", Pair: "Pair-DDDDDDDD.js" },
    imports: {
      "boot-AAAAAAAA.js": ["chunk-EEEEEEEE.js"],
      "Greeting-CCCCCCCC.js": ["chunk-EEEEEEEE.js"],
      "Pair-DDDDDDDD.js": ["chunk-EEEEEEEE.js", "Greeting-CCCCCCCC.js"],
      "chunk-EEEEEEEE.js": [],
    },
    decoder: [],
    compressed: [],
    watch: { dirs: [], files: [] },
  };
}

function propsAttribute(html: string): string {
  const match = /data-island-props="([^"]*)"/.exec(html);
  assert.ok(match, "marker carries props");
  return match[1];
}

function decodeAttribute(value: string): string {
  return value.replaceAll("&quot;", '"').replaceAll("&lt;", "<").replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

Deno.test("islands: the marker carries the island name and its props as JSON", () => {
  const { html, islands } = renderWithIslands(h(GreetingIsland, { text: "hello" }));
  assert.deepEqual(islands, ["Greeting"]);
  assert.match(html, /^<div data-island="Greeting" data-island-props="[^"]*"><p>hello<\/p><\/div>$/);
  assert.deepEqual(JSON.parse(decodeAttribute(propsAttribute(html))), { text: "hello" });
});

Deno.test("islands: </script> and <!-- in props cannot break out of the marker", () => {
  const text = `</script><script>alert(1)</script><!-- --> "quoted" & 'single' \u2028`;
  const { html } = renderWithIslands(h(GreetingIsland, { text }));
  const attribute = propsAttribute(html);
  assert.ok(!attribute.includes("<"), "no raw < in the attribute");
  assert.ok(!decodeAttribute(attribute).includes("<"), "no < even after entity decoding");
  assert.deepEqual(JSON.parse(decodeAttribute(attribute)), { text });
  // The only markup in the document is the marker and the island's own (escaped) text.
  assert.ok(!html.includes("<script") && !html.includes("<!--"));
  assert.ok(!serializeIslandProps("Greeting", { text }).includes("<"));
});

Deno.test("islands: props JSON cannot carry are refused with the prop's path", () => {
  const bad: [unknown, RegExp][] = [
    [{ onClick: () => {} }, /Greeting props\.onClick is a function/],
    [{ when: new Date(0) }, /Greeting props\.when is a Date/],
    [{ list: [1, NaN] }, /Greeting props\.list\[1\] is NaN/],
    [{ big: 1n }, /Greeting props\.big is a bigint/],
    [{ children: h("b", null) }, /no JSX children/],
  ];
  for (const [props, message] of bad) {
    assert.throws(() => serializeIslandProps("Greeting", props as object), message);
  }
  assert.equal(serializeIslandProps("Greeting", { a: undefined, b: null }), '{"b":null}');
});

Deno.test("islands: names must be PascalCase file names", () => {
  assert.throws(() => island("counter", Greeting), /PascalCase file name/);
  assert.throws(() => island("../Counter", Greeting), /PascalCase file name/);
});

Deno.test("islands: renderWithIslands lists each island once, in order of first use", () => {
  const tree = h(
    "div",
    null,
    h(PairIsland, { left: "a" }),
    h(GreetingIsland, { text: "b" }),
    h(GreetingIsland, { text: "c" }),
  );
  assert.deepEqual(renderWithIslands(tree).islands, ["Pair", "Greeting"]);
  assert.deepEqual(renderWithIslands(h("p", null, "static")).islands, []);
});

Deno.test("islands: an island inside another is plain markup of its parent", () => {
  const { html, islands } = renderWithIslands(h(PairIsland, { left: "x" }));
  assert.deepEqual(islands, ["Pair"]);
  assert.equal(html.match(/data-island=/g)?.length, 1);
  assert.ok(html.includes("<div><p>x</p></div>"));
});

Deno.test("render_page: a page without islands links the stylesheet and ships no script", async () => {
  const html = await renderPage(h("p", null, "plain"), { title: "Plain <page>", assets: fakeManifest() });
  assert.ok(html.startsWith('<!DOCTYPE html><html lang="en"><head>'));
  assert.ok(html.includes("<title>Plain &lt;page></title>"));
  assert.ok(html.includes('<link rel="stylesheet" href="/static/dist/styles-bbbbbbbbbb.css"/></head>'));
  assert.ok(html.includes('<main id="main"><p>plain</p></main>'));
  assert.ok(!html.includes("<script"));
  assert.ok(!html.includes("modulepreload"));
});

Deno.test("render_page: a page with islands gets one external boot module and preloads", async () => {
  const html = await renderPage(h(PairIsland, { left: "x" }), { title: "Islands", assets: fakeManifest() });
  assert.equal(html.match(/<script/g)?.length, 1);
  assert.ok(html.includes('<script type="module" src="/static/dist/boot-AAAAAAAA.js"></script></head>'));
  const preloads = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(preloads.sort(), [
    "/static/dist/Greeting-CCCCCCCC.js",
    "/static/dist/Pair-DDDDDDDD.js",
    "/static/dist/chunk-EEEEEEEE.js",
  ]);
});

Deno.test("render_page: an island missing from the build is an error, not a dead widget", async () => {
  const Ghost = island("Ghost", Greeting);
  await assert.rejects(
    renderPage(h(Ghost, { text: "boo" }), { title: "x", assets: fakeManifest() }),
    /island "Ghost" is not in the asset build/,
  );
});
