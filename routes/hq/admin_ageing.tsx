/**
 * `/hq/admin/ageing` (admins only): the thresholds of the overview's ageing (docs/overview.md "Ageing"): the
 * three bands of days a part is held at a shop, the hours on a truck and the days a return may wait. One
 * form for the five; every value is checked before anything is written, each change is audited
 * `ageing.threshold` (lib/dashboard/ageing_thresholds.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AgeingThresholdKey } from "@/db/schema.ts";
import { doneQuery, formText } from "@/lib/dashboard/forms.ts";
import type { AppDeps } from "@/lib/deps.ts";
import {
  type AgeingThresholds,
  ageingThresholds,
  DEFAULT_AGEING_THRESHOLDS,
  setAgeingThresholds,
  THRESHOLD_FIELDS,
  THRESHOLD_MAX,
  THRESHOLD_MIN,
} from "@/lib/dashboard/ageing_thresholds.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { type HqContext, hqPage, mustViewer } from "@/components/hq/page.tsx";
import { answerRefusal, type Refusal } from "@/routes/hq/refusals.ts";
import {
  buttonClass,
  Csrf,
  Field,
  inputClass,
  type Notice,
  NoticeBox,
  PageTitle,
} from "@/components/hq/ui.tsx";

const DONE = { saved: "Ageing thresholds saved." } as const;
const doneNotice = doneQuery(DONE);

const thresholdForm = z.object(
  Object.fromEntries(THRESHOLD_FIELDS.map(({ key }) => [key, formText])) as Record<
    AgeingThresholdKey,
    typeof formText
  >,
);

type Values = Record<AgeingThresholdKey, string>;

const asText = (t: AgeingThresholds): Values =>
  Object.fromEntries(THRESHOLD_FIELDS.map(({ key }) => [key, String(t[key])])) as Values;

export function adminAgeingRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const show = async (
    c: HqContext,
    notice: Notice | null,
    status: 200 | Refusal["status"] = 200,
    typed?: Values,
  ) => {
    const values = typed ?? asText(await ageingThresholds(deps.db));
    return hqPage(
      c,
      { title: "Ageing thresholds", section: "ageing", status },
      <Page data={{ values, csrfToken: mustViewer(c).csrfToken, notice, invalid: typed !== undefined }} />,
    );
  };

  app.get("/", (c) => {
    const done = doneNotice.parse(c.req.query("done"));
    return show(c, done ? { kind: "ok", text: done } : null);
  });

  app.post("/", async (c) => {
    const typed = thresholdForm.parse(await c.req.parseBody());
    try {
      await setAgeingThresholds(deps, { id: mustViewer(c).userId }, typed);
    } catch (error) {
      return answerRefusal(c, error, {
        show: (r) => show(c, r.notice, r.status, r.keepInput ? typed : undefined),
      });
    }
    return c.redirect("/hq/admin/ageing?done=saved", 303);
  });

  return app;
}

interface Data {
  values: Values;
  csrfToken: string;
  notice: Notice | null;
  /** The values shown are what was typed, refused. */
  invalid: boolean;
}

function Page({ data }: { data: Data }) {
  return (
    <>
      <PageTitle sub="When the overview counts a part as late (docs/overview.md): how long it is held at a repair shop, on a truck, or flagged for return and waiting.">
        Ageing thresholds
      </PageTitle>
      <NoticeBox notice={data.notice} />
      <form method="post" action="/hq/admin/ageing" class="flex max-w-xl flex-col gap-4">
        <Csrf token={data.csrfToken} />
        {THRESHOLD_FIELDS.map(({ key, label, unit }) => (
          <Field
            key={key}
            label={`${label} (${unit})`}
            hint={`Default ${
              DEFAULT_AGEING_THRESHOLDS[key]
            } ${unit}; a whole number from ${THRESHOLD_MIN} to ${THRESHOLD_MAX}.`}
          >
            <input
              class={inputClass}
              type="number"
              name={key}
              value={data.values[key]}
              min={THRESHOLD_MIN}
              max={THRESHOLD_MAX}
              step={1}
              required
              aria-invalid={data.invalid ? "true" : undefined}
            />
          </Field>
        ))}
        <p class="text-sm text-slate-600">The three bands must grow: first &lt; second &lt; third.</p>
        <button type="submit" class={`${buttonClass} self-start`}>Save thresholds</button>
      </form>
    </>
  );
}
