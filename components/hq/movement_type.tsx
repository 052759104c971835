/** A movement's type as a coloured label: Direct (HQ → repair shop) or Return (repair shop → HQ). */
export function MovementTypeLabel({ type }: { type: string }) {
  return type === "direct"
    ? <span class="rounded bg-indigo-100 px-2 py-0.5 text-sm font-medium text-indigo-900">Direct</span>
    : <span class="rounded bg-orange-100 px-2 py-0.5 text-sm font-medium text-orange-900">Return</span>;
}
