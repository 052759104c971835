/**
 * The repair shop's page (docs/shop-page.md), made for a manager's phone between jobs: one column, large
 * targets, plain forms that work without script. Lists, for the one shop: parts on the way, parts it holds
 * (each with the delivery that brought it, a checkbox for "Ready for collection" and "Report a problem"),
 * parts waiting for collection, its recent collections and its problem reports.
 */
import type { ComponentChildren } from "preact";
import type { ProblemReportRow } from "@/db/queries/shop_problems.ts";
import type { ShopPartRow } from "@/db/queries/shop_page.ts";
import { formatDepotTime } from "@/io/time_zone.ts";
import type { ShopPageData } from "@/lib/shops/page.ts";
import { PROBLEM_NOTE_MAX, PROBLEM_REASONS } from "@/lib/shops/problems.ts";

export interface ShopNotice {
  kind: "ok" | "error";
  text: string;
}

export interface ShopPageProps {
  data: ShopPageData;
  reports: ProblemReportRow[];
  /** `/shop/<token>`: every form and photo of the page is under it. */
  base: string;
  zone: string;
  notice?: ShopNotice;
  /** A report just sent: its photo form opens under it. */
  reportedId?: number;
}

function Section(
  { id, title, count, children }: { id: string; title: string; count: number; children: ComponentChildren },
) {
  return (
    <section aria-labelledby={id} class="space-y-3">
      <h2 id={id} class="text-2xl font-bold">{title} ({count})</h2>
      {children}
    </section>
  );
}

function PartLine({ p }: { p: ShopPartRow }) {
  return (
    <span>
      <strong class="block font-mono text-lg">{p.part_no}</strong>
      {p.description} · Qty {p.qty_ordered} · claim {p.claim_number} ·{" "}
      <span class="font-mono">{p.registration}</span>
    </span>
  );
}

function Empty({ children }: { children: ComponentChildren }) {
  return <p class="text-slate-700">{children}</p>;
}

