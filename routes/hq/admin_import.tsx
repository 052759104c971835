/**
 * `/hq/admin/import` (admins only): the import (D5) by file upload, through the running server, so it is
 * also the way to import into the embedded database while the server holds it. Same validation and problem
 * list as `deno task import` (lib/import.ts). The body is size-limited in routes/hq/mod.ts.
 */
import { Hono } from "hono";
import { importData, ImportRejected } from "@/lib/import.ts";
import type { AppDeps } from "@/lib/deps.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { type HqContext, hqPage, mustViewer } from "@/routes/hq/render.tsx";
import { ImportPage, type ImportPageData } from "@/routes/hq/admin_import_page.tsx";

export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;

export function adminImportRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const show = (
    c: HqContext,
    data: Omit<ImportPageData, "csrfToken" | "maxMb">,
    status: 200 | 400 | 413 | 422 = 200,
  ) =>
    hqPage(
      c,
      { title: "Import", section: "import", status },
      <ImportPage
        data={{ ...data, csrfToken: mustViewer(c).csrfToken, maxMb: IMPORT_MAX_BYTES / 1024 / 1024 }}
      />,
    );

  app.get("/", (c) => show(c, { notice: null }));

  app.post("/", async (c) => {
    const file = (await c.req.parseBody()).file;
    if (!(file instanceof File) || file.size === 0) {
      return show(c, { notice: { kind: "error", text: "Choose a JSON file to import." } }, 400);
    }
    if (file.size > IMPORT_MAX_BYTES) return tooLarge(c);
    let input: unknown;
    try {
      input = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer()));
    } catch (error) {
      const why = error instanceof SyntaxError ? error.message : "it is not UTF-8 text";
      return show(c, { notice: { kind: "error", text: `${file.name} is not valid JSON: ${why}` } }, 422);
    }
    try {
      const summary = await importData(deps.db, input, deps.clock);
      return show(c, {
        notice: {
          kind: "ok",
          text: `Imported ${file.name}: ${summary.status_changes} part status change(s).`,
        },
        summary,
        fileName: file.name,
      });
    } catch (error) {
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
      The file is larger than {IMPORT_MAX_BYTES / 1024 / 1024}{" "}
      MB; nothing was imported. Split it into smaller files (rows are upserted by their natural keys, so the
      files can be imported one after another).{" "}
      <a class="underline" href="/hq/admin/import">Back to the import</a>
    </p>,
  );
}
