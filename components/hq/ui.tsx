/** Small server-only building blocks of the HQ dashboard pages: forms, messages, badges, paging, times. */
import { type ComponentChildren, createContext } from "preact";
import { useContext } from "preact/hooks";
import type { PartStatus } from "@/db/schema.ts";
import { formatDepotTime } from "@/io/time_zone.ts";
import { type Heading, SortHeading, type TableSorting } from "@/components/hq/sort_heading.tsx";

/** The session's CSRF token as the hidden field csrfProtect reads. Every dashboard form has one. */
export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

export type NoticeKind = "ok" | "error" | "info";
export interface Notice {
  kind: NoticeKind;
  text: string;
}

const NOTICE_CLASSES: Record<NoticeKind, string> = {
  ok: "border-emerald-300 bg-emerald-50 text-emerald-900",
  error: "border-red-300 bg-red-50 text-red-900",
  info: "border-sky-300 bg-sky-50 text-sky-900",
};

export function NoticeBox({ notice }: { notice: Notice | null | undefined }) {
  if (!notice) return null;
  return (
    <div
      role={notice.kind === "error" ? "alert" : "status"}
      class={`mb-4 rounded border px-4 py-3 ${NOTICE_CLASSES[notice.kind]}`}
      data-notice={notice.kind}
    >
      {notice.text}
    </div>
  );
}

const STATUS_CLASSES: Record<PartStatus, string> = {
  "Ordered": "bg-slate-100 text-slate-800",
  "Arrived": "bg-emerald-100 text-emerald-900",
  "Delivered to Repair Shop directly": "bg-indigo-100 text-indigo-900",
  "Pending Repair Shop Pick-Up": "bg-amber-100 text-amber-900",
  "Picked Up from Repair Shop": "bg-orange-100 text-orange-900",
  "Returned to HQ": "bg-teal-100 text-teal-900",
};

export function StatusBadge({ status }: { status: PartStatus }) {
  return (
    <span
      class={`status-badge inline-block rounded px-2 py-0.5 text-sm font-medium ${STATUS_CLASSES[status]}`}
    >
      {status}
    </span>
  );
}

export function PageTitle({ children, sub }: { children: ComponentChildren; sub?: ComponentChildren }) {
  return (
    <div class="mb-4">
      <h1 class="text-2xl font-semibold text-slate-900">{children}</h1>
      {sub && <p class="mt-1 text-slate-600">{sub}</p>}
    </div>
  );
}

export const inputClass =
  "min-h-10 rounded border border-slate-300 bg-white px-2 py-1.5 text-base focus:border-sky-600 focus:outline-none focus:ring-1 focus:ring-sky-600";
export const buttonClass =
  "inline-flex min-h-10 items-center rounded bg-sky-700 px-4 py-2 text-base font-medium text-white hover:bg-sky-800 focus:outline-none focus:ring-2 focus:ring-sky-500 focus:ring-offset-1";
export const secondaryButtonClass =
  "inline-flex min-h-10 items-center rounded border border-slate-300 bg-white px-4 py-2 text-base font-medium text-slate-800 hover:bg-slate-50";
export const dangerButtonClass =
  "inline-flex min-h-10 items-center rounded border border-red-300 bg-white px-4 py-2 text-base font-medium text-red-800 hover:bg-red-50";
/** A link: at least 40 px tall however short its text, so it is easy to hit on a tablet. */
export const linkClass = "inline-flex min-h-10 items-center text-sky-800 underline hover:text-sky-950";
export const tableClass = "min-w-full divide-y divide-slate-200 text-base";
export const thClass = "px-3 py-2 text-left font-semibold text-slate-700 whitespace-nowrap";
export const tdClass = "px-3 py-2 align-top";

/**
 * A labelled table of `rows`, one `<tr>` each from `children`; `head` names the columns ("" for one without
 * a heading, read out as "Actions"); with `sorting`, a heading that names a sort column is a link ordering the list by it. With
 * `empty`, no rows show that message instead of an empty table. A wide table scrolls inside its own box,
 * never the page.
 */
