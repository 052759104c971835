/**
 * A real SMTP server for tests (npm smtp-server on 127.0.0.1, a free port chosen by the OS) that records
 * every message it accepted, parsed by a real MIME parser (mailparser), and answers the way a mail server
 * does when it is well, refuses, fails for a while, hangs, or holds a message until the test lets it go.
 * The service's own sender (lib/announcements/smtp.ts, nodemailer) talks to it over real sockets.
 *
 *   await using smtp = await startSmtpReceiver();
 *   config.mail = { smtpUrl: smtp.url, from: "parts@depot.example" };
 *   smtp.setMode({ kind: "refuse_recipient" });
 */
// deno-lint-ignore-file no-import-prefix -- test-only packages stay out of the service's import map
import { SMTPServer } from "npm:smtp-server@3.21.6";
// @ts-types="npm:@types/mailparser@3.9.0"
import { simpleParser } from "npm:mailparser@3.14.2";

export interface ReceivedMail {
  /** The envelope: MAIL FROM and RCPT TO. */
  from: string;
  to: string[];
  /** The raw message as the server received it. */
  raw: string;
  subject: string;
  /** The Message-ID header, with its angle brackets. */
  messageId: string;
  text: string;
  html: string;
  /** The MIME types of the message's parts (leaves), e.g. text/plain and text/html. */
  contentTypes: string[];
  /** Attachments the parser found (none expected: no images, nothing remote). */
  attachments: number;
}

export type SmtpMode =
  /** 250 to everything. */
  | { kind: "ok" }
  /** 550 to every RCPT TO (an unknown mailbox): permanent. */
  | { kind: "refuse_recipient" }
  /** 554 to the message after DATA: permanent. */
  | { kind: "refuse_message" }
  /** 451 to the message after DATA: try again later. */
  | { kind: "tempfail" }
  /** Takes the message and never answers it (the client's timeout ends the wait). */
  | { kind: "hang" }
  /**
   * Takes the next message and waits for `release`: "accept" answers 250 (and records it), "drop" answers
   * 421 and records nothing (the sender died before the server took it). Then back to "ok".
   */
  | { kind: "hold" };

export interface SmtpReceiver extends AsyncDisposable {
  readonly port: number;
  /** smtp://127.0.0.1:<port> */
  readonly url: string;
  /** Messages accepted (answered 250), in order. */
  readonly accepted: ReceivedMail[];
  /** Messages whose data arrived, whatever the answer (a held or hung one included). */
  readonly arrivals: number;
  setMode(mode: SmtpMode): void;
  /** Resolves when a held message's data arrived. */
  held(): Promise<void>;
  /** Answers the held message. */
  release(how: "accept" | "drop"): void;
  /** Resolves once `count` messages were accepted; rejects after `timeoutMs` (default 10 s). */
  waitForAccepted(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

class SmtpAnswer extends Error {
  constructor(message: string, readonly responseCode: number) {
    super(message);
  }
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  let mode: SmtpMode = { kind: "ok" };
  const accepted: ReceivedMail[] = [];
  let arrivals = 0;
  let heldArrived: () => void = () => {};
  let heldPromise = new Promise<void>((r) => heldArrived = r);
  let answerHeld: ((how: "accept" | "drop") => void) | null = null;
  const hung: (() => void)[] = [];
  const watchers = new Set<() => void>();

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (mode.kind === "refuse_recipient") {
        return callback(new SmtpAnswer(`<${address.address}>: mailbox unavailable`, 550));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Uint8Array[] = [];
      stream.on("data", (c: Uint8Array) => chunks.push(c));
      stream.on("end", async () => {
        arrivals++;
        const raw = new TextDecoder().decode(await new Blob(chunks as BlobPart[]).bytes());
        const record = async () => {
          accepted.push(await parse(raw, session.envelope));
          for (const w of watchers) w();
        };
        const current = mode;
        switch (current.kind) {
          case "refuse_message":
            return callback(new SmtpAnswer("message refused", 554));
          case "tempfail":
            return callback(new SmtpAnswer("try again later", 451));
          case "hang":
            hung.push(() => callback(new SmtpAnswer("closing", 421)));
            return;
          case "hold":
            mode = { kind: "ok" };
            answerHeld = async (how) => {
              if (how === "accept") {
                await record();
                callback();
              } else callback(new SmtpAnswer("service closing", 421));
            };
            heldArrived();
            return;
          default:
            await record();
            callback();
        }
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.server.address() as { port: number }).port;
  let closed = false;

  const receiver: SmtpReceiver = {
    port,
    url: `smtp://127.0.0.1:${port}`,
    accepted,
    get arrivals() {
      return arrivals;
    },
    setMode(m) {
      mode = m;
      if (m.kind === "hold") heldPromise = new Promise<void>((r) => heldArrived = r);
    },
    held: () => heldPromise,
    release(how) {
      const answer = answerHeld;
      answerHeld = null;
      answer?.(how);
    },
    waitForAccepted(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (accepted.length < count) return;
          clearTimeout(timer);
          watchers.delete(check);
          resolve(accepted);
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`${accepted.length} of ${count} messages accepted within ${timeoutMs} ms`));
        }, timeoutMs);
        watchers.add(check);
        check();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      receiver.release("drop");
      for (const end of hung.splice(0)) end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    [Symbol.asyncDispose]: () => receiver.close(),
  };
  return receiver;
}

/** A port nothing listens on: connections to it are refused (an SMTP server that is down). */
export async function closedSmtpUrl(): Promise<string> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await Promise.resolve();
  return `smtp://127.0.0.1:${port}`;
}

async function parse(
  raw: string,
  envelope: { mailFrom: false | { address: string }; rcptTo: { address: string }[] },
): Promise<ReceivedMail> {
  const mail = await simpleParser(raw);
  const contentTypes = [...raw.matchAll(/^Content-Type:\s*([^;\s]+)/gim)].map((m) => m[1].toLowerCase())
    .filter((t) => !t.startsWith("multipart/"));
  return {
    from: envelope.mailFrom ? envelope.mailFrom.address : "",
    to: envelope.rcptTo.map((r) => r.address),
    raw,
    subject: mail.subject ?? "",
    messageId: mail.messageId ?? "",
    text: mail.text ?? "",
    html: typeof mail.html === "string" ? mail.html : "",
    contentTypes,
    attachments: mail.attachments.length,
  };
}
