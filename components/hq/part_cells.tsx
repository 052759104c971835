/** The cells that name a part in a dashboard table: its number (a link to its page), description, qty, status. */
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
        <a class={`${linkClass} font-mono`} href={`/hq/parts/${part.id}`}>{part.part_no}</a>
      </td>
      <td class={tdClass}>{part.description}</td>
      <td class={tdClass}>{part.qty_ordered}</td>
      <td class={tdClass}>
        <StatusBadge status={part.status} />
      </td>
    </>
  );
}
