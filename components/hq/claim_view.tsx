/**
 * A claim's page (docs/dashboard.md "Claim page and evidence pack"), shared by the dashboard page
 * (routes/hq/claim.tsx) and the printable copy in the evidence ZIP: the claim, vehicle and repair shop, every
 * part with its legs and photos (one part per printed A4 page: `claim-part`, static/styles.css @media print),
 * and the timeline. Only where a photo is found differs: the dashboard's photo routes, or the file beside the
 * page in the ZIP.
 */
import type { ComponentChildren } from "preact";
import { CHANNEL_LABEL } from "@/lib/announcements/feed.ts";
import type { ClaimPageData, Leg, TimelineEvent } from "@/lib/dashboard/claim.ts";
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

const VIA_LABEL = { import: "import", dashboard: "dashboard", movement: "movement" } as const;
const LEG_COLUMNS = ["Leg", "When", "Driver", "Place", "Movement", "Photo"];
const PART_COLUMNS = ["Part", "Description", "Qty", "Status"];
const TIMELINE_COLUMNS = ["When", "Event", "Details"];

export function ClaimView(
  { data, zone, photo, actions, links = false }: {
    data: ClaimPageData;
    zone: string;
    photo: PhotoLink;
    /** The page's links (download, back); none in the printed copy. */
    actions?: ComponentChildren;
    /** Parts and movements link to their dashboard pages (not in the ZIP's copy, which is read offline). */
    links?: boolean;
  },
) {
  const { claim, parts, legs, timeline } = data;
  return (
    <article class="claim-page" data-claim={claim.claim_number}>
      {actions}
      <PageTitle sub={`Vehicle ${claim.registration}`}>Claim {claim.claim_number}</PageTitle>
      <dl class="mb-6 grid grid-cols-2 gap-x-6 gap-y-2 rounded border border-slate-200 bg-white p-4 text-sm md:grid-cols-4">
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
              <td class={`${tdClass} font-mono`}>
                <Linked href={links ? `/hq/parts/${p.id}` : null}>{p.part_no}</Linked>
              </td>
              <td class={tdClass}>{p.description}</td>
              <td class={tdClass}>{p.qty_ordered}</td>
              <td class={tdClass}>
                <StatusBadge status={p.status} />
              </td>
            </tr>
          )}
        </Table>
      </Section>

      <Section id="timeline" title="Timeline" class="mb-8">
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

      {parts.map((p) => (
        <section key={p.id} class="claim-part mb-8" data-part={p.part_no} aria-label={`Part ${p.part_no}`}>
          <h2 class="mb-2 text-lg font-semibold">
            Part <span class="font-mono">{p.part_no}</span> · {p.description} ·{" "}
            <StatusBadge status={p.status} />
          </h2>
          <Table
            label={`Legs of part ${p.part_no}`}
            head={LEG_COLUMNS}
            rows={legs.filter((l) =>
              l.partId === p.id
            )}
            empty="This part has not been moved."
          >
            {(l) => (
              <tr key={`${l.movementId}-${l.leg}`} data-leg={l.leg}>
                <td class={tdClass}>{LEG_LABEL[l.leg]}</td>
                <TimeCell at={l.at} />
                <td class={tdClass}>{l.driver ?? "—"}</td>
                <td class={tdClass}>{l.place ?? "—"}</td>
                <td class={tdClass}>
                  <Linked href={links ? `/hq/movements/${l.movementId}` : null}>
                    #{l.movementId} {l.movementType}
                  </Linked>
                </td>
                <td class={tdClass}>
                  <LegPhoto leg={l} photo={photo} />
                </td>
              </tr>
            )}
          </Table>
        </section>
      ))}
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
      return <>{CHANNEL_LABEL[e.channel]}: {e.state}{e.lastError ? ` (${e.lastError})` : ""}</>;
  }
}
