/**
 * `/hq/admin/tablets` (admins only): enrol the browser in hand as a depot tablet, list the enrolled tablets
 * (name, enrolled by, enrolled at, last used, last driver, browser), rename one and revoke one
 * (docs/tablet.md "Enrolling a tablet", lib/devices.ts). Enrolment happens on the tablet itself: the admin signs in to the dashboard there, names
 * it and presses "Enrol this browser as a depot tablet", which gives that browser the device cookie
 * (routes/web/device.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  enrolDevice,
  type EnrolledDevice,
  enrolledDevices,
  MAX_DEVICE_NAME,
  renameDevice,
  revokeDevice,
} from "@/lib/devices.ts";
import { doneQuery, formText } from "@/lib/dashboard/forms.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { parseId } from "@/lib/validation.ts";
import { deviceCookie, requestDevice, setDeviceCookie } from "@/routes/web/device.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { type HqContext, hqPage, mustViewer, notFoundPage } from "@/components/hq/page.tsx";
import { answerRefusal, type Refusal } from "@/routes/hq/refusals.ts";
import { AddForm, RenameForm } from "@/components/hq/admin_forms.tsx";
import {
  buttonClass,
  Csrf,
  dangerButtonClass,
  Field,
  inputClass,
  type Notice,
  NoticeBox,
  PageTitle,
  Table,
  tdClass,
  TimeCell,
} from "@/components/hq/ui.tsx";

const DONE = {
  enrolled: "This browser is now an enrolled depot tablet: open /tablet to sign drivers in.",
  revoked: "Tablet revoked: it can no longer sign anyone in, and whoever was signed in on it is signed out.",
  renamed: "Tablet renamed.",
} as const;

const doneNotice = doneQuery(DONE);
const nameForm = z.object({ name: formText });

export function adminTabletsRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const show = async (c: HqContext, notice: Notice | null, status: 200 | Refusal["status"] = 200) => {
    const [tablets, here] = await Promise.all([enrolledDevices(deps.db), requestDevice(c, deps)]);
    return hqPage(
      c,
      { title: "Depot tablets", section: "tablets", status },
      <Page data={{ tablets, hereId: here?.id ?? null, csrfToken: mustViewer(c).csrfToken, notice }} />,
    );
  };

  app.get("/", (c) => {
    const done = doneNotice.parse(c.req.query("done"));
    return show(c, done ? { kind: "ok", text: done } : null);
  });

  app.post("/", async (c) => {
    const { name } = nameForm.parse(await c.req.parseBody());
    try {
      const { token } = await enrolDevice(deps.db, deps.clock, {
        name,
        enrolledBy: mustViewer(c).userId,
        userAgent: c.req.header("user-agent"),
      });
      setDeviceCookie(c, deps.config, token);
      return c.redirect("/hq/admin/tablets?done=enrolled", 303);
    } catch (error) {
      return answerRefusal(c, error, { show: (r) => show(c, r.notice, r.status) });
    }
  });

  app.post("/:id/rename", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "tablet");
    const { name } = nameForm.parse(await c.req.parseBody());
    try {
      await renameDevice(deps.db, deps.clock, { id, name, actorId: mustViewer(c).userId });
    } catch (error) {
      return answerRefusal(c, error, { subject: "tablet", show: (r) => show(c, r.notice, r.status) });
    }
    return c.redirect("/hq/admin/tablets?done=renamed", 303);
  });

  app.post("/:id/revoke", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "tablet");
    const here = await requestDevice(c, deps);
    try {
      await revokeDevice(deps.db, id, mustViewer(c).userId);
    } catch (error) {
      return answerRefusal(c, error, { subject: "tablet", show: (r) => show(c, r.notice, r.status) });
    }
    if (here?.id === id) deviceCookie(deps.config).clear(c);
    return c.redirect("/hq/admin/tablets?done=revoked", 303);
  });

  return app;
}

interface Data {
  tablets: EnrolledDevice[];
  /** The enrolled device this browser is, if any. */
  hereId: number | null;
  csrfToken: string;
  notice: Notice | null;
}

function Page({ data }: { data: Data }) {
  const here = data.tablets.find((t) => t.id === data.hereId);
  return (
    <>
      <PageTitle sub="Drivers sign in only on an enrolled tablet. Enrol a tablet on the tablet itself: sign in to the dashboard there and press the button below.">
        Depot tablets
      </PageTitle>
      <NoticeBox notice={data.notice} />
      <p class="mb-3 text-base" data-testid="this-browser">
        {here
          ? `This browser is enrolled as “${here.name}”.`
          : "This browser is not an enrolled depot tablet."}
      </p>
      <AddForm action="/hq/admin/tablets" label="Enrol this browser" csrfToken={data.csrfToken} margin="mb-6">
        <Field label="Tablet name" hint="e.g. Main depot, bay 2">
          <input class={inputClass} name="name" required maxLength={MAX_DEVICE_NAME} />
        </Field>
        <button type="submit" class={buttonClass}>Enrol this browser as a depot tablet</button>
      </AddForm>
      <Table
        label="Enrolled tablets"
        head={["Name", "Enrolled by", "Enrolled at", "Last used", "Last driver", "Browser", ""]}
        rows={data.tablets}
        empty="No tablet is enrolled yet."
      >
        {(t) => (
          <tr key={t.id} data-tablet={t.name}>
            <td class={tdClass}>{t.name}{t.id === data.hereId ? " (this browser)" : ""}</td>
            <td class={tdClass}>{t.enrolled_by_name ?? "—"}</td>
            <TimeCell at={t.enrolled_at} />
            <TimeCell at={t.last_used_at} />
            <td class={tdClass} data-testid="last-driver">{t.last_driver_name ?? "—"}</td>
            <td class={tdClass} data-testid="browser">{t.browser ?? "—"}</td>
            <td class={`${tdClass} space-y-2`}>
              <RenameForm
                action={`/hq/admin/tablets/${t.id}/rename`}
                name={t.name}
                csrfToken={data.csrfToken}
                maxLength={MAX_DEVICE_NAME}
              />
              <form method="post" action={`/hq/admin/tablets/${t.id}/revoke`}>
                <Csrf token={data.csrfToken} />
                <button type="submit" class={dangerButtonClass} aria-label={`Revoke ${t.name}`}>
                  Revoke
                </button>
              </form>
            </td>
          </tr>
        )}
      </Table>
    </>
  );
}
