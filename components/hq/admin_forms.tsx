/**
 * The forms the admin pages share: an "add" form, a row's rename form and its deactivate / reactivate
 * button.
 */
import type { ComponentChildren } from "preact";
import { Csrf, dangerButtonClass, inputClass, secondaryButtonClass } from "@/components/hq/ui.tsx";

/** A boxed POST form that adds something (its fields and button are the children). */
export function AddForm(
  { action, label, csrfToken, margin, children }: {
    action: string;
    label: string;
    csrfToken: string;
    /** Space below the box (a Tailwind class), when something follows it. */
    margin?: string;
    children: ComponentChildren;
  },
) {
  const box = "flex flex-wrap items-end gap-3 rounded border border-slate-200 bg-white p-4";
  return (
    <form method="post" action={action} class={margin ? `${margin} ${box}` : box} aria-label={label}>
      <Csrf token={csrfToken} />
      {children}
    </form>
  );
}

/**
 * A row's inline form that renames a record: posts `name` (and any further fields, the children, placed
 * after it) to `action`. The name box is labelled "Name of <current name>".
 */
export function RenameForm(
  { action, name, csrfToken, maxLength = 200, children }: {
    action: string;
    name: string;
    csrfToken: string;
    /** The longest name the record takes (the rule's own limit checks it again). */
    maxLength?: number;
    children?: ComponentChildren;
  },
) {
  return (
    <form method="post" action={action} class="flex flex-wrap items-center gap-2">
      <Csrf token={csrfToken} />
      <input
        class={inputClass}
        name="name"
        value={name}
        required
        maxLength={maxLength}
        aria-label={`Name of ${name}`}
      />
      {children}
      <button type="submit" class={secondaryButtonClass}>Save</button>
    </form>
  );
}

/** Deactivates an active record, or reactivates an inactive one: posts `active` to `action`. */
export function ActiveToggle(
  { action, active, csrfToken }: { action: string; active: boolean; csrfToken: string },
) {
  return (
    <form method="post" action={action}>
      <Csrf token={csrfToken} />
      <input type="hidden" name="active" value={active ? "false" : "true"} />
      <button type="submit" class={active ? dangerButtonClass : secondaryButtonClass}>
        {active ? "Deactivate" : "Reactivate"}
      </button>
    </form>
  );
}
