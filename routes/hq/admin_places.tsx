/**
 * `/hq/admin/places` (admins only): repair shops (add, edit with their phone, e-mails, coordinates and
 * opening hours, deactivate) and HQ locations (add, rename, coordinates). A repair shop is never deleted:
 * old claims and movements name it. A refused form shows the page again with what was typed in that form
 * and the box at fault marked (docs/dashboard.md "Places").
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
import { shopLinksForAdmin, type ShopLinkState } from "@/lib/shops/link.ts";
import { LINK_DONE, ShopLinkCell, shopLinkRoutes } from "@/routes/hq/admin_shop_links.tsx";
import { PlaceFieldError } from "@/lib/places/details.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { type HqContext, hqPage, mustViewer, notFoundPage } from "@/components/hq/page.tsx";
import { answerRefusal, type Refusal } from "@/routes/hq/refusals.ts";
import { ActiveToggle, AddForm, RenameForm } from "@/components/hq/admin_forms.tsx";
import {
  CoordinateFields,
  invalidMark,
  PLACE_ERROR_ID,
  type PlaceValues,
  placeValues,
  type Refused,
  RepairerDetailFields,
} from "@/components/hq/place_fields.tsx";
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
  ...LINK_DONE,
  repairer: "Repair shop added.",
  saved: "Repair shop saved.",
  deactivated: "Repair shop deactivated: it is no longer offered for new deliveries.",
  activated: "Repair shop reactivated.",
  hq: "HQ location added.",
  "hq-saved": "HQ location saved.",
} as const;

/** `?done=` after an action: which notice to show. */
const doneNotice = doneQuery(DONE);

/** A detail box: absent (a form without it) keeps the value on record. */
const detail = z.string().optional().catch(undefined);
const coordinates = { latitude: detail, longitude: detail };
const repairerForm = z.object({
  name: formText,
  address: formText,
  phone: detail,
  emails: detail,
  ...coordinates,
  opening_hours: detail,
});
const activeForm = z.object({ active: formFlag });
const hqForm = z.object({ name: formText, ...coordinates });

/** Which form a refusal is about: "repairer" or "hq" and the row's id, or "new". */
type FormKey = `${"repairer" | "hq"}:${number | "new"}`;

export function adminPlacesRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const show = async (
    c: HqContext,
    notice: Notice | null,
    status: 200 | Refusal["status"] = 200,
    refused: { key: FormKey } & Refused | null = null,
  ) => {
    const data = await placesPage(deps.db);
    const links = await shopLinksForAdmin(deps, data.repairers.filter((r) => r.active).map((r) => r.id));
    return hqPage(
      c,
      { title: "Repair shops and HQ", section: "places", status },
      <Page data={{ ...data, links, csrfToken: mustViewer(c).csrfToken, notice, refused }} />,
    );
  };

  /**
   * Runs an action; a refusal shows the page again with its message, and the refused form (`key`) with
   * what was typed (`typed`) and the box at fault marked.
   */
  const act = async (
    c: HqContext,
    key: FormKey,
    typed: PlaceValues & { name?: string },
    work: () => Promise<keyof typeof DONE>,
  ) => {
    try {
      return c.redirect(`/hq/admin/places?done=${await work()}`, 303);
    } catch (error) {
      const field = error instanceof PlaceFieldError ? error.field : null;
      return answerRefusal(c, error, {
        show: (r) => show(c, r.notice, r.status, r.keepInput ? { key, values: typed, field } : null),
      });
    }
  };

  app.get("/", (c) => {
    const done = doneNotice.parse(c.req.query("done"));
    return show(c, done ? { kind: "ok", text: done } : null);
  });

  app.post("/repairers", async (c) => {
    const form = repairerForm.parse(await c.req.parseBody());
    return act(c, "repairer:new", form, async () => {
      await addRepairer(deps.db, {
        ...form,
        openingHours: form.opening_hours,
        actorId: mustViewer(c).userId,
      });
      return "repairer";
    });
  });

  app.post("/repairers/:id", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "repair shop");
    const form = repairerForm.parse(await c.req.parseBody());
    return act(c, `repairer:${id}`, form, async () => {
      await updateRepairer(deps.db, {
        id,
        ...form,
        openingHours: form.opening_hours,
        actorId: mustViewer(c).userId,
      });
      return "saved";
    });
  });

  app.post("/repairers/:id/active", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "repair shop");
    const { active } = activeForm.parse(await c.req.parseBody());
    return act(c, `repairer:${id}`, {}, async () => {
      await setRepairerActive(deps.db, { id, active, actorId: mustViewer(c).userId });
      return active ? "activated" : "deactivated";
    });
  });

  app.route("/", shopLinkRoutes(deps, (c, r) => show(c, r.notice, r.status)));

  app.post("/hq", async (c) => {
    const form = hqForm.parse(await c.req.parseBody());
    return act(c, "hq:new", form, async () => {
      await addHqLocation(deps.db, { ...form, actorId: mustViewer(c).userId });
      return "hq";
    });
  });

  app.post("/hq/:id", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "HQ location");
    const form = hqForm.parse(await c.req.parseBody());
    return act(c, `hq:${id}`, form, async () => {
      await renameHqLocation(deps.db, { id, ...form, actorId: mustViewer(c).userId });
      return "hq-saved";
    });
  });

  return app;
}

