/**
 * `/hq/sign-in` and `/hq/sign-out`: e-mail and password sign-in for dispatchers and admins
 * (lib/staff_sign_in.ts, docs/sign-in.md "Dashboard passwords"). Every failure gets the same answer, 401
 * "Wrong e-mail or password.", whoever the e-mail belongs to.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppDeps } from "@/lib/deps.ts";
import { formText } from "@/lib/dashboard/forms.ts";
import { signOut } from "@/lib/sessions.ts";
import { signInStaff } from "@/lib/staff_sign_in.ts";
import { LOCKOUT_MS, MAX_PIN_CHECKS } from "@/lib/pin_attempts.ts";
import { signInEmailField } from "@/lib/validation.ts";
import {
  clearSession,
  safeNext,
  sessionCookie,
  type SessionEnv,
  setSessionCookie,
} from "@/routes/web/session.ts";
import { rememberedBrowserCookie, setRememberedBrowserCookie } from "@/routes/web/remembered_browser.ts";
import { type HqContext, hqPage } from "@/components/hq/page.tsx";
import { answerRefusal } from "@/routes/hq/refusals.ts";
import {
  buttonClass,
  Field,
  inputClass,
  type Notice,
  NoticeBox,
  TotpCodeInput,
} from "@/components/hq/ui.tsx";

/** Where staff land after signing in without a page asked for: the overview (docs/overview.md). */
const HOME = "/hq";

/** The sign-in form; `next` is where to go afterwards (kept inside /hq by safeNext). */
const signInForm = z.object({
  email: signInEmailField,
  // As typed: a password is never trimmed (lib/passwords/rules.ts normalises it).
  password: formText,
  /** The second factor's code, for admins who set one up (docs/sign-in.md "Two-factor sign-in for admins"). */
  code: formText,
  next: formText.transform((v) => safeNext(v, "/hq", HOME)),
});

/** `?next=` (where to go after signing in) and `?signed_out=1` (after signing out). */
const signInQuery = z.object({
  next: z.string().optional().catch(undefined).transform((v) => safeNext(v, "/hq", HOME)),
  signed_out: z.string().optional().catch(undefined),
});

const page = (c: HqContext, data: Data, status: 200 | 401 | 409 | 422 = 200) =>
  hqPage(c, { title: "Sign in", section: "none", status }, <Page data={data} />);

export function signInRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/sign-in", (c) => {
    const session = c.var.session;
    const { next, signed_out } = signInQuery.parse(c.req.query());
    if (session && session.user.role !== "driver") return c.redirect(next, 303);
    const notice: Notice | null = signed_out ? { kind: "info", text: "You are signed out." } : null;
    return page(c, { email: "", next, notice });
  });

  app.post("/sign-in", async (c) => {
    const { email, password, code, next } = signInForm.parse(await c.req.parseBody());
    try {
      const { token, browserToken } = await signInStaff(deps, {
        email,
        password,
        code,
        browserToken: rememberedBrowserCookie(deps.config).get(c),
      });
      setSessionCookie(c, deps, token);
      setRememberedBrowserCookie(c, deps.config, browserToken);
      return c.redirect(next, 303);
    } catch (error) {
      return answerRefusal(c, error, { show: (r) => page(c, { email, next, notice: r.notice }, r.status) });
    }
  });

  app.post("/sign-out", async (c) => {
    const token = sessionCookie(deps.config).get(c);
    if (token) await signOut(deps.db, token);
    clearSession(c, deps);
    return c.redirect("/hq/sign-in?signed_out=1", 303);
  });

  return app;
}

interface Data {
  email: string;
  next: string;
  notice: Notice | null;
}

const PAUSE = `After ${MAX_PIN_CHECKS} wrong tries, sign-in pauses for ${LOCKOUT_MS / 60_000} minutes.`;

/** E-mail and password, for dispatchers and admins (D24). */
function Page({ data }: { data: Data }) {
  return (
    <div class="mx-auto mt-8 max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <h1 class="mb-1 text-xl font-semibold">Sign in to the HQ dashboard</h1>
      <p class="mb-4 text-base text-slate-600">For dispatchers and admins. Drivers use the depot tablet.</p>
      <NoticeBox notice={data.notice} />
      <form method="post" action="/hq/sign-in" class="flex flex-col gap-4">
        <input type="hidden" name="next" value={data.next} />
        <Field label="E-mail">
          <input
            class={inputClass}
            type="email"
            name="email"
            value={data.email}
            autocomplete="username"
            required
            autofocus
          />
        </Field>
        <Field label="Password">
          <input
            class={inputClass}
            type="password"
            name="password"
            autocomplete="current-password"
            required
          />
        </Field>
        <Field label="Two-factor code" hint="only if you set up two-factor sign-in">
          <TotpCodeInput />
        </Field>
        <button type="submit" class={buttonClass + " justify-center"}>Sign in</button>
      </form>
      {/* The same words for everyone: the answer to a failure never says which rule refused it. */}
      <p class="mt-4 text-base text-slate-600">
        {PAUSE} Forgot your password? Ask an admin to set a new one.
      </p>
    </div>
  );
}
