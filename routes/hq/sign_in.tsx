/** `/hq/sign-in` and `/hq/sign-out`: PIN sign-in with lockout messages (D23), for dispatchers and admins. */
import { Hono } from "hono";
import { getCookie } from "hono/cookie";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import { signIn, signOut } from "@/lib/sessions.ts";
import {
  clearSession,
  safeNext,
  SESSION_COOKIE,
  type SessionEnv,
  setSessionCookie,
} from "@/routes/web/session.ts";
import { field, type HqContext, hqPage } from "@/routes/hq/render.tsx";
import { type SignInData, SignInPage } from "@/routes/hq/sign_in_page.tsx";

const HOME = "/hq/parts";

const page = (c: HqContext, data: SignInData, status: 200 | 401 | 403 = 200) =>
  hqPage(c, { title: "Sign in", section: "none", status }, <SignInPage data={data} />);

export function signInRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/sign-in", (c) => {
    const session = c.var.session;
    const next = safeNext(c.req.query("next"), "/hq", HOME);
    if (session && session.user.role !== "driver") return c.redirect(next, 303);
    const notice = c.req.query("signed_out") ? { kind: "info" as const, text: "You are signed out." } : null;
    return page(c, { email: "", next, notice });
  });

  app.post("/sign-in", async (c) => {
    const form = await c.req.parseBody();
    const email = field(form, "email").trim();
    const next = safeNext(field(form, "next"), "/hq", HOME);
    try {
      const { token, user } = await signIn(deps.db, deps.clock, { email, pin: field(form, "pin") });
      if (user.role === "driver") {
        // The PIN was right, but this face is not for drivers: end the session it just opened.
        await signOut(deps.db, token);
        return page(c, {
          email,
          next,
          notice: {
            kind: "error",
            text: "The HQ dashboard is for dispatchers and admins. Drivers sign in on the depot tablet.",
          },
        }, 403);
      }
      setSessionCookie(c, deps, token);
      return c.redirect(next, 303);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return page(c, { email, next, notice: { kind: "error", text: error.message } }, 401);
    }
  });

  app.post("/sign-out", async (c) => {
    const token = getCookie(c, SESSION_COOKIE);
    if (token) await signOut(deps.db, token);
    clearSession(c);
    return c.redirect("/hq/sign-in?signed_out=1", 303);
  });

  return app;
}
