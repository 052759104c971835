/**
 * The baseline of the tablet home's bytes on the wire (bench/run_sheet.ts `home`): the jobs page the tablet
 * opened on before the run sheet, the banner and the three jobs, rendered now from the service's own
 * components and layout, so the comparison counts exactly what the sheet added.
 */
import { TabletHeader, type TabletHeaderProps } from "@/components/TabletHeader.tsx";
import { TabletLayout } from "@/components/TabletLayout.tsx";
import { renderPage } from "@/render/page.tsx";
import { JobsMenu } from "@/routes/tablet/jobs.tsx";

export async function formerJobsPage(header: TabletHeaderProps): Promise<string> {
  return await renderPage(
    <>
      <TabletHeader {...header} />
      <main id="main" class="mx-auto max-w-5xl space-y-6 p-4">
        <JobsMenu firstName={header.user!.name.split(" ")[0]} />
      </main>
    </>,
    { title: "Depot tablet", layout: TabletLayout },
  );
}
