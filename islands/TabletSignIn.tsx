/**
 * Shared-tablet sign-in (D23): pick your name from the depot's drivers (or type an e-mail), then enter
 * the PIN on a large keypad. The keypad fills a real PIN field (numeric on-screen keyboard too), and the
 * form posts to /tablet/sign-in as an ordinary form, so the session cookie arrives with a redirect.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { PinPad, type Who, WhoPicker } from "./_tablet_sign_in.tsx";

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

export default function TabletSignIn(props: TabletSignInProps) {
  const { drivers, next } = props;
  const initialName = props.pickedId ? drivers.find((d) => d.id === props.pickedId)?.name : props.email;
  const [who, setWho] = useState<Who | null>(
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
      <WhoPicker
        drivers={drivers}
        notice={props.notice}
        error={error}
        ready={ready}
        email={email}
        onEmail={setEmail}
        onTyping={() => setTyping(true)}
        onPick={(picked) => {
          setError(undefined);
          setWho(picked);
        }}
        headingRef={heading}
        emailRef={emailField}
      />
    );
  }
  return (
    <PinPad
      who={who}
      next={next}
      csrf={props.csrf}
      ready={ready}
      error={error}
      pin={pin}
      onTyped={(value) => {
        setError(undefined);
        setPin(value.replace(/\D/g, "").slice(0, 8));
      }}
      onPress={press}
      onClear={() => setPin("")}
      onDelete={() => setPin((p) => p.slice(0, -1))}
      onChooseAgain={() => {
        setWho(null);
        setPin("");
        setError(undefined);
      }}
      pinRef={pinField}
    />
  );
}
