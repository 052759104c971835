/**
 * `/hq/claims/:claim_number`: a claim's chain of custody (docs/claim-page.md),
 * printable on A4 (each page's margins carry the claim, its rego, the print time and the page's number), and
 * `/hq/claims/:claim_number/evidence.zip`: its evidence pack (lib/evidence/zip.ts), streamed: the original
 * photos, the handovers' signatures and left-at photos, manifest.csv and manifest.json with each file's
 * recorded SHA-256, and this page as claim.html. Staff only (mounted in the staff area of routes/hq/mod.ts).
 */
import { join } from "node:path";
import { Hono } from "hono";
import { renderToString } from "preact-render-to-string";
import type { AppDeps } from "@/lib/deps.ts";
import { claimPage, type ClaimPageData, type Leg } from "@/lib/dashboard/claim.ts";
import { type EvidenceFile, evidenceFiles, evidenceZip, manifests } from "@/lib/evidence/zip.ts";
import { isLineText } from "@/lib/validation.ts";
import { zoneNameLocale } from "@/io/time_zone.ts";
import { DIST_DIR, getAssets } from "@/render/assets.ts";
import { island } from "@/render/islands.tsx";
import type { SessionEnv } from "@/routes/web/session.ts";
import { ClaimView, type PhotoLink } from "@/components/hq/claim_view.tsx";
import { type HandoverImageLink, HandoverSummary } from "@/components/hq/handover.tsx";
import { errorPage, hqPage, notFoundPage } from "@/components/hq/page.tsx";
import { claimHref } from "@/components/hq/part_cells.tsx";
import { Live } from "@/components/hq/live.tsx";
import { printMarginStyle, printStamp } from "@/components/hq/print_margins.ts";
import { DepotTimeZone, linkClass, secondaryButtonClass } from "@/components/hq/ui.tsx";
import ClaimPrint from "@/islands/ClaimPrint.tsx";

const ClaimPrintIsland = island("ClaimPrint", ClaimPrint);

/** A claim number as the import accepts it (at most 100 characters, one line); anything else is unknown. */
export const claimNumberOf = (raw: string): string | null =>
  raw.length <= 100 && isLineText(raw) ? raw : null;

/** What a printed page of this claim carries at its top (components/hq/print_margins.ts). */
const printTitle = (data: ClaimPageData) =>
  `Claim ${data.claim.claim_number} · Vehicle ${data.claim.registration}`;

/** On the dashboard, photos come from the photo routes (thumbnail shown, original on click). */
const dashboardPhoto: PhotoLink = (leg) =>
  leg.photo ? { src: `/photos/${leg.photo.id}/thumb`, href: `/photos/${leg.photo.id}` } : null;

/** A leg's "Receiver" cell: its handover (docs/handover.md), its images from `image`. */
const receiverOf = (zone: string, image?: HandoverImageLink) => (leg: Leg) => (
  <HandoverSummary handover={leg.handover} recordedVia={leg.recordedVia} zone={zone} image={image} />
);

