/**
 * `/hq/admin/import` (admins only): the import (D5) by file upload, through the running server, so it is
 * also the way to import into the embedded database while the server holds it. Same validation and problem
 * list as `deno task import` (lib/import.ts). The body is size-limited in routes/hq/mod.ts.
 */
import { Hono } from "hono";
import { z } from "zod";
import { importData, type ImportProblem, ImportRejected, type ImportSummary } from "@/lib/import.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { hashToken } from "@/io/tokens.ts";
import { sessionCookie, type SessionEnv } from "@/routes/web/session.ts";
import { type HqContext, hqPage, mustViewer } from "@/components/hq/page.tsx";
import { buttonClass, Csrf, type Notice, NoticeBox, PageTitle } from "@/components/hq/ui.tsx";

export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;
const MAX_MB = IMPORT_MAX_BYTES / 1024 / 1024;

/** The upload form: one non-empty file. */
const importForm = z.object({ file: z.instanceof(File).refine((f) => f.size > 0) });

export function adminImportRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const show = (c: HqContext, data: Omit<Data, "csrfToken">, status: 200 | 400 | 413 | 422 = 200) =>
    hqPage(
      c,
      { title: "Import", section: "import", status },
      <Page data={{ ...data, csrfToken: mustViewer(c).csrfToken }} />,
    );

  app.get("/", (c) => show(c, { notice: null }));

  app.post("/", async (c) => {
    const form = importForm.safeParse(await c.req.parseBody());
    if (!form.success) {
      return show(c, { notice: { kind: "error", text: "Choose a JSON file to import." } }, 400);
    }
    const { file } = form.data;
    if (file.size > IMPORT_MAX_BYTES) return tooLarge(c);
    let input: unknown;
    try {
      input = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer()));
    } catch (error) {
      const why = error instanceof SyntaxError ? error.message : "it is not UTF-8 text";
      return show(c, { notice: { kind: "error", text: `${file.name} is not valid JSON: ${why}` } }, 422);
    }
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
      });
    } catch (error) {
      // Not a DomainError: a rejected file comes with its whole problem list, shown below the message.
      if (!(error instanceof ImportRejected)) throw error;
      return show(c, {
        notice: { kind: "error", text: error.message },
        problems: error.problems,
        fileName: file.name,
      }, 422);
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
          <span class="font-medium text-slate-700">JSON file (at most {MAX_MB} MB)</span>
          <input type="file" name="file" accept=".json,application/json" required class="text-base" />
        </label>
        <button type="submit" class={buttonClass}>Import</button>
      </form>
      <p class="mt-4 text-base text-slate-600">
        The whole file is checked before anything is written; a file with any problem changes nothing. The
        format is the one of <code>deno task import</code> (see docs/operations.md, section Import).
      </p>
    </>
  );
}
