/**
 * `/hq/admin/places` (admins only): repair shops (add, rename, deactivate) and HQ locations (add, rename).
 * A repair shop is never deleted: old claims and movements name it.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  addHqLocation,
  addRepairer,
  renameHqLocation,
  setRepairerActive,
  updateRepairer,
} from "@/lib/admin/places.ts";
import { placesPage, type PlacesPageData } from "@/lib/dashboard/admin.ts";
import { doneQuery, formFlag, formText } from "@/lib/dashboard/forms.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { parseId } from "@/lib/validation.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { type HqContext, hqPage, mustViewer, notFoundPage } from "@/components/hq/page.tsx";
import { answerRefusal, type Refusal } from "@/routes/hq/refusals.ts";
import { ActiveToggle, AddForm, RenameForm } from "@/components/hq/admin_forms.tsx";
import {
  buttonClass,
  Field,
  inputClass,
  type Notice,
  NoticeBox,
  PageTitle,
  Section,
  Table,
  tdClass,
} from "@/components/hq/ui.tsx";

const DONE = {
  repairer: "Repair shop added.",
  saved: "Repair shop saved.",
  deactivated: "Repair shop deactivated: it is no longer offered for new deliveries.",
  activated: "Repair shop reactivated.",
  hq: "HQ location added.",
  "hq-saved": "HQ location renamed.",
} as const;

/** `?done=` after an action: which notice to show. */
const doneNotice = doneQuery(DONE);

const repairerForm = z.object({ name: formText, address: formText });
const activeForm = z.object({ active: formFlag });
const hqForm = z.object({ name: formText });

export function adminPlacesRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const show = async (c: HqContext, notice: Notice | null, status: 200 | Refusal["status"] = 200) => {
    const data = await placesPage(deps.db);
    return hqPage(
      c,
      { title: "Repair shops and HQ", section: "places", status },
      <Page data={{ ...data, csrfToken: mustViewer(c).csrfToken, notice }} />,
    );
  };

  /** Runs an action; a refusal shows the page again with its message. */
  const act = async (c: HqContext, work: () => Promise<keyof typeof DONE>) => {
    try {
      return c.redirect(`/hq/admin/places?done=${await work()}`, 303);
    } catch (error) {
      return answerRefusal(c, error, { show: (r) => show(c, r.notice, r.status) });
    }
  };

  app.get("/", (c) => {
    const done = doneNotice.parse(c.req.query("done"));
    return show(c, done ? { kind: "ok", text: done } : null);
  });

  app.post("/repairers", async (c) => {
    const form = repairerForm.parse(await c.req.parseBody());
    return act(c, async () => {
      await addRepairer(deps.db, { ...form, actorId: mustViewer(c).userId });
      return "repairer";
    });
  });

  app.post("/repairers/:id", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "repair shop");
    const form = repairerForm.parse(await c.req.parseBody());
    return act(c, async () => {
      await updateRepairer(deps.db, { id, ...form, actorId: mustViewer(c).userId });
      return "saved";
    });
  });

  app.post("/repairers/:id/active", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "repair shop");
    const { active } = activeForm.parse(await c.req.parseBody());
    return act(c, async () => {
      await setRepairerActive(deps.db, { id, active, actorId: mustViewer(c).userId });
      return active ? "activated" : "deactivated";
    });
  });

  app.post("/hq", async (c) => {
    const form = hqForm.parse(await c.req.parseBody());
    return act(c, async () => {
      await addHqLocation(deps.db, { ...form, actorId: mustViewer(c).userId });
      return "hq";
    });
  });

  app.post("/hq/:id", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "HQ location");
    const form = hqForm.parse(await c.req.parseBody());
    return act(c, async () => {
      await renameHqLocation(deps.db, { id, ...form, actorId: mustViewer(c).userId });
      return "hq-saved";
    });
  });

  return app;
}

interface Data extends PlacesPageData {
  csrfToken: string;
  notice: Notice | null;
}

function Page({ data }: { data: Data }) {
  return (
    <>
      <PageTitle sub="A repair shop is never deleted (old claims and movements name it); deactivate it instead.">
        Repair shops and HQ locations
      </PageTitle>
      <NoticeBox notice={data.notice} />
      <Section id="repairers" title="Repair shops" class="mb-8">
        <AddForm
          action="/hq/admin/places/repairers"
          label="Add a repair shop"
          csrfToken={data.csrfToken}
          margin="mb-3"
        >
          <Field label="Name">
            <input class={inputClass} name="name" required maxLength={200} />
          </Field>
          <Field label="Address">
            <input class={inputClass} name="address" maxLength={500} size={30} />
          </Field>
          <button type="submit" class={buttonClass}>Add repair shop</button>
        </AddForm>
        <Table label="Repair shops" head={["Name and address", "State", ""]} rows={data.repairers}>
          {(r) => (
            <tr key={r.id} data-repairer={r.name} class={r.active ? "" : "bg-slate-50"}>
              <td class={tdClass}>
                <RenameForm
                  action={`/hq/admin/places/repairers/${r.id}`}
                  name={r.name}
                  csrfToken={data.csrfToken}
                >
                  <input
                    class={inputClass}
                    name="address"
                    value={r.address ?? ""}
                    maxLength={500}
                    size={30}
                    aria-label={`Address of ${r.name}`}
                  />
                </RenameForm>
              </td>
              <td class={tdClass}>{r.active ? "Active" : "Deactivated"}</td>
              <td class={tdClass}>
                <ActiveToggle
                  action={`/hq/admin/places/repairers/${r.id}/active`}
                  active={r.active}
                  csrfToken={data.csrfToken}
                />
              </td>
            </tr>
          )}
        </Table>
      </Section>
      <Section id="hq" title="HQ locations">
        <AddForm
          action="/hq/admin/places/hq"
          label="Add an HQ location"
          csrfToken={data.csrfToken}
          margin="mb-3"
        >
          <Field label="Name">
            <input class={inputClass} name="name" required maxLength={200} size={30} />
          </Field>
          <button type="submit" class={buttonClass}>Add HQ location</button>
        </AddForm>
        <Table
          label="HQ locations"
          head={["HQ location", "Rename"]}
          rows={data.hqLocations}
          empty="No HQ locations yet."
        >
          {(h) => (
            <tr key={h.id} data-hq-location={h.name}>
              <td class={tdClass}>{h.name}</td>
              <td class={tdClass}>
                <RenameForm action={`/hq/admin/places/hq/${h.id}`} name={h.name} csrfToken={data.csrfToken} />
              </td>
            </tr>
          )}
        </Table>
      </Section>
    </>
  );
}
