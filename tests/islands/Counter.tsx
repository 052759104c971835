/**
 * Demo island for the island layer's own tests (the islands and assets tests build and hydrate it).
 * It uses a signal so the browser test also proves @preact/signals hydrates with our Preact.
 */
import { useSignal } from "@preact/signals";

export interface CounterProps {
  start: number;
  label: string;
}

export default function Counter({ start, label }: CounterProps) {
  const count = useSignal(start);
  return (
    <div class="flex items-center gap-3">
      <span>{label}</span>
      <output class="font-semibold tabular-nums" data-testid="count">{count}</output>
      <button
        type="button"
        class="rounded border px-3 py-1"
        onClick={() => count.value++}
      >
        Add one
      </button>
    </div>
  );
}
