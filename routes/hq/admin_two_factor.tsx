/**
 * `/hq/admin/two-factor` (admins only): an admin sets up or removes their own second factor, and removes
 * another admin's (a lost phone) (lib/admin/two_factor.ts, docs/sign-in.md "Two-factor sign-in for admins").
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  confirmTwoFactor,
  pendingTwoFactor,
  removeTwoFactor,
  startTwoFactor,
} from "@/lib/admin/two_factor.ts";
import { doneQuery, formText } from "@/lib/dashboard/forms.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { parseId } from "@/lib/validation.ts";
import { otpauthUri } from "@/io/totp.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { type HqContext, hqPage, mustViewer, notFoundPage } from "@/components/hq/page.tsx";
import { answerRefusal } from "@/routes/hq/refusals.ts";
import {
  buttonClass,
  Csrf,
  Field,
  type Notice,
  NoticeBox,
  PageTitle,
  secondaryButtonClass,
  TotpCodeInput,
} from "@/components/hq/ui.tsx";

const DONE = {
  on: "Two-factor sign-in is on: sign in with your password and the code your app shows.",
  off: "Two-factor sign-in is off.",
  removed:
    "Two-factor sign-in removed; that admin signs in with the password alone until they set it up again.",
} as const;
const doneNotice = doneQuery(DONE);
const codeForm = z.object({ code: formText });

export function adminTwoFactorRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const show = async (c: HqContext, notice: Notice | null, status: 200 | 409 | 422 = 200) => {
    const viewer = mustViewer(c);
    const user = c.var.session!.user;
    const pending = await pendingTwoFactor(deps.db, viewer.userId);
    const setup = pending
      ? { secret: pending, uri: otpauthUri(pending, user.email, "Parts Movement") }
      : null;
    return hqPage(
      c,
      { title: "Two-factor sign-in", section: "users", status },
      <Page data={{ on: !!user.totp_secret, setup, csrfToken: viewer.csrfToken, notice }} />,
    );
  };

  app.get("/", (c) => {
    const done = doneNotice.parse(c.req.query("done"));
    return show(c, done ? { kind: "ok", text: done } : null);
  });

  app.post("/start", async (c) => {
    try {
      await startTwoFactor(deps.db, mustViewer(c).userId);
      return show(c, null);
    } catch (error) {
      return answerRefusal(c, error, { show: (r) => show(c, r.notice, r.status === 401 ? 422 : r.status) });
    }
  });

  app.post("/confirm", async (c) => {
    const { code } = codeForm.parse(await c.req.parseBody());
    try {
      await confirmTwoFactor(deps.db, deps.clock, { userId: mustViewer(c).userId, code });
      return c.redirect("/hq/admin/two-factor?done=on", 303);
    } catch (error) {
      return answerRefusal(c, error, { show: (r) => show(c, r.notice, r.status === 401 ? 422 : r.status) });
    }
  });

  app.post("/remove", async (c) => {
    const viewer = mustViewer(c);
    await removeTwoFactor(deps.db, { userId: viewer.userId, actorId: viewer.userId });
    return c.redirect("/hq/admin/two-factor?done=off", 303);
  });

  app.post("/users/:id/remove", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "user");
    try {
      await removeTwoFactor(deps.db, { userId: id, actorId: mustViewer(c).userId });
      return c.redirect("/hq/admin/users?done=two_factor_removed", 303);
    } catch (error) {
      return answerRefusal(c, error, { subject: "user", show: (r) => show(c, r.notice, 422) });
    }
  });

  return app;
}

export const TWO_FACTOR_REMOVED = DONE.removed;

interface Data {
  on: boolean;
  setup: { secret: string; uri: string } | null;
  csrfToken: string;
  notice: Notice | null;
}

function Page({ data }: { data: Data }) {
  return (
    <>
      <PageTitle sub="A code from an authenticator app on your phone, asked at every sign-in after your password.">
        Two-factor sign-in
      </PageTitle>
      <NoticeBox notice={data.notice} />
      {data.setup
        ? (
          <div class="flex max-w-2xl flex-col gap-4 rounded border border-slate-200 bg-white p-4">
            <p>
              Add an account in your authenticator app with this key (time-based, 6 digits, every 30 seconds),
              or open the link on the phone. It is shown only now.
            </p>
            <p class="font-mono text-lg tracking-wider" data-testid="totp-secret">{data.setup.secret}</p>
            <p class="break-all font-mono text-sm">
              <a href={data.setup.uri} class="text-sky-800 underline">{data.setup.uri}</a>
            </p>
            <form method="post" action="/hq/admin/two-factor/confirm" class="flex items-end gap-3">
              <Csrf token={data.csrfToken} />
              <Field label="Code from the app">
                <TotpCodeInput required />
              </Field>
              <button type="submit" class={buttonClass}>Turn on</button>
            </form>
          </div>
        )
        : (
          <div class="flex max-w-2xl flex-col gap-4 rounded border border-slate-200 bg-white p-4">
            <p>{data.on ? "Two-factor sign-in is on for you." : "Two-factor sign-in is off for you."}</p>
            <form method="post" action="/hq/admin/two-factor/start">
              <Csrf token={data.csrfToken} />
              <button type="submit" class={buttonClass}>{data.on ? "Set up a new phone" : "Set up"}</button>
            </form>
            {data.on && (
              <form method="post" action="/hq/admin/two-factor/remove">
                <Csrf token={data.csrfToken} />
                <button type="submit" class={secondaryButtonClass}>Turn off</button>
              </form>
            )}
          </div>
        )}
    </>
  );
}
