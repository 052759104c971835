/**
 * The signed-in tablet pages: `GET /tablet` (the run sheet, and the jobs for work off it) and `GET /tablet/deliver|collect|return`
 * (one movement, run by the TabletFlow island against /tablet/api).
 */
import { type Context, Hono } from "hono";
import { TabletHeader, type TabletHeaderProps } from "@/components/TabletHeader.tsx";
import { TabletLayout } from "@/components/TabletLayout.tsx";
import { JOB_NAMES, type JobName, JOBS } from "@/components/tablet_jobs.ts";
import TabletFlow, { type TabletFlowProps } from "@/islands/TabletFlow.tsx";
import TabletRunSheet from "@/islands/TabletRunSheet.tsx";
import TabletStopNav from "@/islands/TabletStopNav.tsx";
import type { AppDeps } from "@/lib/deps.ts";
import { FLOWS } from "@/lib/flows.ts";
import { island } from "@/render/islands.tsx";
import { renderPage } from "@/render/page.tsx";
import { listActiveRepairers } from "@/lib/tablet_data.ts";
import { idleLeftMs } from "@/routes/tablet/guard.ts";
import type { SessionEnv } from "@/routes/web/session.ts";

const FlowIsland = island("TabletFlow", TabletFlow);
const RunSheetIsland = island("TabletRunSheet", TabletRunSheet);
export const StopNavIsland = island("TabletStopNav", TabletStopNav);

/** The banner props of a signed-in page. */
export function headerOf(c: Context<SessionEnv>, deps: AppDeps, title?: string): TabletHeaderProps {
  const session = c.var.session!;
  return {
    title,
    user: { id: session.user.id, name: session.user.name, role: session.user.role },
    csrf: session.csrfToken,
    expiresInMs: idleLeftMs(c, deps),
  };
}

/**
 * The three jobs, for work off the sheet. Before the run sheet this (under the header) was the whole home:
 * the bench's baseline for the home's bytes on the wire (bench/run_sheet.ts) renders it alone.
 */
export function JobsMenu({ firstName }: { firstName: string }) {
  return (
    <section aria-labelledby="jobs-heading" class="space-y-3">
      <h2 id="jobs-heading" class="text-2xl font-bold">
        Off the sheet: what are you doing, {firstName}?
      </h2>
      <ul class="grid grid-cols-1 gap-4 lg:grid-cols-3" aria-label="Jobs">
        {JOB_NAMES.map((name) => (
          <li key={name}>
            <a
              href={`/tablet/${name}`}
              class="card tablet-link flex h-full min-h-28 flex-col justify-center gap-2 text-slate-950 no-underline hover:border-blue-800 active:bg-blue-50"
            >
              <span class="text-2xl font-bold text-blue-900 underline underline-offset-4">
                {JOBS[name].title}
              </span>
              <span class="text-lg font-normal">{JOBS[name].hint}</span>
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * The tablet's home: the run sheet (today's stops, the TabletRunSheet island, docs/tablet.md "The run
 * sheet"), then the three jobs for work off the sheet (a rego the sheet does not list).
 */
export function HomePage({ data }: { data: { header: TabletHeaderProps; timeZone: string } }) {
  const user = data.header.user!;
  return (
    <>
      <TabletHeader {...data.header} />
      <main id="main" class="mx-auto max-w-5xl space-y-6 p-4">
        <RunSheetIsland userId={user.id} csrf={data.header.csrf!} timeZone={data.timeZone} />
        <JobsMenu firstName={user.name.split(" ")[0]} />
      </main>
    </>
  );
}

export function JobPage({ data }: { data: { header: TabletHeaderProps; flow: TabletFlowProps } }) {
  return (
    <>
      <TabletHeader {...data.header} />
      <main id="main" class="mx-auto max-w-5xl p-4">
        <FlowIsland {...data.flow} />
        <div class="mt-4">
          <StopNavIsland userId={data.flow.userId} csrf={data.flow.csrf} />
        </div>
      </main>
    </>
  );
}

export function jobRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/", async (c) =>
    c.html(
      await renderPage(
        <HomePage data={{ header: headerOf(c, deps), timeZone: deps.config.depotTimeZone }} />,
        {
          title: "Depot tablet",
          layout: TabletLayout,
        },
      ),
    ));

  const jobPage = async (c: Context<SessionEnv>, job: JobName) => {
    const rego = c.req.query("rego")?.slice(0, 64);
    const flow: TabletFlowProps = {
      job,
      userId: c.var.session!.user.id,
      csrf: c.var.session!.csrfToken,
      noneSelected: FLOWS[JOBS[job].flow].noneSelected,
      ...(job === "deliver" ? { repairers: await listActiveRepairers(deps.db) } : {}),
      ...(rego ? { rego } : {}),
    };
    return c.html(
      await renderPage(<JobPage data={{ header: headerOf(c, deps, JOBS[job].title), flow }} />, {
        title: `${JOBS[job].title} · Depot tablet`,
        layout: TabletLayout,
      }),
    );
  };
  // One plain route per job, not one `/:job{deliver|collect|return}`: Hono's RegExpRouter cannot take that
  // pattern beside the app's other routes, so SmartRouter fell back to the trie router for every request
  // of the app, whose lookup was ~3 µs of each search on the handler (tests/router_test.ts).
  for (const job of JOB_NAMES) app.get(`/${job}`, (c) => jobPage(c, job));

  return app;
}
