/**
 * `/`: an enrolled depot tablet goes straight to the tablet; any other browser is offered both doors, the
 * tablet and the dashboard (docs/tablet.md "The front page"). Nothing is enrolled here: on a development
 * demo the tablet's sign-in page enrols the browser (lib/demo_data.ts) once the person chose that door, so
 * a dispatcher who opens the site is not turned into a tablet without asking.
 */
import { Hono } from "hono";
import { TabletLayout } from "@/components/TabletLayout.tsx";
import type { AppDeps } from "@/lib/deps.ts";
import { renderPage } from "@/render/page.tsx";
import { requestDevice } from "@/routes/web/device.ts";

/** Who each door is for, shown under its name. */
const DOORS = [
  {
    href: "/tablet",
    name: "Depot tablet",
    who: "Drivers: find a claim, photograph the parts, record the move.",
    testId: "door-tablet",
    style: "btn-primary",
  },
  {
    href: "/hq",
    name: "HQ dashboard",
    who: "Dispatchers and admins: claims, parts, movements, announcements.",
    testId: "door-hq",
    style: "btn-secondary",
  },
] as const;

function LandingPage({ demo }: { demo: boolean }) {
  return (
    <>
      <header class="border-b-4 border-blue-900 bg-white">
        <div class="mx-auto flex min-h-12 max-w-5xl items-center px-4 py-1 text-xl">Parts Movement</div>
      </header>
      <main id="main" class="mx-auto max-w-3xl space-y-6 p-4">
        <h1 class="text-3xl font-bold">Where do you want to go?</h1>
        <nav aria-label="Doors" class="grid gap-4 sm:grid-cols-2">
          {DOORS.map((d) => (
            <a
              key={d.href}
              href={d.href}
              data-testid={d.testId}
              class={`btn ${d.style} flex-col gap-2 py-6 text-2xl`}
            >
              <span>{d.name}</span>
              <span class="text-base font-normal">{d.who}</span>
            </a>
          ))}
        </nav>
        {demo && (
          <p class="msg-info" data-testid="demo-note">
            Development: with the demo data, choosing Depot tablet enrols this browser as a demo tablet.
          </p>
        )}
      </main>
    </>
  );
}

export function landingRoutes(deps: AppDeps) {
  return new Hono().get("/", async (c) => {
    if (await requestDevice(c, deps)) return c.redirect("/tablet", 302);
    const html = await renderPage(<LandingPage demo={deps.config.appEnv === "development"} />, {
      title: "Parts Movement",
      layout: TabletLayout,
    });
    return c.html(html);
  });
}
