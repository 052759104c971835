/**
 * `/hq/claims/:claim_number`: a claim's chain of custody (docs/dashboard.md "Claim page and evidence pack"),
 * printable on A4, and `/hq/claims/:claim_number/evidence.zip`: its evidence pack (lib/evidence/zip.ts),
 * streamed: the original photos, the handovers' signatures and left-at photos, manifest.csv and manifest.json
 * with each file's recorded SHA-256, and this page as claim.html. Staff only (mounted in the staff area of routes/hq/mod.ts).
 */
import { join } from "node:path";
import { Hono } from "hono";
import { renderToString } from "preact-render-to-string";
import type { AppDeps } from "@/lib/deps.ts";
import { claimPage, type ClaimPageData } from "@/lib/dashboard/claim.ts";
import { type EvidenceFile, evidenceFiles, evidenceZip, manifests } from "@/lib/evidence/zip.ts";
import { isLineText } from "@/lib/validation.ts";
import { DIST_DIR, getAssets } from "@/render/assets.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { ClaimView, type PhotoLink } from "@/components/hq/claim_view.tsx";
import type { HandoverImageLink } from "@/components/hq/handover.tsx";
import { errorPage, hqPage, notFoundPage } from "@/components/hq/page.tsx";
import { claimHref } from "@/components/hq/part_cells.tsx";
import { Live } from "@/components/hq/live.tsx";
import { DepotTimeZone, linkClass } from "@/components/hq/ui.tsx";

/** A claim number as the import accepts it (at most 100 characters, one line); anything else is unknown. */
const claimNumberOf = (raw: string): string | null => raw.length <= 100 && isLineText(raw) ? raw : null;

/** On the dashboard, photos come from the photo routes (thumbnail shown, original on click). */
const dashboardPhoto: PhotoLink = (leg) =>
  leg.photo ? { src: `/photos/${leg.photo.id}/thumb`, href: `/photos/${leg.photo.id}` } : null;

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
    return hqPage(
      c,
      { title: `Claim ${number}`, section: "parts" },
      // Live (lib/live/): a leg, a status change or an announcement of any claim refreshes the page in place.
      <Live topics={["movements", "parts", "announcements"]}>
        <ClaimView
          data={data}
          zone={zone}
          photo={dashboardPhoto}
          actions={<Actions number={number} />}
          links
        />
      </Live>,
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
    const html = await printedCopy(data, zone, (leg) => {
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

function Actions({ number }: { number: string }) {
  return (
    <p class="print-hidden mb-4 flex flex-wrap gap-4 text-sm">
      <a class={linkClass} href={`/hq/parts?claim=${encodeURIComponent(number)}`}>← Parts of this claim</a>
      <a class={linkClass} href={`${claimHref(number)}/evidence.zip`} download>
        Download the evidence pack (ZIP)
      </a>
      <span class="text-slate-600">Print this page for an A4 copy (one part per page).</span>
    </p>
  );
}

/**
 * The page as a file of its own, beside its photos and the dashboard's stylesheet in the ZIP (so it opens
 * and prints offline, links relative).
 */
async function printedCopy(
  data: ClaimPageData,
  zone: string,
  photo: PhotoLink,
  handoverImage: HandoverImageLink,
) {
  const assets = await getAssets();
  const styles = await Deno.readTextFile(join(DIST_DIR, assets.files["styles.css"]));
  const body = renderToString(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>Claim {data.claim.claim_number} · evidence</title>
        <link rel="stylesheet" href="styles.css" />
      </head>
      <body class="bg-white text-slate-900">
        <main class="mx-auto max-w-7xl px-4 py-6">
          <DepotTimeZone.Provider value={zone}>
            <ClaimView data={data} zone={zone} photo={photo} handoverImage={handoverImage} />
          </DepotTimeZone.Provider>
        </main>
      </body>
    </html>,
  );
  return { page: `<!DOCTYPE html>${body}`, styles };
}
