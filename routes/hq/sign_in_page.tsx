/** The dashboard's sign-in page: e-mail and PIN (D23), for dispatchers and admins (D24). */
import { buttonClass, Field, inputClass, type Notice, NoticeBox } from "@/components/hq/ui.tsx";

export interface SignInData {
  email: string;
  next: string;
  notice: Notice | null;
}

export function SignInPage({ data }: { data: SignInData }) {
  return (
    <div class="mx-auto mt-8 max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <h1 class="mb-1 text-xl font-semibold">Sign in to the HQ dashboard</h1>
      <p class="mb-4 text-sm text-slate-600">For dispatchers and admins. Drivers use the depot tablet.</p>
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
        <Field label="PIN">
          <input
            class={inputClass}
            type="password"
            name="pin"
            inputmode="numeric"
            pattern="[0-9]*"
            autocomplete="current-password"
            required
          />
        </Field>
        <button type="submit" class={buttonClass + " justify-center"}>Sign in</button>
      </form>
    </div>
  );
}
