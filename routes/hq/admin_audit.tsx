/**
 * `/hq/admin/audit` (admins only): the audit trail of every admin and dispatcher action, newest first,
 * filtered by actor and action, paged by keyset (`before=<entry id>`), and its CSV download
 * (`/hq/admin/audit.csv`, same filters, times in the depot's zone).
 */
import { Hono } from "hono";
import { AUDIT_ACTIONS } from "@/db/schema.ts";
import { auditActors, auditEntries, type AuditEntry } from "@/db/queries/audit.ts";
import { isoInZone } from "@/io/time_zone.ts";
import { AUDIT_PAGE_SIZE, auditCsv, auditQueryOf } from "@/lib/admin/audit.ts";
import type { AppDeps } from "@/lib/deps.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { hqPage, refusedQueryPage } from "@/components/hq/page.tsx";
import {
  buttonClass,
  Field,
  inputClass,
  linkClass,
  PageTitle,
  secondaryButtonClass,
  Table,
  tdClass,
  TimeCell,
} from "@/components/hq/ui.tsx";

const PATH = "/hq/admin/audit";

export function adminAuditRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/", async (c) => {
    let query;
    try {
      query = auditQueryOf(c.req.query());
    } catch (error) {
      return refusedQueryPage(c, error, PATH);
    }
    const [page, actors] = await Promise.all([
      auditEntries(deps.db, query.filters, { beforeId: query.beforeId, limit: AUDIT_PAGE_SIZE }),
      auditActors(deps.db),
    ]);
    const filters: Record<string, string> = {};
    if (query.filters.actorId) filters.actor = String(query.filters.actorId);
    if (query.filters.action) filters.action = query.filters.action;
    return hqPage(
      c,
      { title: "Audit trail", section: "audit" },
      <Page entries={page.rows} more={page.more} actors={actors} filters={filters} first={!query.beforeId} />,
    );
  });

  // A refused filter is answered before the download starts, never as a broken file.
  app.get("/csv", (c) => {
    let query;
    try {
      query = auditQueryOf(c.req.query());
    } catch (error) {
      return refusedQueryPage(c, error, PATH);
    }
    const today = isoInZone(deps.clock.now(), deps.config.depotTimeZone).slice(0, 10);
    return c.body(auditCsv(deps.db, query.filters, deps.config.depotTimeZone), 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="audit-${today}.csv"`,
      "Cache-Control": "no-store",
    });
  });

  return app;
}

/** A before/after value as `field: value` lines. */
function Change({ value }: { value: unknown }) {
  if (value === null || value === undefined || typeof value !== "object") return null;
  return (
    <ul>
      {Object.entries(value as Record<string, unknown>).map(([k, v]) => (
        <li key={k}>
          <span class="text-slate-500">{k}:</span> {typeof v === "string" ? v : JSON.stringify(v)}
        </li>
      ))}
    </ul>
  );
}

function Page(
  { entries, more, actors, filters, first }: {
    entries: AuditEntry[];
    more: boolean;
    actors: { id: number; name: string }[];
    filters: Record<string, string>;
    first: boolean;
  },
) {
  const next = entries.at(-1);
  const params = (extra: Record<string, string>) => new URLSearchParams({ ...filters, ...extra });
  return (
    <>
      <PageTitle sub="Every admin and dispatcher action: who, what, before and after, when. Newest first.">
        Audit trail
      </PageTitle>
      <form method="get" action={PATH} class="mb-4 flex flex-wrap items-end gap-3">
        <Field label="Actor">
          <select class={inputClass} name="actor">
            <option value="">Anyone</option>
            {actors.map((a) => (
              <option key={a.id} value={String(a.id)} selected={filters.actor === String(a.id)}>
                {a.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Action">
          <select class={inputClass} name="action">
            <option value="">Any action</option>
            {AUDIT_ACTIONS.map((a) => <option key={a} value={a} selected={filters.action === a}>{a}</option>)}
          </select>
        </Field>
        <button type="submit" class={buttonClass}>Filter</button>
        <a class={secondaryButtonClass} href={`${PATH}/csv?${params({})}`}>Download CSV</a>
      </form>
      <Table
        label="Audit trail"
        head={["Time", "Actor", "Action", "Subject", "Before", "After"]}
        rows={entries}
        empty="No entries."
      >
        {(e) => (
          <tr key={e.id} data-audit={e.id}>
            <TimeCell at={e.at} />
            <td class={tdClass}>{e.actor_name ?? "system"}</td>
            <td class={tdClass}>{e.action}</td>
            <td class={tdClass}>
              {e.subject}
              {e.claim_number && (
                <>
                  {" "}(claim{" "}
                  <a class={linkClass} href={`/hq/claims/${encodeURIComponent(e.claim_number)}`}>
                    {e.claim_number}
                  </a>)
                </>
              )}
            </td>
            <td class={tdClass}>
              <Change value={e.before} />
            </td>
            <td class={tdClass}>
              <Change value={e.after} />
            </td>
          </tr>
        )}
      </Table>
      <nav class="mt-4 flex items-center gap-4 text-sm" aria-label="Pages">
        {!first && <a class={linkClass} href={`${PATH}?${params({})}`}>← Newest</a>}
        {more && next && (
          <a class={linkClass} href={`${PATH}?${params({ before: String(next.id) })}`}>Older →</a>
        )}
      </nav>
    </>
  );
}
