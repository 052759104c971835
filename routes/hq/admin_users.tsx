/**
 * `/hq/admin/users` (admins only): the users: add, change a role, deactivate or reactivate, set a driver's
 * PIN or a dispatcher's or admin's dashboard password (docs/sign-in.md "Dashboard passwords").
 */
import { Hono } from "hono";
import { z } from "zod";
import { ROLES } from "@/db/schema.ts";
import { addUser, resetPin, setPassword, setUserActive, setUserRole } from "@/lib/admin/users.ts";
import { type UserRow, usersPage } from "@/lib/dashboard/admin.ts";
import { doneQuery, formFlag, formText } from "@/lib/dashboard/forms.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { parseId } from "@/lib/validation.ts";
import { hashToken } from "@/io/tokens.ts";
import { PASSWORD_MIN_LENGTH } from "@/lib/passwords/rules.ts";
import { STAFF_ROLES } from "@/lib/staff_sign_in.ts";
import { TWO_FACTOR_REMOVED } from "@/routes/hq/admin_two_factor.tsx";
import { sessionCookie, type SessionEnv } from "@/routes/web/session.ts";
import { type HqContext, hqPage, mustViewer, notFoundPage } from "@/components/hq/page.tsx";
import { answerRefusal, type Refusal } from "@/routes/hq/refusals.ts";
import { ActiveToggle, AddForm } from "@/components/hq/admin_forms.tsx";
import {
  buttonClass,
  Csrf,
  Field,
  inputClass,
  linkClass,
  type Notice,
  NoticeBox,
  PageTitle,
  secondaryButtonClass,
  Table,
  tdClass,
} from "@/components/hq/ui.tsx";

const DONE = {
  added: "User added.",
  deactivated: "User deactivated; their sessions ended.",
  activated: "User reactivated.",
  pin: "PIN set; any lockout lifted.",
  password: "Password set; their other sessions ended and any lockout lifted.",
  two_factor_removed: TWO_FACTOR_REMOVED,
  role: "Role changed.",
} as const;

/** `?done=` after an action: which notice to show. */
const doneNotice = doneQuery(DONE);

const addForm = z.object({
  email: formText,
  name: formText,
  role: formText,
  pin: formText,
  password: formText,
});
const activeForm = z.object({ active: formFlag });
const pinForm = z.object({ pin: formText });
const passwordForm = z.object({ password: formText });
const roleForm = z.object({ role: formText });

type Draft = Data["draft"];
const EMPTY_DRAFT: Draft = { email: "", name: "", role: "driver" };

export function adminUsersRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const show = async (
    c: HqContext,
    notice: Notice | null,
    draft = EMPTY_DRAFT,
    status: 200 | Refusal["status"] = 200,
  ) => {
    const viewer = mustViewer(c);
    const users = await usersPage(deps.db);
    const now = deps.clock.now().toISOString();
    return hqPage(
      c,
      { title: "Users", section: "users", status },
      <Page data={{ users, now, selfId: viewer.userId, csrfToken: viewer.csrfToken, notice, draft }} />,
    );
  };

  /** Runs an action; a refusal shows the page again with its message (and the add form's values). */
  const act = async (c: HqContext, work: () => Promise<keyof typeof DONE>, draft?: Draft) => {
    try {
      return c.redirect(`/hq/admin/users?done=${await work()}`, 303);
    } catch (error) {
      return answerRefusal(c, error, {
        show: (r) => show(c, r.notice, r.keepInput ? draft : undefined, r.status),
      });
    }
  };

  app.get("/", (c) => {
    const done = doneNotice.parse(c.req.query("done"));
    return show(c, done ? { kind: "ok", text: done } : null);
  });

  app.post("/", async (c) => {
    const { pin, password, ...draft } = addForm.parse(await c.req.parseBody());
    return act(c, async () => {
      await addUser(deps.db, { ...draft, pin, password, actorId: mustViewer(c).userId });
      return "added";
    }, draft);
  });

  app.post("/:id/active", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "user");
    const { active } = activeForm.parse(await c.req.parseBody());
    return act(c, async () => {
      await setUserActive(deps.db, { userId: id, active, actorId: mustViewer(c).userId });
      return active ? "activated" : "deactivated";
    });
  });

  app.post("/:id/role", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "user");
    const { role } = roleForm.parse(await c.req.parseBody());
    return act(c, async () => {
      await setUserRole(deps.db, { userId: id, role, actorId: mustViewer(c).userId });
      return "role";
    });
  });

  app.post("/:id/pin", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "user");
    const { pin } = pinForm.parse(await c.req.parseBody());
    return act(c, async () => {
      await resetPin(deps.db, { userId: id, pin, actorId: mustViewer(c).userId });
      return "pin";
    });
  });

  app.post("/:id/password", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "user");
    const { password } = passwordForm.parse(await c.req.parseBody());
    const current = sessionCookie(deps.config).get(c);
    return act(c, async () => {
      await setPassword(deps.db, {
        userId: id,
        password,
        actorId: mustViewer(c).userId,
        keepSession: current ? hashToken(current) : null,
      });
      return "password";
    });
  });

  return app;
}

