/** Admin: import a JSON file (D5) through the running server, with the same problem list as `deno task import`. */
import type { ImportProblem, ImportSummary } from "@/lib/import.ts";
import { buttonClass, Csrf, type Notice, NoticeBox, PageTitle } from "@/components/hq/ui.tsx";

export interface ImportPageData {
  csrfToken: string;
  maxMb: number;
  notice: Notice | null;
  fileName?: string;
  problems?: ImportProblem[];
  summary?: ImportSummary;
}

/** A long problem list is cut here; the count says how many more there are. */
const SHOWN_PROBLEMS = 200;

export function ImportPage({ data }: { data: ImportPageData }) {
  const problems = data.problems ?? [];
  return (
    <>
      <PageTitle sub="HQ locations, repair shops, users and claims with their parts, upserted by their natural keys.">
        Import
      </PageTitle>
      <NoticeBox notice={data.notice} />
      {data.summary && (
        <dl class="mb-6 grid grid-cols-3 gap-3 rounded border border-emerald-200 bg-white p-4 text-sm md:grid-cols-6">
          {Object.entries(data.summary).map(([k, v]) => (
            <div key={k}>
              <dt class="text-slate-500">{k.replace("_", " ")}</dt>
              <dd class="text-lg font-semibold" data-count={k}>{v}</dd>
            </div>
          ))}
        </dl>
      )}
      {problems.length > 0 && (
        <section class="mb-6 rounded border border-red-300 bg-white p-4" aria-labelledby="problems">
          <h2 id="problems" class="mb-2 font-semibold text-red-900">
            {problems.length} problem{problems.length === 1 ? "" : "s"} in{" "}
            {data.fileName ?? "the file"}; nothing was written
          </h2>
          <ul class="list-inside list-disc font-mono text-sm" data-testid="import-problems">
            {problems.slice(0, SHOWN_PROBLEMS).map((p, i) => <li key={i}>{p.path}: {p.problem}</li>)}
          </ul>
          {problems.length > SHOWN_PROBLEMS && (
            <p class="mt-2 text-sm">… and {problems.length - SHOWN_PROBLEMS} more.</p>
          )}
        </section>
      )}
      <form
        method="post"
        action="/hq/admin/import"
        enctype="multipart/form-data"
        class="flex flex-wrap items-end gap-3 rounded border border-slate-200 bg-white p-4"
      >
        <Csrf token={data.csrfToken} />
        <label class="flex flex-col gap-1 text-sm">
          <span class="font-medium text-slate-700">JSON file (at most {data.maxMb} MB)</span>
          <input type="file" name="file" accept=".json,application/json" required class="text-sm" />
        </label>
        <button type="submit" class={buttonClass}>Import</button>
      </form>
      <p class="mt-4 text-sm text-slate-600">
        The whole file is checked before anything is written; a file with any problem changes nothing. The
        format is the one of <code>deno task import</code> (see docs/operations.md, section Import).
      </p>
    </>
  );
}
