/**
 * `/hq/admin/import` (admins only): the import (D5) by file upload, through the running server, so it is
 * also the way to import into the embedded database while the server holds it. Same validation and problem
 * list as `deno task import` (lib/import.ts), for the JSON document or one kind of CSV (lib/import_csv.ts,
 * docs/import.md), whose templates are downloaded here. The body is size-limited in routes/hq/mod.ts.
 */
import { Hono } from "hono";
import { z } from "zod";
import { importData, type ImportProblem, ImportRejected, type ImportSummary } from "@/lib/import.ts";
import { validateImport } from "@/lib/import_validation.ts";
import { problemsInFile, readUpload } from "@/lib/import_csv.ts";
import {
  CSV_FORMATS,
  CSV_KINDS,
  type CsvFormat,
  csvTemplate,
  type UploadKind,
} from "@/lib/import_csv_formats.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { hashToken } from "@/io/tokens.ts";
import { sessionCookie, type SessionEnv } from "@/routes/web/session.ts";
import { type HqContext, hqPage, mustViewer } from "@/components/hq/page.tsx";
import { buttonClass, Csrf, type Notice, NoticeBox, PageTitle } from "@/components/hq/ui.tsx";

export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;
const MAX_MB = IMPORT_MAX_BYTES / 1024 / 1024;

/** The upload form: one file, and what it holds (the JSON document when not said, as the task takes). */
const importForm = z.object({
  file: z.instanceof(File),
  kind: z.enum(["json", ...CSV_KINDS]).catch("json"),
});

/** A problem's line in the file (`line 12, status`), for listing a CSV's problems in file order. */
const lineOf = (p: ImportProblem) => Number(/^line (\d+)/.exec(p.path)?.[1] ?? 0);

export function adminImportRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const show = (c: HqContext, data: Omit<Data, "csrfToken">, status: 200 | 400 | 413 | 422 = 200) =>
    hqPage(
      c,
      { title: "Import", section: "import", status },
      <Page data={{ ...data, csrfToken: mustViewer(c).csrfToken }} />,
    );

  app.get("/", (c) => show(c, { notice: null }));

  // One template per kind (docs/import.md): its header and an example line.
  for (const kind of CSV_KINDS) {
    app.get(`/templates/${kind}.csv`, (c) =>
      c.body(csvTemplate(kind), 200, {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${kind}.csv"`,
        "Cache-Control": "no-store",
      }));
  }

  app.post("/", async (c) => {
    const form = importForm.safeParse(await c.req.parseBody());
    if (!form.success) {
      return show(c, { notice: { kind: "error", text: "Choose a file to import." } }, 400);
    }
    const { file, kind } = form.data;
    if (file.size > IMPORT_MAX_BYTES) return tooLarge(c);
    const read = readUpload(kind, file.name, new Uint8Array(await file.arrayBuffer()));
    if (!read.ok) return show(c, { notice: { kind: "error", text: read.message }, kind }, 422);
    const inFile = (problems: ImportProblem[]) =>
      problemsInFile(problems, read.lines).sort((x, y) => lineOf(x) - lineOf(y));
    const rejected = (problems: ImportProblem[]) =>
      show(c, {
        notice: {
          kind: "error",
          text: `Import rejected: ${problems.length} problem(s); nothing was written.`,
        },
        problems,
        fileName: file.name,
        kind,
      }, 422);
    if (read.problems.length) {
      // The file's own problems (a line's cell count, a claim's lines that disagree), listed with every
      // problem the validation finds (D5): nothing is written.
      const more = await validateImport(deps.db, read.input).then(
        () => [],
        (error) => {
          if (error instanceof ImportRejected) return error.problems;
          throw error;
        },
      );
      return rejected(inFile([...read.problems, ...more]));
    }
    const input = read.input;
    try {
      const current = sessionCookie(deps.config).get(c);
      const summary = await importData(
        deps.db,
        input,
        deps.clock,
        mustViewer(c).userId,
        current ? hashToken(current) : null,
      );
      return show(c, {
        notice: {
          kind: "ok",
          text: `Imported ${file.name}: ${summary.status_changes} part status change(s).`,
        },
        summary,
        fileName: file.name,
        kind,
      });
    } catch (error) {
      // Not a DomainError: a rejected file comes with its whole problem list, shown below the message.
      if (!(error instanceof ImportRejected)) throw error;
      return rejected(inFile(error.problems));
    }
  });

  return app;
}