interface Data extends PlacesPageData {
  /** The active shops' private links (docs/shop-page.md). */
  links: Map<number, ShopLinkState>;
  csrfToken: string;
  notice: Notice | null;
  refused: { key: FormKey } & Refused | null;
}

/** The values and the box at fault of the form `key`: what was typed if it was refused, else `onRecord`. */
function formState(data: Data, key: FormKey, onRecord: PlaceValues) {
  const refused = data.refused?.key === key ? data.refused : null;
  return {
    values: refused ? { ...onRecord, ...refused.values } : onRecord,
    invalid: refused?.field ?? null,
    name: refused?.values.name,
  };
}

function Page({ data }: { data: Data }) {
  const newShop = formState(data, "repairer:new", {});
  const newHq = formState(data, "hq:new", {});
  return (
    <>
      <PageTitle sub="A repair shop is never deleted (old claims and movements name it); deactivate it instead.">
        Repair shops and HQ locations
      </PageTitle>
      <div id={PLACE_ERROR_ID}>
        <NoticeBox notice={data.notice} />
      </div>
      <Section id="repairers" title="Repair shops" class="mb-8">
        <AddForm
          action="/hq/admin/places/repairers"
          label="Add a repair shop"
          csrfToken={data.csrfToken}
          margin="mb-3"
        >
          <Field label="Name">
            <input class={inputClass} name="name" required maxLength={200} value={newShop.name} />
          </Field>
          <Field label="Address">
            <input
              class={inputClass}
              name="address"
              maxLength={500}
              size={30}
              value={newShop.values.address}
              {...invalidMark("address", newShop.invalid)}
            />
          </Field>
          <RepairerDetailFields values={newShop.values} invalid={newShop.invalid} hints />
          <button type="submit" class={buttonClass}>Add repair shop</button>
        </AddForm>
        <Table
          label="Repair shops"
          head={["Name, address and details", "Private page", "State", ""]}
          rows={data.repairers}
        >
          {(r) => {
            const row = formState(data, `repairer:${r.id}`, placeValues(r));
            return (
              <tr
                key={r.id}
                id={`repairer-${r.id}`}
                data-repairer={r.name}
                class={r.active ? "" : "bg-slate-50"}
              >
                <td class={tdClass}>
                  <RenameForm
                    action={`/hq/admin/places/repairers/${r.id}`}
                    name={row.name ?? r.name}
                    csrfToken={data.csrfToken}
                  >
                    <input
                      class={inputClass}
                      name="address"
                      value={row.values.address}
                      maxLength={500}
                      size={30}
                      aria-label={`Address of ${r.name}`}
                      {...invalidMark("address", row.invalid)}
                    />
                    <RepairerDetailFields of={r.name} values={row.values} invalid={row.invalid} />
                  </RenameForm>
                </td>
                <td class={tdClass}>
                  {r.active
                    ? (
                      <ShopLinkCell
                        id={r.id}
                        name={r.name}
                        link={data.links.get(r.id)}
                        csrfToken={data.csrfToken}
                      />
                    )
                    : "—"}
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
            );
          }}
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
            <input class={inputClass} name="name" required maxLength={200} size={30} value={newHq.name} />
          </Field>
          <CoordinateFields values={newHq.values} invalid={newHq.invalid} hints />
          <button type="submit" class={buttonClass}>Add HQ location</button>
        </AddForm>
        <Table
          label="HQ locations"
          head={["HQ location", "Rename and place"]}
          rows={data.hqLocations}
          empty="No HQ locations yet."
        >
          {(h) => {
            const row = formState(data, `hq:${h.id}`, placeValues(h));
            return (
              <tr key={h.id} data-hq-location={h.name}>
                <td class={tdClass}>{h.name}</td>
                <td class={tdClass}>
                  <RenameForm
                    action={`/hq/admin/places/hq/${h.id}`}
                    name={row.name ?? h.name}
                    csrfToken={data.csrfToken}
                  >
                    <CoordinateFields of={h.name} values={row.values} invalid={row.invalid} />
                  </RenameForm>
                </td>
              </tr>
            );
          }}
        </Table>
      </Section>
    </>
  );
}
