/**
 * Shared-tablet sign-in and sign-out (D23): `GET /tablet/sign-in` lists the depot's drivers and shows the
 * PIN pad, `POST /tablet/sign-in` checks the PIN (lib/sessions.ts: wrong PIN, tries left, lockout), `POST
 * /tablet/sign-out` ends the session and clears what the site stored on the tablet.
 *
 * Both sign-in routes answer only on an enrolled tablet (docs/tablet.md "Enrolling a tablet",
 * lib/devices.ts): anywhere else they show "not an enrolled depot tablet" (403), with no driver list, and a
 * POST is refused before any PIN check. In development with the demo data loaded, the GET enrols the browser
 * by itself (lib/demo_data.ts).
 */
import { Hono } from "hono";
import type { Device } from "@/db/schema.ts";
import { TabletHeader } from "@/components/TabletHeader.tsx";
import { TabletLayout } from "@/components/TabletLayout.tsx";
import TabletSignIn, { type TabletSignInProps } from "@/islands/TabletSignIn.tsx";
import type { AppDeps } from "@/lib/deps.ts";
import { enrolDemoTablet } from "@/lib/demo_data.ts";
import { DomainError } from "@/lib/errors.ts";
import { signInEmailField } from "@/lib/validation.ts";
import { island } from "@/render/islands.tsx";
import { PIN_PATTERN } from "@/io/pin.ts";
import { renderPage } from "@/render/page.tsx";
import { signIn, type SignInName, signOut } from "@/lib/sessions.ts";
import { listDrivers, TABLET_ROLES } from "@/lib/tablet_data.ts";
import { noteDeviceSignIn, resolveDevice } from "@/lib/devices.ts";
import { deviceCookie, requestDevice, setDeviceCookie } from "@/routes/web/device.ts";
import {
  clearSession,
  safeNext,
  sessionCookie,
  type SessionEnv,
  setSessionCookie,
  TABLET_REMOVED,
} from "@/routes/web/session.ts";

const SignInIsland = island("TabletSignIn", TabletSignIn);

const NOTICES: Record<string, string> = {
  idle: "You were signed out after 10 minutes without activity.",
  ended: "You were signed out. Sign in again to carry on.",
  signed_out: "You are signed out. The next driver can sign in.",
};

export const NOT_ENROLLED = "This browser is not an enrolled depot tablet; ask HQ to enrol it.";

export function SignInPage({ data }: { data: TabletSignInProps }) {
  return (
    <>
      <TabletHeader title="Sign in" />
      <main id="main" class="mx-auto max-w-5xl p-4">
        <SignInIsland {...data} />
      </main>
    </>
  );
}

/**
 * What a browser that is no enrolled tablet sees instead of the driver list (no island, no names).
 * `removed`: it holds a device cookie of no enrolled tablet, most likely one HQ revoked.
 */
function NotEnrolledPage({ removed }: { removed: boolean }) {
  return (
    <>
      <TabletHeader title="Sign in" />
      <main id="main" class="mx-auto max-w-xl space-y-4 p-4">
        <h1 class="text-3xl font-bold">Not a depot tablet</h1>
        {removed && <p class="text-xl font-bold" data-testid="tablet-removed">{TABLET_REMOVED}</p>}
        <p class="msg-error" role="alert" data-testid="not-enrolled">{NOT_ENROLLED}</p>
        <p>
          An admin enrols a tablet on the tablet itself: sign in to the dashboard at <a href="/hq">/hq</a>
          {" "}
          there, open Tablets and choose "Enrol this browser as a depot tablet".
        </p>
      </main>
    </>
  );
}

const page = (data: TabletSignInProps) =>
  renderPage(<SignInPage data={data} />, { title: "Sign in · Depot tablet", layout: TabletLayout });

const notEnrolledPage = (removed = false) =>
  renderPage(<NotEnrolledPage removed={removed} />, {
    title: "Not a depot tablet · Depot tablet",
    layout: TabletLayout,
  });