interface Data {
  users: UserRow[];
  now: string;
  selfId: number;
  csrfToken: string;
  notice: Notice | null;
  /** The add form's values, kept when it was refused. */
  draft: { email: string; name: string; role: string };
}

const COLUMNS = ["Name", "E-mail", "Role", "State", "PIN (drivers) or password (staff)", ""];
/** A new PIN (4 to 8 digits), typed hidden and never filled in by the browser. */
function PinInput({ label, optional }: { label?: string; optional?: boolean }) {
  return (
    <input
      class={inputClass}
      type="password"
      name="pin"
      inputmode="numeric"
      pattern="[0-9]{4,8}"
      autocomplete="new-password"
      required={!optional}
      size={8}
      aria-label={label}
    />
  );
}

/** A new dashboard password, typed hidden and never filled in by the browser. */
function PasswordInput({ label }: { label?: string }) {
  return (
    <input
      class={inputClass}
      type="password"
      name="password"
      minLength={PASSWORD_MIN_LENGTH}
      autocomplete="new-password"
      required={!!label}
      size={16}
      aria-label={label}
    />
  );
}

function Page({ data }: { data: Data }) {
  const now = new Date(data.now);
  return (
    <>
      <PageTitle sub="Drivers use the tablet and the app; dispatchers the dashboard; admins also these pages.">
        Users
      </PageTitle>
      <p class="mb-4">
        <a class={linkClass} href="/hq/admin/two-factor">Your two-factor sign-in</a>
      </p>
      <NoticeBox notice={data.notice} />
      <AddForm action="/hq/admin/users" label="Add a user" csrfToken={data.csrfToken} margin="mb-6">
        <Field label="E-mail">
          <input class={inputClass} type="email" name="email" value={data.draft.email} required />
        </Field>
        <Field label="Name">
          <input class={inputClass} name="name" value={data.draft.name} required maxLength={200} />
        </Field>
        <Field label="Role">
          <select class={inputClass} name="role">
            {ROLES.map((r) => <option key={r} value={r} selected={data.draft.role === r}>{r}</option>)}
          </select>
        </Field>
        <Field label="PIN" hint="drivers: 4 to 8 digits">
          <PinInput optional />
        </Field>
        <Field label="Password" hint={`dispatchers and admins: at least ${PASSWORD_MIN_LENGTH} characters`}>
          <PasswordInput />
        </Field>
        <button type="submit" class={buttonClass}>Add user</button>
      </AddForm>
      <Table label="Users" head={COLUMNS} rows={data.users}>
        {(u) => {
          const locked = u.locked_until && new Date(u.locked_until) > now;
          const staff = STAFF_ROLES.includes(u.role);
          return (
            <tr key={u.id} data-user={u.email} class={u.active ? "" : "bg-slate-50 text-slate-500"}>
              <td class={tdClass}>{u.name}</td>
              <td class={tdClass}>{u.email}</td>
              <td class={tdClass}>
                <form method="post" action={`/hq/admin/users/${u.id}/role`} class="flex items-center gap-2">
                  <Csrf token={data.csrfToken} />
                  <select class={inputClass} name="role" aria-label={`Role of ${u.email}`}>
                    {ROLES.map((r) => <option key={r} value={r} selected={u.role === r}>{r}</option>)}
                  </select>
                  <button type="submit" class={secondaryButtonClass}>Set role</button>
                </form>
              </td>
              <td class={tdClass}>
                {!u.active
                  ? "Deactivated"
                  : locked
                  ? "Locked (wrong tries)"
                  : staff && !u.has_password
                  ? "No password yet"
                  : u.has_totp
                  ? "Active, two-factor"
                  : "Active"}
                {u.has_totp && u.id !== data.selfId && (
                  <form method="post" action={`/hq/admin/two-factor/users/${u.id}/remove`} class="mt-1">
                    <Csrf token={data.csrfToken} />
                    <button type="submit" class={secondaryButtonClass}>Remove two-factor</button>
                  </form>
                )}
              </td>
              <td class={tdClass}>
                {staff
                  ? (
                    <form
                      method="post"
                      action={`/hq/admin/users/${u.id}/password`}
                      class="flex items-center gap-2"
                    >
                      <Csrf token={data.csrfToken} />
                      <PasswordInput label={`New password for ${u.email}`} />
                      <button type="submit" class={secondaryButtonClass}>Set password</button>
                    </form>
                  )
                  : (
                    <form
                      method="post"
                      action={`/hq/admin/users/${u.id}/pin`}
                      class="flex items-center gap-2"
                    >
                      <Csrf token={data.csrfToken} />
                      <PinInput label={`New PIN for ${u.email}`} />
                      <button type="submit" class={secondaryButtonClass}>Set PIN</button>
                    </form>
                  )}
              </td>
              <td class={tdClass}>
                {u.id === data.selfId ? <span class="text-xs text-slate-500">you</span> : (
                  <ActiveToggle
                    action={`/hq/admin/users/${u.id}/active`}
                    active={u.active}
                    csrfToken={data.csrfToken}
                  />
                )}
              </td>
            </tr>
          );
        }}
      </Table>
    </>
  );
}
