/**
 * The two screens of the TabletSignIn island: who is signing in (a driver's name, or an e-mail), then
 * the PIN on a large keypad. Presentational: the island keeps the state, so going back and forth between
 * the screens keeps what was typed.
 */
import type { RefObject } from "preact";

export interface Who {
  id?: number;
  email?: string;
  name: string;
}

const KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];

export function WhoPicker(props: {
  drivers: { id: number; name: string }[];
  notice?: string;
  /** A failed attempt's message, when the name it was for is not in the list. */
  error?: string;
  ready: boolean;
  email: string;
  onEmail: (email: string) => void;
  onTyping: () => void;
  onPick: (who: Who) => void;
  headingRef: RefObject<HTMLHeadingElement | null>;
  emailRef: RefObject<HTMLInputElement | null>;
}) {
  const { drivers, email } = props;
  return (
    <div class="space-y-6" data-testid="sign-in" data-ready={props.ready ? "" : undefined}>
      <h1 ref={props.headingRef} tabIndex={-1} class="text-3xl font-bold">Who is signing in?</h1>
      {props.notice && <p class="msg-info" role="status">{props.notice}</p>}
      {props.error && <p class="msg-error" role="alert" data-testid="sign-in-error">{props.error}</p>}
      {drivers.length > 0
        ? (
          <ul class="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3" aria-label="Drivers">
            {drivers.map((d) => (
              <li key={d.id}>
                <button
                  type="button"
                  class="btn btn-secondary min-h-20 w-full text-xl"
                  onClick={() => props.onPick({ id: d.id, name: d.name })}
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
          if (value) props.onPick({ email: value, name: value });
        }}
      >
        <label for="sign-in-email" class="field-label">Not in the list? Your e-mail</label>
        <div class="flex flex-wrap gap-3">
          <input
            ref={props.emailRef}
            id="sign-in-email"
            class="field grow basis-64"
            type="email"
            inputMode="email"
            autoComplete="off"
            autoCapitalize="none"
            spellcheck={false}
            enterKeyHint="next"
            value={email}
            onFocus={props.onTyping}
            onInput={(e) => props.onEmail(e.currentTarget.value)}
            required
          />
          <button type="submit" class="btn btn-primary">Next</button>
        </div>
      </form>
    </div>
  );
}

/** The form that posts to /tablet/sign-in; the keypad fills the real PIN field. */
export function PinPad(props: {
  who: Who;
  next: string;
  csrf?: string;
  ready: boolean;
  error?: string;
  pin: string;
  /** Typed into the PIN field (the keypad uses onPress). */
  onTyped: (value: string) => void;
  onPress: (digit: string) => void;
  onClear: () => void;
  onDelete: () => void;
  onChooseAgain: () => void;
  pinRef: RefObject<HTMLInputElement | null>;
}) {
  const { who, pin } = props;
  return (
    <form
      method="post"
      action="/tablet/sign-in"
      class="mx-auto max-w-md space-y-4"
      data-testid="pin-pad"
      data-ready={props.ready ? "" : undefined}
    >
      <input type="hidden" name="next" value={props.next} />
      {props.csrf && <input type="hidden" name="_csrf" value={props.csrf} />}
      {who.id
        ? <input type="hidden" name="user_id" value={String(who.id)} />
        : <input type="hidden" name="email" value={who.email} />}
      <h1 class="text-3xl font-bold">Hello, {who.name}</h1>
      {props.error && <p class="msg-error" role="alert" data-testid="sign-in-error">{props.error}</p>}
      <div>
        <label for="pin" class="field-label">Your PIN</label>
        <input
          ref={props.pinRef}
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
          onInput={(e) => props.onTyped(e.currentTarget.value)}
        />
      </div>
      <div class="grid grid-cols-3 gap-3" role="group" aria-label="PIN keypad">
        {KEYS.map((k) => (
          <button
            key={k}
            type="button"
            class="btn btn-secondary min-h-20 text-3xl"
            onClick={() => props.onPress(k)}
          >
            {k}
          </button>
        ))}
        <button type="button" class="btn btn-secondary min-h-20" onClick={props.onClear}>Clear</button>
        <button type="button" class="btn btn-secondary min-h-20 text-3xl" onClick={() => props.onPress("0")}>
          0
        </button>
        <button
          type="button"
          class="btn btn-secondary min-h-20 text-3xl"
          aria-label="Delete last digit"
          onClick={props.onDelete}
        >
          ⌫
        </button>
      </div>
      <button type="submit" class="btn btn-primary w-full min-h-16 text-xl" disabled={pin.length < 4}>
        Sign in
      </button>
      <button type="button" class="btn btn-secondary w-full" onClick={props.onChooseAgain}>
        Not {who.name}? Choose again
      </button>
    </form>
  );
}