/** The answer to an upload over the limit (also used by the body limit in routes/hq/mod.ts). */
export function tooLarge(c: HqContext) {
  return hqPage(
    c,
    { title: "Import", section: "import", status: 413 },
    <p class="rounded border border-red-300 bg-red-50 p-4 text-red-900" role="alert">
      The file is larger than {MAX_MB}{" "}
      MB; nothing was imported. Split it into smaller files (rows are upserted by their natural keys, so the
      files can be imported one after another).{" "}
      <a class="underline" href="/hq/admin/import">Back to the import</a>
    </p>,
  );
}

interface Data {
  csrfToken: string;
  notice: Notice | null;
  fileName?: string;
  problems?: ImportProblem[];
  summary?: ImportSummary;
  /** What the last upload was chosen as (the form keeps the choice). */
  kind?: UploadKind;
}

/** A long problem list is cut here; the count says how many more there are. */
const SHOWN_PROBLEMS = 200;

function Page({ data }: { data: Data }) {
  const problems = data.problems ?? [];
  return (
    <>
      <PageTitle sub="HQ locations, repair shops, users and claims with their parts, upserted by their natural keys.">
        Import
      </PageTitle>
      <NoticeBox notice={data.notice} />
      {data.summary && (
        <dl class="mb-6 grid grid-cols-3 gap-3 rounded border border-emerald-200 bg-white p-4 text-base md:grid-cols-6">
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
          <ul class="list-inside list-disc font-mono text-base" data-testid="import-problems">
            {problems.slice(0, SHOWN_PROBLEMS).map((p, i) => <li key={i}>{p.path}: {p.problem}</li>)}
          </ul>
          {problems.length > SHOWN_PROBLEMS && (
            <p class="mt-2 text-base">… and {problems.length - SHOWN_PROBLEMS} more.</p>
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
        <label class="flex flex-col gap-1 text-base">
          <span class="font-medium text-slate-700">The file holds</span>
          <select name="kind" class="rounded border border-slate-300 bg-white px-2 text-base">
            <option value="json" selected={(data.kind ?? "json") === "json"}>
              Everything: the JSON document
            </option>
            {CSV_KINDS.map((k) => (
              <option key={k} value={k} selected={data.kind === k}>{CSV_FORMATS[k].label} (CSV)</option>
            ))}
          </select>
        </label>
        <label class="flex flex-col gap-1 text-base">
          <span class="font-medium text-slate-700">File (JSON or CSV, at most {MAX_MB} MB)</span>
          <input
            type="file"
            name="file"
            accept=".json,.csv,application/json,text/csv"
            required
            class="text-base"
          />
        </label>
        <button type="submit" class={buttonClass}>Import</button>
      </form>
      <p class="mt-4 text-base text-slate-600">
        The whole file is checked before anything is written; a file with any problem changes nothing. The
        JSON document is the one of <code>deno task import</code>{" "}
        (docs/import.md). A CSV holds one kind of row, with a header line naming its columns, separated by
        commas, saved as UTF-8 (a spreadsheet's "CSV UTF-8"); a problem is named by its line, the header being
        line 1. Rows are upserted by their keys, so import places and users before the claims that name them.
      </p>
      <h2 class="mt-6 mb-2 text-lg font-semibold">CSV formats</h2>
      {CSV_KINDS.map((k) => <FormatTable key={k} format={CSV_FORMATS[k]} />)}
    </>
  );
}

/** A kind's columns, with its template's link: what the page promises a CSV of that kind holds. */
function FormatTable({ format }: { format: CsvFormat }) {
  const id = `format-${format.kind}`;
  return (
    <section class="mb-4 rounded border border-slate-200 bg-white p-4" aria-labelledby={id}>
      <div class="flex flex-wrap items-baseline gap-x-4">
        <h3 id={id} class="font-semibold">{format.label}</h3>
        <a class="text-sky-800 underline" href={`/hq/admin/import/templates/${format.kind}.csv`}>
          Download the template ({format.kind}.csv)
        </a>
      </div>
      <table class="mt-2 w-full table-fixed text-left text-base" aria-labelledby={id}>
        <thead>
          <tr class="border-b border-slate-200">
            <th scope="col" class="w-44 py-1 pr-4">Column</th>
            <th scope="col" class="w-28 py-1 pr-4">Required</th>
            <th scope="col" class="w-1/3 py-1 pr-4">Example</th>
            <th scope="col" class="py-1">What it holds</th>
          </tr>
        </thead>
        <tbody>
          {format.columns.map((c) => (
            <tr key={c.name} class="border-b border-slate-100 align-top">
              <td class="py-1 pr-4 font-mono">{c.name}</td>
              <td class="py-1 pr-4">{c.required ? "required" : "optional"}</td>
              <td class="py-1 pr-4 break-words">{c.example}</td>
              <td class="py-1">{c.about}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
