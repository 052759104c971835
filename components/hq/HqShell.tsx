/**
 * The HQ dashboard's HTML shell: header with the navigation (admin links only for admins), the search box
 * (docs/search-box.md), the signed-in user and a sign-out form. Used as the `layout` of render/page.tsx, so it renders the <head>.
 */
import type { LayoutProps } from "@/components/Layout.tsx";
import type { Role } from "@/db/schema.ts";
import { Csrf } from "@/components/hq/ui.tsx";
import { QueueCountLink } from "@/components/hq/action_queue.tsx";
import { GatheredLive, LiveRegion, PageLiveTopics } from "@/components/hq/live.tsx";
import type { CappedCount } from "@/db/queries/announcements.ts";
import type { ChangeTopic } from "@/db/queries/changes.ts";
import { QUEUE_TOPICS } from "@/lib/dashboard/action_queue.ts";
import { SEARCH_MAX_CHARS } from "@/lib/dashboard/search.ts";

export type HqSection =
  | "overview"
  | "queue"
  | "parts"
  | "movements"
  | "trips"
  | "runs"
  | "return_requests"
  | "problem_reports"
  | "announcements"
  | "exports"
  | "trends"
  | "users"
  | "places"
  | "tablets"
  | "import"
  | "handover"
  | "ageing"
  | "audit"
  | "none";

export interface HqViewer {
  name: string;
  role: Role;
  csrfToken: string;
  /** Staff: how many return requests are open (docs/return-requests.md), shown beside the queue's link. */
  openReturnRequests?: number;
  /** Staff: how many items wait in the action queue (docs/action-queue.md), the header's live figure. */
  queueCount?: CappedCount;
}

const STAFF_LINKS: [HqSection, string, string][] = [
  ["overview", "/hq", "Today"],
  ["parts", "/hq/parts", "Parts"],
  ["movements", "/hq/movements", "Movements"],
  ["runs", "/hq/runs", "Runs"],
  ["trips", "/hq/trips", "Open return trips"],
  ["return_requests", "/hq/return-requests", "Return requests"],
  ["problem_reports", "/hq/problem-reports", "Shop problems"],
  ["announcements", "/hq/announcements", "Announcements"],
  ["exports", "/hq/exports", "Exports"],
  ["trends", "/hq/trends", "Trends"],
];
const ADMIN_LINKS: [HqSection, string, string][] = [
  ["users", "/hq/admin/users", "Users"],
  ["places", "/hq/admin/places", "Repair shops & HQ"],
  ["tablets", "/hq/admin/tablets", "Tablets"],
  ["handover", "/hq/admin/handover", "Handover"],
  ["ageing", "/hq/admin/ageing", "Ageing"],
  ["import", "/hq/admin/import", "Import"],
  ["audit", "/hq/admin/audit", "Audit trail"],
];

function NavLink(
  { href, label, active, count }: { href: string; label: string; active: boolean; count?: number },
) {
  return (
    <a
      href={href}
      aria-current={active ? "page" : undefined}
      class={`inline-flex min-h-10 items-center gap-2 rounded px-3 py-2 font-medium ${
        active ? "bg-white text-slate-900" : "text-slate-100 hover:bg-slate-700"
      }`}
    >
      {label}
      {count !== undefined && count > 0 && (
        <span class="rounded-full bg-amber-400 px-2 text-sm font-bold text-slate-900" data-testid="nav-count">
          {count} <span class="sr-only">open</span>
        </span>
      )}
    </a>
  );
}

/**
 * Builds the layout component for one request (it needs the viewer, the active section and, on the search
 * page, the text searched for).
 */
export function hqShell(viewer: HqViewer | null, active: HqSection, searched = "") {
  return function HqShell({ title, lang = "en", rootStyle, children }: LayoutProps) {
    // The page's live regions and the header's count share one island, added after the page (live.tsx).
    const topics = new Set<ChangeTopic>();
    return (
      <html lang={lang} style={rootStyle}>
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{title} · HQ dashboard</title>
        </head>
        <body class="hq-body min-h-screen bg-slate-50 text-base text-slate-900">
          <PageLiveTopics.Provider value={viewer ? topics : null}>
            <header class="bg-slate-800 text-white">
              <div class="mx-auto flex max-w-[96rem] flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
                <a href="/hq" class="inline-flex min-h-10 items-center text-lg font-semibold tracking-tight">
                  Parts Movement · HQ
                </a>
                {viewer && <Nav viewer={viewer} active={active} searched={searched} topics={topics} />}
              </div>
            </header>
            <main id="main" class="mx-auto max-w-[96rem] px-4 py-6">{children}</main>
            {viewer && <GatheredLive topics={topics} />}
          </PageLiveTopics.Provider>
        </body>
      </html>
    );
  };
}

function Nav(
  { viewer, active, searched, topics }: {
    viewer: HqViewer;
    active: HqSection;
    searched: string;
    topics: Set<ChangeTopic>;
  },
) {
  if (viewer.queueCount) { for (const t of QUEUE_TOPICS) topics.add(t); }
  return (
    <>
      <nav aria-label="Dashboard" class="flex flex-wrap gap-1">
        {viewer.queueCount && (
          <LiveRegion topics={[...QUEUE_TOPICS]}>
            <QueueCountLink count={viewer.queueCount} active={active === "queue"} />
          </LiveRegion>
        )}
        {STAFF_LINKS.map(([key, href, label]) => (
          <NavLink
            key={key}
            href={href}
            label={label}
            active={key === active}
            count={key === "return_requests" ? viewer.openReturnRequests : undefined}
          />
        ))}
        {viewer.role === "admin" && <span class="mx-1 border-l border-slate-600" aria-hidden="true"></span>}
        {viewer.role === "admin" &&
          ADMIN_LINKS.map(([key, href, label]) => (
            <NavLink key={key} href={href} label={label} active={key === active} />
          ))}
      </nav>
      <SearchBox searched={searched} />
      <form method="post" action="/hq/sign-out" class="ml-auto flex items-center gap-3">
        <span class="text-slate-300">
          {viewer.name} <span class="text-slate-400">({viewer.role})</span>
        </span>
        <Csrf token={viewer.csrfToken} />
        <button type="submit" class="min-h-10 rounded border border-slate-500 px-4 py-2 hover:bg-slate-700">
          Sign out
        </button>
      </form>
    </>
  );
}

/** One box for everything (docs/search-box.md): a GET form, so its answer is a link like any list's. */
function SearchBox({ searched }: { searched: string }) {
  return (
    <form
      method="get"
      action="/hq/search"
      role="search"
      aria-label="Dashboard"
      class="flex items-center gap-2"
    >
      <label for="hq-search" class="sr-only">Search</label>
      <input
        id="hq-search"
        type="search"
        name="q"
        value={searched}
        maxLength={SEARCH_MAX_CHARS}
        placeholder="Part, claim, rego, driver, shop"
        class="min-h-10 w-64 rounded border border-slate-500 bg-white px-2 py-1.5 text-base text-slate-900"
      />
      {/* "Find", not "Search": the list pages' own filter forms have a "Search" button. */}
      <button type="submit" class="min-h-10 rounded border border-slate-500 px-4 py-2 hover:bg-slate-700">
        Find
      </button>
    </form>
  );
}
