/**
 * `GET /tablet/movements/:id`: the receipt after a movement (id, parts, photo thumbnails from
 * /photos/:id/thumb), with the next step offered: another job, or "finish and sign out" (D23).
 * Only the drivers on the movement (and admins) may see it.
 */
import { Hono } from "hono";
import type { TabletHeaderProps } from "@/components/TabletHeader.tsx";
import { TabletHeader } from "@/components/TabletHeader.tsx";
import { TabletLayout } from "@/components/TabletLayout.tsx";
import { MovementHandovers } from "@/components/hq/handover.tsx";
import { formatDepotTime } from "@/io/time_zone.ts";
import { JOBS, MOVEMENT_STATUS_WORDS, PART_STATUS_WORDS } from "@/components/tablet_jobs.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { renderPage } from "@/render/page.tsx";
import { loadReceipt, type Receipt } from "@/lib/tablet_data.ts";
import { headerOf, StopNavIsland } from "@/routes/tablet/jobs.tsx";
import { refusal } from "@/routes/web/error_pages.tsx";
import type { SessionEnv } from "@/routes/web/session.ts";

function jobOf(r: Receipt) {
  if (r.movement_type === "direct") return JOBS.deliver;
  return r.parts.some((p) => p.delivered) ? JOBS.return : JOBS.collect;
}

/**
 * A photo's thumbnail linking to the photo. `caption` names which photo it is where a part has two (a
 * return trip's pickup at the shop and return at HQ), shown under it.
 */
function Thumb({ id, alt, caption }: { id: number; alt: string; caption?: string }) {
  const img = (
    <a href={`/photos/${id}`} class="tablet-link shrink-0">
      <img
        src={`/photos/${id}/thumb`}
        alt={alt}
        width={112}
        height={112}
        class="h-28 w-28 rounded-lg border-2 border-slate-300 bg-slate-200 object-cover"
      />
    </a>
  );
  if (!caption) return img;
  return (
    <figure class="shrink-0">
      {img}
      <figcaption class="text-center text-base font-semibold" data-testid="photo-caption">
        {caption}
      </figcaption>
    </figure>
  );
}

/**
 * The way on from a receipt, stuck to the bottom of the screen as the flow's action bar is, so "Another
 * job" and "Finish and sign out" are in the first screen however many parts the movement carried (the
 * browser test measures it at 1280×800).
 */
const NEXT_BAR =
  "sticky bottom-0 z-10 -mx-4 flex flex-wrap gap-3 border-t-2 border-slate-300 bg-slate-100 px-4 py-2";

export function ReceiptPage(
  { data }: { data: { header: TabletHeaderProps; receipt: Receipt; timeZone: string } },
) {
  const r = data.receipt;
  // The depot's clock with its zone named ("2026-11-21 20:30 AEDT"), as on every page (io/time_zone.ts).
  const when = (d: Date) => formatDepotTime(d, data.timeZone);
  const job = jobOf(r);
  const reverse = r.movement_type === "reverse";
  const open = reverse && r.movement_status === "Parts Picked Up";
  const partly = open && job === JOBS.return;
  const csrf = data.header.csrf!;
  return (
    <>
      <TabletHeader {...data.header} />
      <main id="main" class="mx-auto max-w-5xl space-y-4 p-4">
        <div class="msg-ok" role="status">
          <h1 class="text-3xl font-bold" data-testid="receipt-title">
            {job.done}
            {partly && ": part of the trip"}
          </h1>
          <p class="text-xl">
            Movement <strong data-testid="movement-id">#{r.id}</strong> ·{" "}
            {MOVEMENT_STATUS_WORDS[r.movement_type][r.movement_status]}
          </p>
        </div>
        <dl class="card grid grid-cols-1 gap-x-6 gap-y-2 sm:grid-cols-[max-content_1fr]">
          <dt class="font-semibold">Rego</dt>
          <dd class="font-mono text-xl">{r.registration}</dd>
          <dt class="font-semibold">Claim</dt>
          <dd>{r.claim_number}</dd>
          {r.repairer && <dt class="font-semibold">Repair shop</dt>}
          {r.repairer && <dd>{r.repairer}</dd>}
          {r.hq_location && <dt class="font-semibold">HQ</dt>}
          {r.hq_location && <dd>{r.hq_location}</dd>}
          <dt class="font-semibold">Picked up</dt>
          <dd>{r.picked_up_by}, {when(r.pick_up_at)}</dd>
          {r.dropped_off_at && <dt class="font-semibold">Dropped off</dt>}
          {r.dropped_off_at && <dd>{r.dropped_off_by}, {when(r.dropped_off_at)}</dd>}
        </dl>
        <section class="card" aria-labelledby="handover-title" data-testid="receipt-handover">
          <h2 id="handover-title" class="text-xl font-semibold">Handover</h2>
          <MovementHandovers legs={r.handovers} zone={data.timeZone} />
        </section>
        <ul class="space-y-3" aria-label="Parts">
          {r.parts.map((p) => (
            <li
              key={p.delivery_id}
              class="card flex flex-wrap items-center gap-4"
              data-testid={`receipt-${p.part_no}`}
            >
              <Thumb
                id={p.pickup_photo_id}
                alt={`Pickup photo of ${p.part_no}`}
                caption={reverse ? "Pickup" : undefined}
              />
              {reverse && p.delivery_photo_id && (
                <Thumb id={p.delivery_photo_id} alt={`Return photo of ${p.part_no}`} caption="Return" />
              )}
              <div class="grow">
                <strong class="block font-mono text-xl">{p.part_no}</strong>
                <span class="block">{p.description} · qty {p.qty}</span>
                <span class="block font-semibold">{PART_STATUS_WORDS[p.status]}</span>
              </div>
            </li>
          ))}
        </ul>
        {open && (
          <p class="msg-info">
            Parts still on the truck for this trip:{" "}
            {r.parts.filter((p) => !p.delivered).length}. Return them with{" "}
            <a class="tablet-link" href={`/tablet/return?rego=${encodeURIComponent(r.registration)}`}>
              Return to HQ
            </a>.
          </p>
        )}
        <StopNavIsland userId={data.header.user!.id} csrf={csrf} job={job.name} rego={r.registration} />
        <div class={NEXT_BAR} data-testid="way-on">
          <a href="/tablet" class="btn btn-primary grow">Another job</a>
          <form method="post" action="/tablet/sign-out" class="grow">
            <input type="hidden" name="_csrf" value={csrf} />
            <button type="submit" class="btn btn-secondary w-full">Finish and sign out</button>
          </form>
        </div>
      </main>
    </>
  );
}

export function receiptRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.get("/:id{[1-9][0-9]{0,9}}", async (c) => {
    const receipt = await loadReceipt(deps.db, Number(c.req.param("id")));
    const user = c.var.session!.user;
    const mine = receipt &&
      (user.role === "admin" || receipt.picked_up_by_id === user.id || receipt.dropped_off_by_id === user.id);
    if (!mine) return await refusal(c, 404, "Movement not found.");
    return c.html(
      await renderPage(
        <ReceiptPage
          data={{ header: headerOf(c, deps, "Receipt"), receipt, timeZone: deps.config.depotTimeZone }}
        />,
        {
          title: `Movement #${receipt.id} · Depot tablet`,
          layout: TabletLayout,
        },
      ),
    );
  });
  return app;
}