export function ShopPage({ data, reports, base, zone, notice, reportedId }: ShopPageProps) {
  const time = (d: Date) => formatDepotTime(d, zone);
  return (
    <>
      <header class="border-b-4 border-blue-900 bg-white">
        <div class="mx-auto flex min-h-12 max-w-3xl items-center px-4 py-1 text-lg">
          Parts Movement · repair shop
        </div>
      </header>
      <main id="main" class="mx-auto max-w-3xl space-y-8 p-4">
        <h1 class="text-3xl font-bold">{data.name}</h1>
        {notice && (
          <p
            class={notice.kind === "ok" ? "msg-ok" : "msg-error"}
            role={notice.kind === "ok" ? "status" : "alert"}
          >
            {notice.text}
          </p>
        )}
        {data.cut && <p class="msg-info">Some lists are long and show their first 200 parts.</p>}

        <Section id="held-heading" title="Parts at your shop" count={data.held.length}>
          {data.held.length === 0
            ? <Empty>None of our parts is at your shop now.</Empty>
            : (
              <form method="post" action={`${base}/ready`} class="space-y-3">
                <p>Tick the parts you are done with and tell us: a driver collects them.</p>
                <ul class="space-y-3">
                  {data.held.map((p) => (
                    <li key={p.id} class="card space-y-2" data-testid={`shop-part-${p.part_no}`}>
                      <label class="flex min-h-12 cursor-pointer items-start gap-4">
                        <input
                          type="checkbox"
                          class="toggle mt-1"
                          name="part"
                          value={String(p.id)}
                          aria-label={p.part_no}
                        />
                        <PartLine p={p} />
                      </label>
                      {p.delivery && (
                        <p class="flex flex-wrap items-center gap-3 text-base text-slate-700">
                          <span>
                            Delivered {time(p.delivery.dropped_off_at)}
                            {p.delivery.driver_name ? ` by ${p.delivery.driver_name}` : ""}
                          </span>
                          {p.delivery.photo_id && (
                            <a href={`${base}/photos/${p.delivery.photo_id}`}>
                              <img
                                src={`${base}/photos/${p.delivery.photo_id}/thumb`}
                                alt={`Delivery photo of ${p.part_no}`}
                                width={64}
                                height={64}
                                loading="lazy"
                                class="h-16 w-16 rounded border border-slate-300 object-cover"
                              />
                            </a>
                          )}
                        </p>
                      )}
                      <details>
                        <summary class="cursor-pointer text-base text-blue-900 underline">
                          Report a problem with {p.part_no}
                        </summary>
                        <ProblemForm base={base} partId={p.id} partNo={p.part_no} />
                      </details>
                    </li>
                  ))}
                </ul>
                <button type="submit" class="btn btn-primary min-h-14 w-full text-xl sm:w-auto">
                  Ready for collection
                </button>
              </form>
            )}
        </Section>

        <Section id="flagged-heading" title="Waiting for collection" count={data.flagged.length}>
          {data.flagged.length === 0
            ? <Empty>Nothing is waiting for a driver.</Empty>
            : (
              <ul class="space-y-2">
                {data.flagged.map((p) => (
                  <li key={p.id} class="card" data-testid={`shop-flagged-${p.part_no}`}>
                    <PartLine p={p} />
                  </li>
                ))}
              </ul>
            )}
        </Section>

        <Section id="way-heading" title="On the way to you" count={data.onTheWay.length}>
          {data.todaysDriver && data.onTheWay.length > 0 && (
            <p class="msg-info">{data.todaysDriver} has your shop on today's run.</p>
          )}
          {data.onTheWay.length === 0
            ? <Empty>Nothing is waiting at our depot for your shop.</Empty>
            : (
              <ul class="space-y-2">
                {data.onTheWay.map((p) => (
                  <li key={p.id} class="card">
                    <PartLine p={p} />
                  </li>
                ))}
              </ul>
            )}
        </Section>

        <Section id="collections-heading" title="Recent collections" count={data.collections.length}>
          {data.collections.length === 0 ? <Empty>No collections yet.</Empty> : (
            <ul class="space-y-2">
              {data.collections.map((m) => (
                <li key={m.movement_id} class="card">
                  {time(m.pick_up_at)}
                  {m.driver_name ? ` · ${m.driver_name}` : ""} · claim {m.claim_number} ·{" "}
                  <span class="font-mono">{m.registration}</span>: {m.part_nos.join(", ")}
                </li>
              ))}
            </ul>
          )}
        </Section>

        {reports.length > 0 && (
          <Section id="reports-heading" title="Your problem reports" count={reports.length}>
            <ul class="space-y-2">
              {reports.map((r) => (
                <li key={r.id} id={`report-${r.id}`} class="card space-y-2">
                  <p>
                    #{r.id} · {PROBLEM_REASONS[r.reason]} · <span class="font-mono">{r.part_no}</span> ·{" "}
                    {time(r.reported_at)} ·{" "}
                    {r.state === "open" ? "waiting for HQ" : `handled by ${r.resolved_by_name ?? "HQ"}`}
                  </p>
                  {r.note && <p class="whitespace-pre-line">“{r.note}”</p>}
                  {r.photo_id && <p>Photo sent.</p>}
                  {r.state === "open" && (r.id === reportedId || !r.photo_id) && (
                    <form
                      method="post"
                      action={`${base}/problems/${r.id}/photo`}
                      enctype="multipart/form-data"
                      class="flex flex-wrap items-end gap-3"
                    >
                      <label class="flex flex-col gap-1">
                        <span class="field-label">
                          {r.photo_id ? "Replace the photo" : "Add a photo (optional)"}
                        </span>
                        <input
                          type="file"
                          name="file"
                          accept="image/*"
                          capture="environment"
                          required
                          class="field"
                        />
                      </label>
                      <button type="submit" class="btn btn-secondary">Send photo</button>
                    </form>
                  )}
                </li>
              ))}
            </ul>
          </Section>
        )}
      </main>
    </>
  );
}

function ProblemForm({ base, partId, partNo }: { base: string; partId: number; partNo: string }) {
  return (
    <form method="post" action={`${base}/problems`} class="mt-3 space-y-3">
      <input type="hidden" name="part" value={String(partId)} />
      <fieldset class="space-y-2">
        <legend class="field-label">What is wrong with {partNo}?</legend>
        {Object.entries(PROBLEM_REASONS).map(([key, label], i) => (
          <label key={key} class="flex min-h-12 items-center gap-3">
            <input type="radio" name="reason" value={key} required checked={i === 0} />
            {label}
          </label>
        ))}
      </fieldset>
      <label class="block space-y-1">
        <span class="field-label">Note for HQ (optional)</span>
        <textarea name="note" rows={2} maxLength={PROBLEM_NOTE_MAX} class="field w-full" />
      </label>
      <button type="submit" class="btn btn-secondary">Send to HQ</button>
    </form>
  );
}

/** A link that opens no page: unknown, replaced or turned off. */
export function ShopLinkGone({ title, text }: { title: string; text: string }) {
  return (
    <main id="main" class="mx-auto max-w-3xl space-y-4 p-4">
      <div class="msg-error" role="alert">
        <h1 class="text-3xl font-bold">{title}</h1>
        <p class="text-xl">{text}</p>
      </div>
    </main>
  );
}
