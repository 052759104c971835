/**
 * `/hq/search?q=…`: the answer of the search box in every dashboard page's header (docs/search-box.md):
 * parts, claims, drivers and repair shops the text finds, grouped by kind, each linking to its page. A
 * refused text (a control character, too long) is the 400 "Invalid search" page; a text too short to look
 * for says so and runs no query. Always a page of results, never a redirect: one result is one click away,
 * and the page keeps what was typed.
 */
import { Hono } from "hono";
import type { ComponentChildren } from "preact";
import type { AppDeps } from "@/lib/deps.ts";
import {
  SEARCH_CAP,
  SEARCH_MIN_CHARS,
  type SearchAnswer,
  searchEverything,
  type SearchGroup,
  type SearchResults,
  searchTextOf,
} from "@/lib/dashboard/search.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { hqPage, refusedQueryPage } from "@/components/hq/page.tsx";
import { claimHref } from "@/components/hq/part_cells.tsx";
import { linkClass, NoticeBox, PageTitle, Section, StatusBadge } from "@/components/hq/ui.tsx";

export function searchRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/", async (c) => {
    let q;
    try {
      q = searchTextOf(c.req.query());
    } catch (error) {
      return refusedQueryPage(c, error, "/hq/search");
    }
    const answer = await searchEverything(deps.db, q);
    return hqPage(
      c,
      { title: q ? `Search: ${q}` : "Search", section: "none", searched: q },
      <Page q={q} answer={answer} />,
    );
  });

  return app;
}

function Page({ q, answer }: { q: string; answer: SearchAnswer }) {
  return (
    <>
      <PageTitle sub="Part codes and numbers, descriptions, claim numbers, regos, drivers and repair shops.">
        Search
      </PageTitle>
      {answer.kind === "too_short"
        ? (
          <NoticeBox
            notice={{ kind: "info", text: `Type at least ${SEARCH_MIN_CHARS} characters to search.` }}
          />
        )
        : <Results q={q} results={answer.results} />}
    </>
  );
}

function Results({ q, results }: { q: string; results: SearchResults }) {
  const { parts, claims, drivers, shops } = results;
  const none = [parts, claims, drivers, shops].every((g) => g.rows.length === 0);
  return (
    <div class="grid gap-6">
      {none && <p class="text-slate-700" role="status">Nothing matches “{q}”.</p>}
      <Group
        id="search-parts"
        title="Parts"
        group={parts}
        more={<More href={listHref({ part: q })}>More parts…</More>}
      >
        {(p) => (
          <>
            <a class={`${linkClass} font-mono`} href={`/hq/parts/${p.id}`}>{p.part_no}</a> {p.description}
            {" "}
            <StatusBadge status={p.status} />{" "}
            <span class="text-slate-600">claim {p.claim_number} · {p.registration}</span>
            {p.exact && <ExactMark />}
          </>
        )}
      </Group>
      <Group
        id="search-claims"
        title="Claims"
        group={claims}
        more={
          <>
            <More href={listHref({ claim: q })}>More by claim number…</More>{" "}
            <More href={listHref({ rego: q })}>More by rego…</More>
          </>
        }
      >
        {(cl) => (
          <>
            <a class={linkClass} href={claimHref(cl.claim_number)}>{cl.claim_number}</a>{" "}
            <span class="text-slate-600">{cl.registration} · {cl.repairer_name ?? "no repair shop"}</span>
            {cl.exact && <ExactMark />}
          </>
        )}
      </Group>
      <Group id="search-drivers" title="Drivers" group={drivers} more={<Narrow />}>
        {(d) => (
          <>
            <a class={linkClass} href={`/hq/movements?driver=${d.id}`}>{d.name}</a>{" "}
            <span class="text-slate-600">{d.email}{d.active ? "" : " (inactive)"}</span>
          </>
        )}
      </Group>
      <Group id="search-shops" title="Repair shops" group={shops} more={<Narrow />}>
        {(s) => (
          <>
            <a class={linkClass} href={`/hq/parts?repairer=${s.id}`}>{s.name}</a>{" "}
            <span class="text-slate-600">{s.address ?? ""}{s.active ? "" : " (inactive)"}</span>
          </>
        )}
      </Group>
    </div>
  );
}

/** The parts list filtered by one of its own filters: where a kind's "more" leads. */
const listHref = (filter: Record<string, string>) => `/hq/parts?${new URLSearchParams(filter)}`;

function Group<T extends { id: number }>(
  { id, title, group, more, children }: {
    id: string;
    title: string;
    group: SearchGroup<T>;
    more: ComponentChildren;
    children: (row: T) => ComponentChildren;
  },
) {
  const count = group.more ? `first ${SEARCH_CAP}` : String(group.rows.length);
  return (
    <Section id={id} title={`${title} (${count})`}>
      {group.rows.length === 0
        ? <p class="text-slate-600">No {title.toLowerCase()} match.</p>
        : (
          <ul class="divide-y divide-slate-200 rounded border border-slate-200 bg-white" data-kind={id}>
            {group.rows.map((row) => <li key={row.id} class="px-3 py-1">{children(row)}</li>)}
          </ul>
        )}
      {group.more && <p class="mt-2">{more}</p>}
    </Section>
  );
}

function More({ href, children }: { href: string; children: ComponentChildren }) {
  return <a class={linkClass} href={href}>{children}</a>;
}

function Narrow() {
  return <span class="text-slate-700">More than {SEARCH_CAP} match: type more of the name.</span>;
}

function ExactMark() {
  return (
    <span class="ml-2 rounded bg-emerald-100 px-2 text-sm font-medium text-emerald-900">exact match</span>
  );
}
