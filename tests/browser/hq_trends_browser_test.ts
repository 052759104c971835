/**
 * `/hq/trends` in Chromium (docs/trends.md "Charts"): axe-core reports no violations (every default rule),
 * and each figure reads in order in the accessibility tree: its heading, the chart as one image named by
 * its title, then its table: the caption, the column headers, then the rows, each headed by its first
 * cell, in the order of the CSV; then the CSV link.
 */
import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- a test-only package stays out of the service's import map
import axe from "npm:axe-core@4.14.1";
import { parseCsv } from "@/io/csv.ts";
import { DEMO, hqWorld, signInAs } from "./hq_setup.ts";

const AXE_SOURCE = (axe as unknown as { source: string }).source;

/**
 * The roles (and names) of an aria snapshot's lines, in order: `- row "a b":` → `row "a b"` (a line YAML
 * had to quote, for an apostrophe in its name, unquoted).
 */
const roles = (snapshot: string) =>
  snapshot.split("\n").map((l) => l.trim().replace(/^- /, "").replace(/^'/, "").replace(/:$/, ""))
    .filter((l) => l !== "");

Deno.test({
  name: "hq trends: axe-clean; each figure reads heading, chart, caption, headers, rows, CSV link in order",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const world = await hqWorld();
    try {
      // A part's whole return cycle yesterday and today, so the turnaround figure has a row.
      const part = await world.a.db.selectFrom("parts_orders").select("id").orderBy("id")
        .executeTakeFirstOrThrow();
      const now = world.a.clock.now().getTime();
      for (
        const [from, to, hoursAgo] of [
          ["Arrived", "Delivered to Repair Shop directly", 30],
          ["Delivered to Repair Shop directly", "Pending Repair Shop Pick-Up", 20],
          ["Pending Repair Shop Pick-Up", "Returned to HQ", 2],
        ] as const
      ) {
        await world.a.db.insertInto("part_status_history").values({
          part_id: part.id,
          from_status: from,
          to_status: to,
          changed_at: new Date(now - hoursAgo * 3_600_000),
          via: "dashboard",
        }).execute();
      }
      const page = await signInAs(world, DEMO.dispatcher, "/hq/trends", { bypassCSP: true });
      assert.equal(new URL(page.url()).pathname, "/hq/trends");

      await page.addScriptTag({ content: AXE_SOURCE });
      const violations = await page.evaluate(async () => {
        // deno-lint-ignore no-explicit-any
        const result = await (globalThis as any).axe.run(document);
        return result.violations.map((v: { id: string; nodes: { target: string[] }[] }) =>
          `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`
        );
      });
      assert.deepEqual(violations, [], "axe-core violations on /hq/trends");

      for (const id of ["movements", "turnaround", "drivers"]) {
        const section = page.locator(`section[data-figure="${id}"]`);
        const tree = roles(await section.ariaSnapshot());
        const first = (prefix: string) => tree.findIndex((l) => l.startsWith(prefix));
        const order = ["heading", "img", "table", "caption", "columnheader", "rowheader", "link"].map(first);
        assert.ok(order.every((i) => i >= 0), `${id}: every part is in the tree: ${tree.join(" | ")}`);
        assert.deepEqual(order, [...order].sort((a, b) => a - b), `${id}: reading order ${tree.join(" | ")}`);
        // The chart is one image, named by its title (its drawing is not read out).
        assert.match(tree[first("img")], /^img "(Movements per day|Turnaround|Work per driver)/);
        assert.equal(tree.filter((l) => l.startsWith("img")).length, 1);

        // The rows, in reading order, are the CSV's: the row header then its cells.
        const table = section.locator("table");
        const read = await table.locator("tr").evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll("th, td")].map((c) => c.textContent!.trim()))
        );
        const res = await page.request.get(world.url(`/hq/trends/${id}.csv`));
        assert.equal(res.status(), 200);
        assert.deepEqual(read, parseCsv(await res.text()), `${id}: the table is its CSV`);
        assert.ok(read.length > 1, `${id}: rows to read`);
        const rowHeaders = await table.getByRole("rowheader").allTextContents();
        assert.deepEqual(rowHeaders.map((t) => t.trim()), read.slice(1).map((r) => r[0]));
      }
    } finally {
      await world.close();
    }
  },
});
