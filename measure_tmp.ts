import { buildAssets, islandScripts } from "@/render/assets.ts";
import { gzipSync } from "node:zlib";
const dist = Deno.args[0];
const t0 = performance.now();
const m = await buildAssets({ distDir: dist, log: console.log });
console.log("build ms", Math.round(performance.now() - t0));
const names = ["TabletFlow", "TabletIdle", "TabletStopNav"].filter((n) => m.islands[n]);
const s = islandScripts(m, names)!;
let total = 0;
for (const url of [s.boot, ...s.preload]) {
  const f = url.replace("/static/dist/", "");
  total += gzipSync(await Deno.readFile(`${dist}/${f}`)).length;
}
console.log("job page JS gz", total);
for (const e of Deno.readDirSync(dist)) {
  if (/\.(js|wasm)$/.test(e.name)) {
    const b = await Deno.readFile(`${dist}/${e.name}`);
    if (b.length > 20000 || e.name.includes("wasm")) console.log(e.name, b.length, "gz", gzipSync(b).length);
  }
}
const sw = Object.values(m.files).find((f) => f.startsWith("tablet-sw"))!;
const swText = await Deno.readTextFile(`${dist}/${sw}`);
console.log("sw mentions wasm", swText.includes(".wasm"));
console.log(JSON.stringify(m.files));
