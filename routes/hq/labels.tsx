/**
 * Label sheets (docs/labels.md "Sheets and sizes"), staff only (mounted in the staff area of routes/hq/mod.ts):
 *
 *   GET /hq/claims/:claim_number/labels?size=a4|62mm   every part of the claim
 *   GET /hq/labels?part=1&part=2…&size=a4|62mm          the parts ticked on the parts list (at most 200)
 *
 * A page of its own, without the dashboard's header: a bar to pick the size and print (left out on paper),
 * then the labels (components/hq/labels.tsx), whose sheet names its print page size.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { LayoutProps } from "@/components/Layout.tsx";
import {
  LABEL_SIZE_NAMES,
  LABEL_SIZES,
  type LabelPart,
  LabelSheet,
  type LabelSize,
} from "@/components/hq/labels.tsx";
import { type HqContext, notFoundPage, refusedQueryPage } from "@/components/hq/page.tsx";
import { claimHref } from "@/components/hq/part_cells.tsx";
import { linkClass } from "@/components/hq/ui.tsx";
import { claimByNumber } from "@/db/queries/claims.ts";
import { labelledPartsByIds, labelledPartsOfClaim } from "@/db/queries/labels.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { ValidationError } from "@/lib/errors.ts";
import { parseId, parseInput } from "@/lib/validation.ts";
import PrintButton from "@/islands/PrintButton.tsx";
import { island } from "@/render/islands.tsx";
import { renderPage } from "@/render/page.tsx";
import { claimNumberOf } from "@/routes/hq/claim.tsx";
import type { SessionEnv } from "@/routes/web/session.ts";

const PrintButtonIsland = island("PrintButton", PrintButton);

/** The most labels one sheet of selected parts prints (the parts list shows at most 100 rows a page). */
export const MAX_SELECTED_LABELS = 200;

const sizeQuery = z.object({ size: z.enum(LABEL_SIZES).default("a4") });

const SIZE_TIPS: Record<LabelSize, string> = {
  a4: "For A4 sheets of 24 labels, 70 × 37 mm. In the print dialog: paper A4, margins none, scale 100 %.",
  "62mm":
    "One 62 × 29 mm label a page, for 62 mm label printers. In the print dialog: the printer's 62 mm paper, margins none, scale 100 %.",
};

/** The ids of `?part=…`, in the order given, each once; a refusal for a bad one, none, or too many. */
function selectedIds(raw: string[]): number[] {
  const ids = raw.map(parseId);
  if (ids.some((id) => id === null)) throw new ValidationError("part", "must be an ID");
  const unique = [...new Set(ids as number[])];
  if (unique.length === 0) throw new ValidationError("part", "is required: tick the parts to label first");
  if (unique.length > MAX_SELECTED_LABELS) {
    throw new ValidationError("part", `must name at most ${MAX_SELECTED_LABELS} parts`);
  }
  return unique;
}

export function labelRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/claims/:claim_number/labels", async (c) => {
    const number = claimNumberOf(c.req.param("claim_number"));
    let size;
    try {
      size = parseInput(sizeQuery, c.req.query()).size;
    } catch (error) {
      return refusedQueryPage(c, error, number === null ? "/hq/parts" : claimHref(number));
    }
    const parts = number === null ? [] : await labelledPartsOfClaim(deps.db, number);
    // A claim without parts (yet) has an empty sheet; only an unknown claim is a 404.
    if (parts.length === 0 && (number === null || !await claimByNumber(deps.db, number))) {
      return notFoundPage(c, "claim");
    }
    return labelsPage(c, {
      title: `Labels · claim ${number}`,
      parts,
      size,
      back: { href: claimHref(number!), label: "← Back to the claim" },
    });
  });

  app.get("/labels", async (c) => {
    let size, ids;
    try {
      size = parseInput(sizeQuery, c.req.query()).size;
      ids = selectedIds(c.req.queries("part") ?? []);
    } catch (error) {
      return refusedQueryPage(c, error, "/hq/parts");
    }
    const found = new Map((await labelledPartsByIds(deps.db, ids)).map((p) => [p.id, p]));
    const parts = ids.flatMap((id) => found.get(id) ?? []);
    if (parts.length === 0) return notFoundPage(c, "part");
    return labelsPage(c, {
      title: `Labels · ${parts.length} part${parts.length === 1 ? "" : "s"}`,
      parts,
      size,
      back: { href: "/hq/parts", label: "← Back to parts" },
    });
  });

  return app;
}

interface SheetData {
  title: string;
  parts: LabelPart[];
  size: LabelSize;
  back: { href: string; label: string };
}

async function labelsPage(c: HqContext, data: SheetData): Promise<Response> {
  const url = new URL(c.req.url);
  const hrefOf = (size: LabelSize) => {
    const query = new URLSearchParams(url.search);
    query.set("size", size);
    return `${url.pathname}?${query}`;
  };
  const html = await renderPage(<Sheet data={data} hrefOf={hrefOf} />, {
    title: data.title,
    layout: LabelLayout,
  });
  return c.html(html);
}

function LabelLayout({ title, lang = "en", children }: LayoutProps) {
  return (
    <html lang={lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title} · HQ dashboard</title>
      </head>
      <body class="label-body bg-slate-100 text-base text-slate-900">
        <main id="main">{children}</main>
      </body>
    </html>
  );
}

function Sheet({ data, hrefOf }: { data: SheetData; hrefOf: (size: LabelSize) => string }) {
  return (
    <>
      <div class="print-hidden mx-auto max-w-5xl space-y-3 px-4 py-4">
        <h1 class="text-2xl font-semibold">{data.title}</h1>
        <nav aria-label="Label size" class="flex flex-wrap gap-4">
          {LABEL_SIZES.map((size) => (
            <a
              key={size}
              class={`${linkClass} ${size === data.size ? "font-semibold no-underline" : ""}`}
              href={hrefOf(size)}
              aria-current={size === data.size ? "page" : undefined}
            >
              {LABEL_SIZE_NAMES[size]}
            </a>
          ))}
        </nav>
        <p class="text-slate-700">
          {data.parts.length} label{data.parts.length === 1 ? "" : "s"}. {SIZE_TIPS[data.size]}
        </p>
        <p class="flex flex-wrap items-center gap-4">
          <PrintButtonIsland label="Print" />
          <a class={linkClass} href={data.back.href}>{data.back.label}</a>
        </p>
      </div>
      <LabelSheet parts={data.parts} size={data.size} />
    </>
  );
}