export function signInRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/sign-in", async (c) => {
    const next = safeNext(c.req.query("next"), "/tablet", "/tablet");
    const session = c.var.session;
    if (session && TABLET_ROLES.includes(session.user.role)) return c.redirect(next, 303);
    let token = deviceCookie(deps.config).get(c);
    let device: Device | null = await resolveDevice(deps.db, deps.clock, token);
    if (!device) {
      const demo = await enrolDemoTablet(deps.db, deps.config, deps.clock);
      if (demo) ({ device, token } = demo);
    }
    if (!device || !token) return c.html(await notEnrolledPage(!!deviceCookie(deps.config).get(c)), 403);
    // Renews the cookie's lifetime on every visit (a new demo tablet gets it here).
    setDeviceCookie(c, deps.config, token);
    const notice = NOTICES[c.req.query("reason") ?? ""];
    return c.html(
      await page({ drivers: await listDrivers(deps.db), next, notice, csrf: session?.csrfToken }),
    );
  });

  app.post("/sign-in", async (c) => {
    // Refused before the form is even read: no PIN is checked or counted for a browser that is no tablet.
    const device = await requestDevice(c, deps);
    if (!device) return c.html(await notEnrolledPage(!!deviceCookie(deps.config).get(c)), 403);
    const form = await c.req.parseBody();
    const next = safeNext(form.next, "/tablet", "/tablet");
    const pin = typeof form.pin === "string" ? form.pin.trim() : "";
    const pickedId = typeof form.user_id === "string" && /^\d{1,9}$/.test(form.user_id)
      ? Number(form.user_id)
      : undefined;
    // An address holding a control character is nobody's (lib/validation.ts signInEmailField).
    const typed = signInEmailField.parse(form.email).slice(0, 254);
    const again = async (error: string, status: 401 | 403 | 400) =>
      c.html(
        await page({
          drivers: await listDrivers(deps.db),
          next,
          error,
          pickedId,
          email: pickedId ? undefined : typed,
          csrf: c.var.session?.csrfToken,
        }),
        status,
      );

    // A picked id goes through the same steps whether it is a listed driver, an admin, a deactivated
    // user or nobody (lib/sessions.ts signIn), so the answer does not tell them apart.
    const name: SignInName | null = pickedId
      ? { pickedId, roles: TABLET_ROLES }
      : typed
      ? { email: typed }
      : null;
    if (!name) return await again("Choose your name or type your e-mail.", 400);
    if (!PIN_PATTERN.test(pin)) return await again("Enter your PIN: 4 to 8 digits.", 400);
    let signedIn;
    try {
      signedIn = await signIn(deps, { name, pin, client: { kind: "tablet", deviceId: device.id } });
    } catch (error) {
      if (error instanceof DomainError) return await again(error.message, 401);
      throw error;
    }
    if (!TABLET_ROLES.includes(signedIn.user.role)) {
      await signOut(deps.db, signedIn.token);
      return await again("The depot tablet is for drivers. Dispatchers use the dashboard at /hq.", 403);
    }
    // A driver taking over the tablet: the previous session (if any) ends here.
    const previous = sessionCookie(deps.config).get(c);
    if (previous) await signOut(deps.db, previous);
    // The tablets page's "last driver" and "browser" (docs/tablet.md "Enrolling a tablet").
    await noteDeviceSignIn(deps.db, deps.clock, {
      deviceId: device.id,
      userId: signedIn.user.id,
      userAgent: c.req.header("user-agent"),
    });
    setSessionCookie(c, deps, signedIn.token);
    return c.redirect(next, 303);
  });

  app.post("/sign-out", async (c) => {
    const token = sessionCookie(deps.config).get(c);
    if (token) await signOut(deps.db, token);
    c.set("session", null);
    clearSession(c, deps);
    return c.redirect("/tablet/sign-in?reason=signed_out", 303);
  });

  return app;
}
