/**
 * A movement leg's handover (docs/handover.md "Where it is shown"), the one way the claim, movement and part
 * pages, the evidence pack's printed copy and the tablet's receipt show it: "Signed by <name> at <time>" with
 * the signature, "Nobody to sign: <reason>" with the photo of where the parts were left, or why there is none.
 */
import { useContext } from "preact/hooks";
import { formatDepotTime } from "@/io/time_zone.ts";
import type { MovementStage } from "@/db/schema.ts";
import type { LegHandover, MovementLegHandover, RecordedVia } from "@/lib/handover/shown.ts";
import type { LegPhoto } from "@/lib/photos/stored.ts";
import { DepotTimeZone } from "@/components/hq/ui.tsx";

/** Where an image is shown from and opens to; null when it is not available (not packed). */
export type HandoverImageLink = (
  image: LegPhoto,
  kind: "signature" | "left",
) => { src: string; href: string } | null;

/** On the dashboard and the tablet: the photo routes (a signature is small: shown as stored). */
export const servedImage: HandoverImageLink = (image, kind) => ({
  src: kind === "signature" ? `/photos/${image.id}` : `/photos/${image.id}/thumb`,
  href: `/photos/${image.id}`,
});

export function HandoverSummary(
  { handover: h, recordedVia, zone, image = servedImage }: {
    handover: LegHandover | null;
    recordedVia: RecordedVia;
    /** The depot's zone; the page's (DepotTimeZone) when not given. */
    zone?: string;
    image?: HandoverImageLink;
  },
) {
  const pageZone = useContext(DepotTimeZone);
  if (!h) {
    return (
      <span class="text-sm text-slate-600" data-handover="none">
        {recordedVia === "mobile app" ? "no signature (mobile app)" : "no signature asked"}
      </span>
    );
  }
  const at = <time datetime={h.at.toISOString()}>{formatDepotTime(h.at, zone ?? pageZone)}</time>;
  const signed = h.receiverName !== null;
  const picture = signed ? h.signature : h.left;
  const link = picture && image(picture, signed ? "signature" : "left");
  return (
    <div class="handover flex flex-col gap-1 text-sm" data-handover={signed ? "signed" : "unsigned"}>
      <span>
        {signed
          ? (
            <>
              Signed by <strong data-testid="receiver-name">{h.receiverName}</strong> at {at}
            </>
          )
          : (
            <>
              Nobody to sign: <strong>{h.reasonLabel}</strong> ({at})
            </>
          )}
      </span>
      {link && (
        <a href={link.href} class="inline-block" title="Open full size">
          <img
            src={link.src}
            alt={signed ? `Signature of ${h.receiverName}` : "Where the parts were left"}
            class={signed
              ? "handover-signature h-16 max-w-56 rounded border border-slate-200 bg-white object-contain"
              : "handover-left h-20 w-20 rounded border border-slate-200 bg-slate-100 object-cover"}
          />
        </a>
      )}
      <span class="font-mono text-xs text-slate-500" title={`Handover digest (SHA-256): ${h.digest}`}>
        digest {h.digest.slice(0, 12)}…
      </span>
    </div>
  );
}

/** Where each leg's handover took place, as a list of a movement's handovers names it. */
export const HANDOVER_PLACE: Record<MovementStage, string> = {
  direct_dropoff: "Delivered at the repair shop",
  reverse_pickup: "Collected at the repair shop",
  reverse_dropoff: "Returned at HQ",
};

/** A movement's handovers, one per leg, each named by where it took place. */
export function MovementHandovers({ legs, zone }: { legs: MovementLegHandover[]; zone?: string }) {
  return (
    <ul class="flex flex-col gap-2" aria-label="Handovers">
      {legs.map((l) => (
        <li key={l.leg} data-leg={l.leg}>
          <span class="block text-xs font-semibold uppercase text-slate-600">{HANDOVER_PLACE[l.leg]}</span>
          <HandoverSummary handover={l.handover} recordedVia={l.recordedVia} zone={zone} />
        </li>
      ))}
    </ul>
  );
}
