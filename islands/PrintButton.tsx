/**
 * The "Print" button of the label sheets (routes/hq/labels.tsx): opens the browser's print dialog. Without
 * JavaScript the button does nothing and the browser's own Print does the same; the page says so.
 */
export interface PrintButtonProps {
  label: string;
}

export default function PrintButton({ label }: PrintButtonProps) {
  return (
    <button
      type="button"
      class="inline-flex min-h-10 items-center rounded bg-sky-700 px-4 py-2 text-base font-medium text-white hover:bg-sky-800"
      onClick={() => globalThis.print()}
    >
      {label}
    </button>
  );
}
