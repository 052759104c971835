// Question: what does importing one module cost a fresh process (time, RSS, V8 heap after a GC)? Run: deno run -A --v8-flags=--expose-gc bench/profiles/imports.ts <specifier>…
/** One child per specifier: what a lazy import saves (docs/performance.md "Memory and start-up"). */
if (Deno.args[0] === "--child") {
  const gc = (globalThis as unknown as { gc?: () => void }).gc;
  gc?.();
  const before = Deno.memoryUsage();
  const t0 = performance.now();
  await import(Deno.args[1]);
  const ms = performance.now() - t0;
  gc?.();
  const after = Deno.memoryUsage();
  console.log(
    `${Deno.args[1].padEnd(40)} ${ms.toFixed(0).padStart(5)} ms  rss +${
      ((after.rss - before.rss) / 1e6).toFixed(0)
    } MB` +
      `  heap +${((after.heapUsed - before.heapUsed) / 1e6).toFixed(1)} MB`,
  );
  Deno.exit(0);
}
for (const spec of Deno.args) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--v8-flags=--expose-gc", new URL(import.meta.url).pathname, "--child", spec],
    stderr: "inherit",
  }).output();
  await Deno.stdout.write(out.stdout);
}
