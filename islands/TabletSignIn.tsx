/**
 * Shared-tablet sign-in (D23): pick your name from the depot's drivers (or type an e-mail), then enter
 * the PIN on a large keypad. The keypad fills a real PIN field (numeric on-screen keyboard too), and the
 * form posts to /tablet/sign-in as an ordinary form, so the session cookie arrives with a redirect.
 */
import { useEffect, useRef, useState } from "preact/hooks";

export interface TabletSignInProps {
  drivers: { id: number; name: string }[];
  /** Where to go after signing in (a /tablet path). */
  next: string;
  /** The message of a failed attempt (wrong PIN, lockout …). */
  error?: string;
  /** A note above the list, e.g. after an idle sign-out. */
  notice?: string;
  /** Re-rendered after a failed attempt: who was trying, so they need not pick again. */
  pickedId?: number;
  email?: string;
  /** Only when another session (e.g. a dispatcher's) is open in this browser: the form must carry it. */
  csrf?: string;
}

const KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];

export default function TabletSignIn(props: TabletSignInProps) {
  const { drivers, next } = props;
  const initialName = props.pickedId ? drivers.find((d) => d.id === props.pickedId)?.name : props.email;
  const [who, setWho] = useState<{ id?: number; email?: string; name: string } | null>(
    initialName
      ? { id: props.pickedId, email: props.pickedId ? undefined : props.email, name: initialName }
      : null,
  );
  const [typing, setTyping] = useState(false);
  const [email, setEmail] = useState(props.email ?? "");
  const [pin, setPin] = useState("");
  const [error, setError] = useState(props.error);
  const [ready, setReady] = useState(false);
  const pinField = useRef<HTMLInputElement>(null);
  const emailField = useRef<HTMLInputElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => setReady(true), []);
  useEffect(() => {
    if (who) pinField.current?.focus();
    else if (typing) emailField.current?.focus();
    else if (ready) heading.current?.focus();
  }, [who, typing]);

  const press = (digit: string) => {
    setError(undefined);
    setPin((p) => (p.length < 8 ? p + digit : p));
  };

  if (!who) {
    return (
      <div class="space-y-6" data-testid="sign-in" data-ready={ready ? "" : undefined}>
        <h1 ref={heading} tabIndex={-1} class="text-3xl font-bold">Who is signing in?</h1>
        {props.notice && <p class="msg-info" role="status">{props.notice}</p>}
        {drivers.length > 0
          ? (
            <ul class="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3" aria-label="Drivers">
              {drivers.map((d) => (
                <li key={d.id}>
                  <button
                    type="button"
                    class="btn btn-secondary min-h-20 w-full text-xl"
                    onClick={() => setWho({ id: d.id, name: d.name })}
                  >
                    {d.name}
                  </button>
                </li>
              ))}
            </ul>
          )
          : <p class="msg-info">No drivers are set up yet. Sign in with your e-mail.</p>}
        <form
          class="card space-y-3"
          onSubmit={(e) => {
            e.preventDefault();
            const value = email.trim();
            if (value) setWho({ email: value, name: value });
          }}
        >
          <label for="sign-in-email" class="field-label">Not in the list? Your e-mail</label>
          <div class="flex flex-wrap gap-3">
            <input
              ref={emailField}
              id="sign-in-email"
              class="field grow basis-64"
              type="email"
              inputMode="email"
              autoComplete="off"
              autoCapitalize="none"
              spellcheck={false}
              enterKeyHint="next"
              value={email}
              onFocus={() => setTyping(true)}
              onInput={(e) => setEmail(e.currentTarget.value)}
              required
            />
            <button type="submit" class="btn btn-primary">Next</button>
          </div>
        </form>
      </div>
    );
  }

  return (
    <form
      method="post"
      action="/tablet/sign-in"
      class="mx-auto max-w-md space-y-4"
      data-testid="pin-pad"
      data-ready={ready ? "" : undefined}
    >
      <input type="hidden" name="next" value={next} />
      {props.csrf && <input type="hidden" name="_csrf" value={props.csrf} />}
      {who.id
        ? <input type="hidden" name="user_id" value={String(who.id)} />
        : <input type="hidden" name="email" value={who.email} />}
      <h1 class="text-3xl font-bold">Hello, {who.name}</h1>
      {error && <p class="msg-error" role="alert" data-testid="sign-in-error">{error}</p>}
      <div>
        <label for="pin" class="field-label">Your PIN</label>
        <input
          ref={pinField}
          id="pin"
          name="pin"
          class="field text-center text-3xl tracking-[0.5em]"
          type="password"
          inputMode="numeric"
          pattern="[0-9]{4,8}"
          minLength={4}
          maxLength={8}
          autoComplete="off"
          enterKeyHint="go"
          required
          value={pin}
          onInput={(e) => {
            setError(undefined);
            setPin(e.currentTarget.value.replace(/\D/g, "").slice(0, 8));
          }}
        />
      </div>
      <div class="grid grid-cols-3 gap-3" role="group" aria-label="PIN keypad">
        {KEYS.map((k) => (
          <button
            key={k}
            type="button"
            class="btn btn-secondary min-h-20 text-3xl"
            onClick={() => press(k)}
          >
            {k}
          </button>
        ))}
        <button type="button" class="btn btn-secondary min-h-20" onClick={() => setPin("")}>Clear</button>
        <button type="button" class="btn btn-secondary min-h-20 text-3xl" onClick={() => press("0")}>
          0
        </button>
        <button
          type="button"
          class="btn btn-secondary min-h-20 text-3xl"
          aria-label="Delete last digit"
          onClick={() => setPin((p) => p.slice(0, -1))}
        >
          ⌫
        </button>
      </div>
      <button type="submit" class="btn btn-primary w-full min-h-16 text-xl" disabled={pin.length < 4}>
        Sign in
      </button>
      <button
        type="button"
        class="btn btn-secondary w-full"
        onClick={() => {
          setWho(null);
          setPin("");
          setError(undefined);
        }}
      >
        Not {who.name}? Choose again
      </button>
    </form>
  );
}
