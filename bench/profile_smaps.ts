/** Standalone profile: the largest resident mappings of a process. `deno run -A bench/profile_smaps.ts <pid>` */
const text = Deno.readTextFileSync(`/proc/${Deno.args[0]}/smaps`);
const maps = text.split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/).map((block) => ({
  head: block.split("\n")[0],
  size: Number(/\nSize:\s+(\d+)/.exec(block)?.[1] ?? 0),
  rss: Number(/\nRss:\s+(\d+)/.exec(block)?.[1] ?? 0),
}));
maps.sort((a, b) => b.rss - a.rss);
const total = maps.reduce((s, m) => s + m.rss, 0);
console.log(`total ${(total / 1024).toFixed(0)} MB`);
for (const m of maps.slice(0, Number(Deno.args[1] ?? 15))) {
  console.log(
    (m.rss / 1024).toFixed(1).padStart(7),
    "MB of",
    (m.size / 1024).toFixed(0).padStart(7),
    m.head.slice(0, 110),
  );
}
