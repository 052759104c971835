/**
 * The search box's requests (docs/search-box.md) that bench/dashboard.ts times beside the lists: each kind
 * of text a dispatcher types, on the bench's scale data (bench/generate_scale.ts: parts `BP-<claim>-<k>`
 * described "Bench part <k>", claims `BCH-<g>` with six-character regos, twelve drivers, 20 shops), and the
 * parts list's "Part No. or description" filter the search's "More parts…" leads to. Rows `search_box …`.
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { searchEverything } from "@/lib/dashboard/search.ts";
import { partPageOf, partQueryOf } from "@/lib/dashboard/lists.ts";
import { partsPage } from "@/lib/dashboard/parts.ts";
import type { DashPage } from "@/bench/dashboard_pages.ts";

/** The searches timed: every kind, found and not found, each labelled by what it stands for. */
export async function searchBoxPages(db: Db): Promise<DashPage[]> {
  // A claim in the middle of the data: its number, rego and parts are what is typed.
  const mid = await sql<{ g: number; registration: string }>`select id as g, registration from claims
    order by id offset (select count(*) / 2 from claims) limit 1`.execute(db);
  const { g, registration } = mid.rows[0];
  const search = (q: string, label: string): DashPage => ({
    path: `/hq/search?${new URLSearchParams({ q })}`,
    label: `/hq/search?q=<${label}>`,
    data: (db) => searchEverything(db, q),
  });
  const partsList = (part: string, label: string): DashPage => {
    const path = `/hq/parts?${new URLSearchParams({ part })}`;
    return {
      path,
      label: `/hq/parts?part=<${label}>`,
      data: (db) => {
        const raw = { part };
        const list = partQueryOf(raw);
        return partsPage(db, list.filters, partPageOf(raw, list.sort), list.sort);
      },
    };
  };
  return [
    search(`BP-${g}-2`, "a part no., exact"),
    search(`bp-${g}-2`, "a part no. in lower case"),
    search(`BP-${String(g).slice(0, 3)}`, "the start of 1 in 1000 part nos."),
    search("headlamp cover", "description words no part has"),
    search("bench part", "description words every part has"),
    search(`BCH-${g}`, "a claim number"),
    search(String(g).slice(1), "a part of claim numbers"),
    search(registration, "a rego"),
    search(registration.slice(1, 5), "4 characters of regos"),
    search("Bench Driver", "a driver's name"),
    search("Repairer 7", "a shop's name"),
    search("zq", "2 characters nothing holds"),
    partsList(`BP-${g}-2`, "a part no."),
    partsList("headlamp", "a description word no part has"),
  ];
}
