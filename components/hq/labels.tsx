/**
 * Part labels as printed (docs/labels.md "Sheets and sizes"): each a QR code of the part's label code, its
 * part no, description, claim number, rego and the code in text. Two sheets, each with its own print page
 * (static/styles.css "Part labels"): A4, 3 × 8 labels of 70 × 37 mm a page; and 62 mm label printers, one
 * 62 × 29 mm label a page.
 */
import { encode } from "uqr";
import { labelCode } from "@/lib/labels/code.ts";

export const LABEL_SIZES = ["a4", "62mm"] as const;
export type LabelSize = typeof LABEL_SIZES[number];
export const LABEL_SIZE_NAMES: Record<LabelSize, string> = {
  a4: "A4 sheet (3 × 8)",
  "62mm": "62 mm label printer",
};

/** What one label prints. */
export interface LabelPart {
  id: number;
  part_no: string;
  description: string;
  claim_number: string;
  registration: string;
}

/** Labels on one A4 page: 3 columns of 8. */
const A4_PER_PAGE = 24;

/**
 * A QR code of `text` as SVG, drawn from uqr's module matrix: one path of horizontal runs (a few hundred
 * bytes a code, where one square per module would be several KB), in JSX so nothing is injected as raw
 * markup. Error correction Q (25 %): a scuffed or creased label still reads; a code fits version 1 (21
 * modules) in alphanumeric mode. The 4-module quiet zone is part of the drawing, so no layout can crowd it.
 */
export function QrCode({ text }: { text: string }) {
  const { size, data } = encode(text, { ecc: "Q", border: 4 });
  let d = "";
  data.forEach((row, y) => {
    for (let x = 0; x < size; x++) {
      if (!row[x]) continue;
      const start = x;
      while (x + 1 < size && row[x + 1]) x++;
      d += `M${start} ${y}h${x - start + 1}v1H${start}z`;
    }
  });
  return (
    <svg
      class="label-qr"
      xmlns="http://www.w3.org/2000/svg"
      viewBox={`0 0 ${size} ${size}`}
      shape-rendering="crispEdges"
      role="img"
      aria-label={`QR code ${text}`}
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}

export function Label({ part }: { part: LabelPart }) {
  const code = labelCode(part.id);
  return (
    <article class="label" data-part={part.id} aria-label={`Label of part ${part.part_no}`}>
      <QrCode text={code} />
      <div class="label-text">
        <p class="label-code" data-testid="label-code">{code}</p>
        <p class="label-part-no">{part.part_no}</p>
        <p class="label-description">{part.description}</p>
        <p>Claim {part.claim_number}</p>
        <p>Rego {part.registration}</p>
      </div>
    </article>
  );
}

/** The labels on the sheet of `size`: A4 pages of 24, or one 62 mm label a page. */
export function LabelSheet({ parts, size }: { parts: readonly LabelPart[]; size: LabelSize }) {
  if (size === "62mm") {
    return (
      <div class="label-sheet label-sheet-62mm">
        {parts.map((p) => <Label key={p.id} part={p} />)}
      </div>
    );
  }
  const pages: LabelPart[][] = [];
  for (let i = 0; i < parts.length; i += A4_PER_PAGE) pages.push(parts.slice(i, i + A4_PER_PAGE));
  return (
    <div class="label-sheet label-sheet-a4">
      {pages.map((page, i) => (
        <div key={i} class="label-page">
          {page.map((p) => <Label key={p.id} part={p} />)}
        </div>
      ))}
    </div>
  );
}