export function Table<R>(
  { label, head, rows, empty, sorting, children }: {
    label: string;
    head: readonly (string | Heading)[];
    rows: readonly R[];
    empty?: ComponentChildren;
    sorting?: TableSorting;
    children: (row: R) => ComponentChildren;
  },
) {
  if (rows.length === 0 && empty) return <Empty>{empty}</Empty>;
  return (
    // relative: an absolutely placed child (the sr-only "Actions" heading) scrolls with the table instead of
    // widening the page. On a screen narrower than the table it scrolls here, never cut: a labelled region
    // that takes the keyboard's focus, so arrow keys scroll it (docs/live-rows.md "Tables").
    <div
      class="relative overflow-x-auto rounded border border-slate-200 bg-white"
      role="region"
      aria-label={`${label} (scrolls sideways when wider than the screen)`}
      tabIndex={0}
    >
      <table class={tableClass} aria-label={label}>
        <thead class="bg-slate-50">
          <tr>
            {head.map((h, i) => {
              const heading = typeof h === "string" ? { label: h } : h;
              return heading.sort && sorting
                ? <SortHeading key={i} heading={heading} sorting={sorting} class={thClass} />
                : (
                  <th key={i} class={thClass}>
                    {/* A column without a heading holds a row's buttons: screen readers still hear a name. */}
                    {heading.label || <span class="sr-only">Actions</span>}
                  </th>
                );
            })}
          </tr>
        </thead>
        <tbody class="divide-y divide-slate-100">{rows.map((row) => children(row))}</tbody>
      </table>
    </div>
  );
}

/** A table cell showing a time, kept on one line. */
export function TimeCell({ at }: { at: Date | string | null | undefined }) {
  return (
    <td class={`${tdClass} whitespace-nowrap`}>
      <Time at={at} />
    </td>
  );
}

/** One label and value of a details list (`<dl>`); `testId` marks the value for browser tests. */
export function DetailItem(
  { label, testId, children }: { label: string; testId?: string; children: ComponentChildren },
) {
  return (
    <div>
      <dt class="text-slate-500">{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}

/** A section of a page under its own heading, which labels it. */
export function Section(
  { id, title, class: className, children }: {
    id: string;
    title: ComponentChildren;
    class?: string;
    children: ComponentChildren;
  },
) {
  return (
    <section class={className} aria-labelledby={id}>
      <h2 id={id} class="mb-2 text-lg font-semibold">{title}</h2>
      {children}
    </section>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return (
    <p class="rounded border border-dashed border-slate-300 p-6 text-center text-slate-600">{children}</p>
  );
}

/** Previous / next links (keyset cursors, lib/dashboard/lists.ts) that keep the filters and the order. */
export function Pagination({ prev, next }: { prev?: string; next?: string }) {
  if (!prev && !next) return null;
  return (
    <nav class="mt-4 flex items-center gap-4" aria-label="Pages">
      {prev ? <a class={linkClass} href={prev} rel="prev">← Previous</a> : null}
      {next ? <a class={linkClass} href={next} rel="next">Next →</a> : null}
    </nav>
  );
}

/**
 * The depot's time zone (`DEPOT_TIME_ZONE`) for the times of a page; components/hq/page.tsx provides it
 * around every dashboard page, so a page component needs no zone of its own.
 */
export const DepotTimeZone = createContext("UTC");

/** "2026-11-21 20:30 AEDT" in the depot's zone: the same unambiguous form the announcements use. */
export function Time({ at }: { at: Date | string | null | undefined }) {
  const zone = useContext(DepotTimeZone);
  if (!at) return <span class="text-slate-400">—</span>;
  const d = new Date(at);
  return <time datetime={d.toISOString()}>{formatDepotTime(d, zone)}</time>;
}

/** "2 d 4 h", "3 h 20 min", "12 min". */
export function formatAge(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes % 60} min`;
  return `${minutes} min`;
}

/** A labelled form field. */
export function Field(
  { label, children, hint }: { label: string; children: ComponentChildren; hint?: string },
) {
  return (
    <label class="flex flex-col gap-1">
      <span class="font-medium text-slate-700">{label}</span>
      {children}
      {hint && <span class="text-sm text-slate-600">{hint}</span>}
    </label>
  );
}

/**
 * A photo thumbnail linking to the full-size photo (routes/photos.ts serves both); "small" in a list's
 * row. Lazy-loaded with its size given, so a long list neither fetches every photo nor jumps as they load.
 */
export function PhotoThumb(
  { id, alt, size = "large" }: { id: number | null | undefined; alt: string; size?: "large" | "small" },
) {
  if (!id) return <span class="text-sm text-slate-600">no photo</span>;
  const px = size === "small" ? 48 : 80;
  return (
    <a href={`/photos/${id}`} class="inline-block" title="Open full size" data-photo={id}>
      <img
        src={`/photos/${id}/thumb`}
        alt={alt}
        loading="lazy"
        width={px}
        height={px}
        class={`${
          size === "small" ? "h-12 w-12" : "h-20 w-20"
        } rounded border border-slate-200 bg-slate-100 object-cover`}
      />
    </a>
  );
}

/** A two-factor code box: six digits (RFC 6238), a space allowed in the middle as authenticator apps show it. */
export function TotpCodeInput({ required = false }: { required?: boolean }) {
  return (
    <input
      class={inputClass}
      name="code"
      inputmode="numeric"
      pattern="[0-9 ]{6,7}"
      autocomplete="one-time-code"
      required={required}
    />
  );
}
