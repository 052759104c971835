/**
 * A claim's page (docs/claim-page.md), shared by the dashboard page
 * (routes/hq/claim.tsx) and the printable copy in the evidence ZIP: the claim, vehicle and repair shop, every
 * part with its status, each moved part's legs with their photos, the parts never moved in one line, and the
 * timeline. Printed (static/styles.css @media print), parts flow on A4 pages, each part's block kept whole.
 * Only where a photo is found differs: the dashboard's photo routes, or the file beside the page in the ZIP.
 * Every value shown is in words: no stored name (a stage, a channel, a state) reaches the reader.
 */
import type { ComponentChildren } from "preact";
import type { ClaimPageData, Leg, TimelineEvent } from "@/lib/dashboard/claim.ts";
import {
  ANNOUNCEMENT_STATE_LABEL,
  CHANNEL_LABEL,
  CHAT_CHANNEL_LABEL,
} from "@/components/hq/announcement_words.ts";
import {
  DetailItem,
  linkClass,
  PageTitle,
  Section,
  StatusBadge,
  Table,
  tdClass,
  TimeCell,
} from "@/components/hq/ui.tsx";

/** Where a leg's photo is shown from and opens to; null when the leg has no photo (or it is not packed). */
export type PhotoLink = (leg: Leg) => { src: string; href: string } | null;

export const LEG_LABEL: Record<Leg["leg"], string> = {
  direct_dropoff: "Delivered to repair shop",
  reverse_pickup: "Picked up from repair shop",
  reverse_dropoff: "Returned to HQ",
};

const VIA_LABEL = {
  import: "import",
  dashboard: "dashboard",
  movement: "movement",
  shop: "shop page",
} as const;
const LEG_COLUMNS = ["Leg", "When", "Driver", "Place", "Movement", "Receiver", "Photo"];
const PART_COLUMNS = ["Part", "Description", "Qty", "Status"];
const TIMELINE_COLUMNS = ["When", "Event", "Details"];

export function ClaimView(
  { data, zone, photo, receiver, links = false }: {
    data: ClaimPageData;
    zone: string;
    photo: PhotoLink;
    /** What a leg's "Receiver" cell shows: who took the parts at the other end; "not recorded" without. */
    receiver?: (leg: Leg) => ComponentChildren;
    /** Parts and movements link to their dashboard pages (not in the ZIP's copy, which is read offline). */
    links?: boolean;
  },
) {
  const { claim, parts, legs, timeline } = data;
  const legsOf = Map.groupBy(legs, (l) => l.partId);
  const unmoved = parts.filter((p) => !legsOf.has(p.id));
  const partLink = (p: { id: number; part_no: string }) => (
    <Linked href={links ? `/hq/parts/${p.id}` : null}>{p.part_no}</Linked>
  );
  return (
    <article class="claim-page" data-claim={claim.claim_number}>
      <PageTitle sub={`Vehicle ${claim.registration}`}>Claim {claim.claim_number}</PageTitle>
      <dl class="claim-details mb-6 grid grid-cols-2 gap-x-6 gap-y-2 rounded border border-slate-200 bg-white p-4 text-sm md:grid-cols-4">
        <DetailItem label="Vehicle (rego)">{claim.registration}</DetailItem>
        <DetailItem label="Repair shop">
          {claim.repairer_name ?? "—"}
          {claim.repairer_address ? <span class="block text-slate-600">{claim.repairer_address}</span> : null}
        </DetailItem>
        <DetailItem label="Parts">{parts.length}</DetailItem>
        <DetailItem label="Times shown in" testId="claim-zone">{zone}</DetailItem>
      </dl>

      <Section id="parts" title="Parts" class="mb-8">
        <Table label="Parts of this claim" head={PART_COLUMNS} rows={parts} empty="This claim has no parts.">
          {(p) => (
            <tr key={p.id}>
              <td class={`${tdClass} font-mono`}>{partLink(p)}</td>
              <td class={tdClass}>{p.description}</td>
              <td class={tdClass}>{p.qty_ordered}</td>
              <td class={tdClass}>
                <StatusBadge status={p.status} />
              </td>
            </tr>
          )}
        </Table>
      </Section>

      {parts.length > 0 && (
        <Section id="legs" title="Where each part has been" class="mb-8">
          {parts.filter((p) => legsOf.has(p.id)).map((p) => (
            <section
              key={p.id}
              class="claim-part mb-6"
              data-part={p.part_no}
              aria-label={`Part ${p.part_no}`}
            >
              <h3 class="mb-2 font-semibold">
                Part <span class="font-mono">{p.part_no}</span> · {p.description} ·{" "}
                <StatusBadge status={p.status} />
              </h3>
              <Table label={`Legs of part ${p.part_no}`} head={LEG_COLUMNS} rows={legsOf.get(p.id)!}>
                {(l) => (
                  <tr key={`${l.movementId}-${l.leg}`} data-leg={l.leg}>
                    <td class={tdClass}>{LEG_LABEL[l.leg]}</td>
                    <TimeCell at={l.at} />
                    <td class={tdClass}>{l.driver ?? "—"}</td>
                    <td class={tdClass}>{l.place ?? "—"}</td>
                    <td class={tdClass}>
                      <Linked href={links ? `/hq/movements/${l.movementId}` : null}>#{l.movementId}</Linked>
                    </td>
                    <td class={tdClass} data-receiver>
                      {receiver ? receiver(l) : <span class="text-slate-500">not recorded</span>}
                    </td>
                    <td class={tdClass}>
                      <LegPhoto leg={l} photo={photo} />
                    </td>
                  </tr>
                )}
              </Table>
            </section>
          ))}
          {unmoved.length > 0 && (
            <p
              class="claim-not-moved rounded border border-slate-200 bg-white px-3 py-2"
              data-testid="claim-not-moved"
            >
              <strong>Not moved yet:</strong> {unmoved.map((p, i) => (
                <span key={p.id}>
                  {i > 0 && ", "}
                  <span class="font-mono">{partLink(p)}</span> ({p.description})
                </span>
              ))}
            </p>
          )}
        </Section>
      )}

      <Section id="timeline" title="Timeline" class="claim-timeline mb-8">
        <Table label="Timeline of this claim" head={TIMELINE_COLUMNS} rows={timeline} empty="Nothing yet.">
          {(e) => (
            <tr key={`${e.kind}-${e.at.getTime()}-${eventTitle(e)}`} data-event={e.kind}>
              <TimeCell at={e.at} />
              <td class={tdClass}>{eventTitle(e)}</td>
              <td class={tdClass}>
                <EventDetails event={e} />
              </td>
            </tr>
          )}
        </Table>
      </Section>
    </article>
  );
}

