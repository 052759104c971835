/**
 * `/hq/admin/handover` (admins only): the handover policy of each tablet job (docs/handover.md "Policy"):
 * required, optional or off. One form for the three; each change is audited `handover.policy`
 * (lib/handover/policy.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import type { HandoverPolicy, MovementStage } from "@/db/schema.ts";
import { JOBS } from "@/components/tablet_jobs.ts";
import { doneQuery, formText } from "@/lib/dashboard/forms.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { FLOWS } from "@/lib/flows.ts";
import { DEFAULT_POLICY, handoverPolicies, setHandoverPolicies } from "@/lib/handover/policy.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { type HqContext, hqPage, mustViewer } from "@/components/hq/page.tsx";
import { answerRefusal, type Refusal } from "@/routes/hq/refusals.ts";
import { buttonClass, Csrf, type Notice, NoticeBox, PageTitle } from "@/components/hq/ui.tsx";

const DONE = { saved: "Handover policy saved." } as const;
const doneNotice = doneQuery(DONE);

/** The tablet's jobs in its own order, each with the leg whose policy it follows. */
const JOB_LEGS = Object.values(JOBS).map((job) => ({ job, leg: FLOWS[job.flow].stage }));

const policyForm = z.object(
  Object.fromEntries(JOB_LEGS.map(({ leg }) => [leg, formText])) as Record<MovementStage, typeof formText>,
);

const POLICY_WORDS: Record<HandoverPolicy, { label: string; hint: string }> = {
  required: { label: "Required", hint: "The receiver's name and signature, nothing else." },
  optional: {
    label: "Optional",
    hint:
      'The receiver\'s name and signature, or "Nobody to sign" with a reason and a photo of where the parts were left.',
  },
  off: { label: "Off", hint: "No handover step." },
};

export function adminHandoverRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const show = async (c: HqContext, notice: Notice | null, status: 200 | Refusal["status"] = 200) => {
    const policies = await handoverPolicies(deps.db);
    return hqPage(
      c,
      { title: "Handover policy", section: "handover", status },
      <Page data={{ policies, csrfToken: mustViewer(c).csrfToken, notice }} />,
    );
  };

  app.get("/", (c) => {
    const done = doneNotice.parse(c.req.query("done"));
    return show(c, done ? { kind: "ok", text: done } : null);
  });

  app.post("/", async (c) => {
    const policies = policyForm.parse(await c.req.parseBody());
    try {
      await setHandoverPolicies(deps, { id: mustViewer(c).userId }, policies);
    } catch (error) {
      return answerRefusal(c, error, { show: (r) => show(c, r.notice, r.status) });
    }
    return c.redirect("/hq/admin/handover?done=saved", 303);
  });

  return app;
}

interface Data {
  policies: Record<MovementStage, HandoverPolicy>;
  csrfToken: string;
  notice: Notice | null;
}

function Page({ data }: { data: Data }) {
  return (
    <>
      <PageTitle sub="What the driver records when handing parts over: the receiver's name and signature, bound to the parts' photos (docs/handover.md).">
        Handover policy
      </PageTitle>
      <NoticeBox notice={data.notice} />
      <form method="post" action="/hq/admin/handover" class="flex max-w-3xl flex-col gap-6">
        <Csrf token={data.csrfToken} />
        {JOB_LEGS.map(({ job, leg }) => (
          <fieldset key={leg} class="rounded border border-slate-200 bg-white p-4" data-leg={leg}>
            <legend class="px-1 text-lg font-semibold">{job.title}</legend>
            <p class="mb-2 text-sm text-slate-600">Default: {POLICY_WORDS[DEFAULT_POLICY[leg]].label}</p>
            {(Object.keys(POLICY_WORDS) as HandoverPolicy[]).map((policy) => (
              <label key={policy} class="flex min-h-10 items-start gap-2 py-1">
                <input
                  type="radio"
                  name={leg}
                  value={policy}
                  checked={data.policies[leg] === policy}
                  class="mt-1 h-5 w-5"
                />
                <span>
                  <strong>{POLICY_WORDS[policy].label}</strong>
                  <span class="block text-sm text-slate-600">{POLICY_WORDS[policy].hint}</span>
                </span>
              </label>
            ))}
          </fieldset>
        ))}
        <button type="submit" class={`${buttonClass} self-start`}>Save handover policy</button>
      </form>
    </>
  );
}
