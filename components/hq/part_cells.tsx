/**
 * The cells and links that name things in the dashboard's tables: a part (its number links to its page),
 * a rego (to the parts of that rego), a claim (to its claim page), a driver (to the movements they made).
 */
import type { PartStatus } from "@/db/schema.ts";
import { linkClass, StatusBadge, tdClass } from "@/components/hq/ui.tsx";

export function PartCells(
  { part }: {
    part: { id: number; part_no: string; description: string; qty_ordered: number; status: PartStatus };
  },
) {
  return (
    <>
      <td class={tdClass}>
        <a class={`${linkClass} whitespace-nowrap font-mono`} href={`/hq/parts/${part.id}`}>{part.part_no}</a>
      </td>
      <td class={tdClass}>{part.description}</td>
      <td class={tdClass}>{part.qty_ordered}</td>
      <td class={tdClass}>
        <StatusBadge status={part.status} />
      </td>
    </>
  );
}

/** A rego as a link to the parts list filtered by it. */
export function RegoLink({ rego }: { rego: string }) {
  return (
    <a class={`${linkClass} whitespace-nowrap`} href={`/hq/parts?${new URLSearchParams({ rego })}`}>{rego}</a>
  );
}

/** A claim number as a link to the claim's page. */
/** The claim page's address (routes/hq/claim.tsx). */
export const claimHref = (claimNumber: string) => `/hq/claims/${encodeURIComponent(claimNumber)}`;

export function ClaimLink({ claim }: { claim: string }) {
  return <a class={linkClass} href={claimHref(claim)}>{claim}</a>;
}

/** A driver's name as a link to the movements they picked up or dropped off. */
export function DriverLink({ id, name }: { id: number; name: string }) {
  return <a class={linkClass} href={`/hq/movements?driver=${id}`}>{name}</a>;
}