function Linked({ href, children }: { href: string | null; children: ComponentChildren }) {
  return href ? <a class={linkClass} href={href}>{children}</a> : <>{children}</>;
}

function LegPhoto({ leg, photo }: { leg: Leg; photo: PhotoLink }) {
  const link = photo(leg);
  if (!link) return <span class="text-xs text-slate-500">no photo</span>;
  return (
    <a href={link.href} class="inline-block" title="Open full size">
      <img
        src={link.src}
        alt={`${LEG_LABEL[leg.leg]}: photo of part ${leg.partNo}`}
        class="claim-photo h-32 w-32 rounded border border-slate-200 bg-slate-100 object-cover"
      />
    </a>
  );
}

function eventTitle(e: TimelineEvent): string {
  switch (e.kind) {
    case "created":
      return "Claim imported";
    case "status":
      return `Part ${e.partNo}: ${e.from ?? "new"} → ${e.to}`;
    case "leg":
      return `Part ${e.leg.partNo}: ${LEG_LABEL[e.leg.leg]}`;
    case "announcement":
      return `Announcement "${e.title}"`;
  }
}

function EventDetails({ event: e }: { event: TimelineEvent }) {
  switch (e.kind) {
    case "created":
      return null;
    case "status":
      return (
        <>
          via {VIA_LABEL[e.via]}
          {e.movementId ? ` (movement #${e.movementId})` : ""}
          {e.who ? `, by ${e.who}` : ""}
          {e.reason ? <span class="block">Reason: {e.reason}</span> : null}
        </>
      );
    case "leg":
      return <>{e.leg.driver ?? "—"} at {e.leg.place ?? "—"} (movement #{e.leg.movementId})</>;
    case "announcement":
      return (
        <>
          {e.channels.map((d, i) => (
            <span key={d.channel}>
              {i > 0 && "; "}
              {d.channel === "shop_email"
                ? CHANNEL_LABEL[d.channel]
                : `${CHAT_CHANNEL_LABEL[d.channel]} chat`}: {ANNOUNCEMENT_STATE_LABEL[d.state]}
              {d.lastError ? ` (${d.lastError})` : ""}
            </span>
          ))}
        </>
      );
  }
}
