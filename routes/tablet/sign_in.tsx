/**
 * Shared-tablet sign-in and sign-out (D23): `GET /tablet/sign-in` lists the depot's drivers and shows the
 * PIN pad, `POST /tablet/sign-in` checks the PIN (lib/sessions.ts: wrong PIN, lockout), `POST
 * /tablet/sign-out` ends the session and clears what the site stored on the tablet.
 */
import { Hono } from "hono";
import { TabletHeader } from "@/components/TabletHeader.tsx";
import { TabletLayout } from "@/components/TabletLayout.tsx";
import TabletSignIn, { type TabletSignInProps } from "@/islands/TabletSignIn.tsx";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import { island } from "@/render/islands.tsx";
import { PIN_PATTERN } from "@/io/pin.ts";
import { renderPage } from "@/render/page.tsx";
import { signIn, signOut } from "@/lib/sessions.ts";
import { listDrivers, TABLET_ROLES, tabletUserEmail } from "@/lib/tablet_data.ts";
import {
  clearSession,
  safeNext,
  sessionCookie,
  type SessionEnv,
  setSessionCookie,
} from "@/routes/web/session.ts";

const SignInIsland = island("TabletSignIn", TabletSignIn);

const NOTICES: Record<string, string> = {
  idle: "You were signed out after 10 minutes without activity.",
  signed_out: "You are signed out. The next driver can sign in.",
};

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

const page = (data: TabletSignInProps) =>
  renderPage(<SignInPage data={data} />, { title: "Sign in · Depot tablet", layout: TabletLayout });

export function signInRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/sign-in", async (c) => {
    const next = safeNext(c.req.query("next"), "/tablet", "/tablet");
    const session = c.var.session;
    if (session && TABLET_ROLES.includes(session.user.role)) return c.redirect(next, 303);
    const notice = NOTICES[c.req.query("reason") ?? ""];
    return c.html(
      await page({ drivers: await listDrivers(deps.db), next, notice, csrf: session?.csrfToken }),
    );
  });

  app.post("/sign-in", async (c) => {
    const form = await c.req.parseBody();
    const next = safeNext(form.next, "/tablet", "/tablet");
    const pin = typeof form.pin === "string" ? form.pin.trim() : "";
    const pickedId = typeof form.user_id === "string" && /^\d{1,9}$/.test(form.user_id)
      ? Number(form.user_id)
      : undefined;
    const typed = typeof form.email === "string" ? form.email.trim().slice(0, 254) : "";
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

    const email = pickedId ? await tabletUserEmail(deps.db, pickedId) : typed;
    if (!email) return await again("Choose your name or type your e-mail.", 400);
    if (!PIN_PATTERN.test(pin)) return await again("Enter your PIN: 4 to 8 digits.", 400);
    let signedIn;
    try {
      signedIn = await signIn(deps.db, deps.clock, { email, pin });
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
