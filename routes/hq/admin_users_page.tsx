/** Admin: the users (add, deactivate or reactivate, reset PIN). */
import { ROLES } from "@/db/schema.ts";
import type { listUsers } from "@/db/queries/users.ts";
import { ActiveToggle, AddForm } from "@/components/hq/admin_forms.tsx";
import {
  buttonClass,
  Csrf,
  Field,
  inputClass,
  type Notice,
  NoticeBox,
  PageTitle,
  secondaryButtonClass,
  Table,
  tdClass,
} from "@/components/hq/ui.tsx";

export interface UsersPageData {
  users: Awaited<ReturnType<typeof listUsers>>;
  now: string;
  selfId: number;
  csrfToken: string;
  notice: Notice | null;
  /** The add form's values, kept when it was refused. */
  draft: { email: string; name: string; role: string };
}

const COLUMNS = ["Name", "E-mail", "Role", "State", "Reset PIN", ""];

/** A new PIN (4 to 8 digits), typed hidden and never filled in by the browser. */
function PinInput({ label }: { label?: string }) {
  return (
    <input
      class={inputClass}
      type="password"
      name="pin"
      inputmode="numeric"
      pattern="[0-9]{4,8}"
      autocomplete="new-password"
      required
      size={8}
      aria-label={label}
    />
  );
}

export function UsersPage({ data }: { data: UsersPageData }) {
  const now = new Date(data.now);
  return (
    <>
      <PageTitle sub="Drivers use the tablet and the app; dispatchers the dashboard; admins also these pages.">
        Users
      </PageTitle>
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
        <Field label="PIN" hint="4 to 8 digits">
          <PinInput />
        </Field>
        <button type="submit" class={buttonClass}>Add user</button>
      </AddForm>
      <Table label="Users" head={COLUMNS} rows={data.users}>
        {(u) => {
          const locked = u.locked_until && new Date(u.locked_until) > now;
          return (
            <tr key={u.id} data-user={u.email} class={u.active ? "" : "bg-slate-50 text-slate-500"}>
              <td class={tdClass}>{u.name}</td>
              <td class={tdClass}>{u.email}</td>
              <td class={tdClass}>{u.role}</td>
              <td class={tdClass}>
                {u.active ? (locked ? "Locked (wrong PINs)" : "Active") : "Deactivated"}
              </td>
              <td class={tdClass}>
                <form method="post" action={`/hq/admin/users/${u.id}/pin`} class="flex items-center gap-2">
                  <Csrf token={data.csrfToken} />
                  <PinInput label={`New PIN for ${u.email}`} />
                  <button type="submit" class={secondaryButtonClass}>Set PIN</button>
                </form>
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