export function claimRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  const zone = deps.config.depotTimeZone;

  const load = (raw: string) => {
    const number = claimNumberOf(raw);
    return number === null ? Promise.resolve(null) : claimPage(deps.db, number);
  };

  app.get("/:claim_number", async (c) => {
    const data = await load(c.req.param("claim_number"));
    if (!data) return notFoundPage(c, "claim");
    const number = data.claim.claim_number;
    const stamp = printStamp("Printed", deps.clock.now(), zone, zoneNameLocale(zone));
    return hqPage(
      c,
      { title: `Claim ${number}`, section: "parts", rootStyle: printMarginStyle(printTitle(data), stamp) },
      <>
        {/* Outside the live region: a swapped-in copy of an island would not be hydrated. */}
        <Actions number={number} zone={zone} />
        {/* Live (lib/live/): a leg, a status change or an announcement of any claim refreshes it in place. */}
        <Live topics={["movements", "parts", "announcements"]}>
          <ClaimView data={data} zone={zone} photo={dashboardPhoto} receiver={receiverOf(zone)} links />
        </Live>
      </>,
    );
  });

  app.get("/:claim_number/evidence.zip", async (c) => {
    const data = await load(c.req.param("claim_number"));
    if (!data) return notFoundPage(c, "claim");
    const files = evidenceFiles(data.legs, zone);
    // Checked before the first byte: once the download has started, a missing photo can only break it off.
    const missing = await missingPhotos(deps, files);
    if (missing.length > 0) {
      return errorPage(c, {
        status: 503,
        title: "Evidence pack incomplete",
        children: `The photo store does not hold ${
          missing.join(", ")
        }; no pack was made. Tell an administrator.`,
      });
    }
    const packed = new Map(files.filter((f) => f.kind === "photo").map((f) => [f.leg, f.fileName]));
    const handoverPacked = new Map(
      files.filter((f) => f.kind !== "photo").map((f) => [`${f.kind} ${f.photo.id}`, f.fileName]),
    );
    const { csv, json } = manifests(files, zone, data.claim.claim_number);
    const html = await printedCopy(data, zone, deps.clock.now(), (leg) => {
      const name = packed.get(leg);
      return name ? { src: name, href: name } : null;
    }, (image, kind) => {
      const name = handoverPacked.get(`${kind} ${image.id}`);
      return name ? { src: name, href: name } : null;
    });
    const stem = data.claim.claim_number.replace(/[^A-Za-z0-9.+-]/g, "_");
    const body = evidenceZip(deps.storage, files, [
      { name: "manifest.csv", text: csv },
      { name: "manifest.json", text: json },
      { name: "claim.html", text: html.page },
      { name: "styles.css", text: html.styles },
    ]);
    return c.body(body, 200, {
      "content-type": "application/zip",
      "content-disposition": `attachment; filename="evidence-${stem}.zip"`,
      "cache-control": "no-store",
    });
  });

  return app;
}

/** The files whose photo the store does not hold (or cannot say it holds right now). */
async function missingPhotos(deps: AppDeps, files: EvidenceFile[]): Promise<string[]> {
  const held = await Promise.all(files.map((f) => deps.storage.exists(f.photo.sha256).catch(() => false)));
  return files.filter((_, i) => !held[i]).map((f) => f.fileName);
}

function Actions({ number, zone }: { number: string; zone: string }) {
  return (
    // A <div>: the island's marker is a <div>, which would close a <p> (and leave it printed).
    <div class="print-hidden mb-4 flex flex-wrap items-center gap-4 text-sm">
      <a class={linkClass} href={`/hq/parts?claim=${encodeURIComponent(number)}`}>← Parts of this claim</a>
      <a class={linkClass} href={`${claimHref(number)}/evidence.zip`} download>
        Download the evidence pack (ZIP)
      </a>
      <a class={linkClass} href={`${claimHref(number)}/labels`}>Labels</a>
      <ClaimPrintIsland zone={zone} nameLocale={zoneNameLocale(zone)} class={secondaryButtonClass} />
    </div>
  );
}

/**
 * The page as a file of its own, beside its photos and the dashboard's stylesheet in the ZIP (so it opens
 * and prints offline, links relative). Printed, its pages carry the page's margins, stamped with the time
 * the pack was made (no script runs in the copy to stamp the time of printing).
 */
async function printedCopy(
  data: ClaimPageData,
  zone: string,
  now: Date,
  photo: PhotoLink,
  handoverImage: HandoverImageLink,
) {
  const assets = await getAssets();
  const styles = await Deno.readTextFile(join(DIST_DIR, assets.files["styles.css"]));
  const body = renderToString(
    <html
      lang="en"
      style={printMarginStyle(printTitle(data), printStamp("Pack made", now, zone, zoneNameLocale(zone)))}
    >
      <head>
        <meta charset="utf-8" />
        <title>Claim {data.claim.claim_number} · evidence</title>
        <link rel="stylesheet" href="styles.css" />
      </head>
      <body class="bg-white text-slate-900">
        <main class="mx-auto max-w-7xl px-4 py-6">
          <DepotTimeZone.Provider value={zone}>
            <ClaimView data={data} zone={zone} photo={photo} receiver={receiverOf(zone, handoverImage)} />
          </DepotTimeZone.Provider>
        </main>
      </body>
    </html>,
  );
  return { page: `<!DOCTYPE html>${body}`, styles };
}
