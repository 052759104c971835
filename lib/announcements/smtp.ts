/**
 * Sends one e-mail through the configured SMTP server (`SMTP_URL`, `MAIL_FROM`; nodemailer's SMTP
 * transport) and says what the worker should do next, like the chat webhook's sender (webhook.ts): it was
 * delivered (the server answered 250 to the message), it should be retried, or it failed for good.
 *
 * SMTP has no idempotency key. Every attempt carries the same Message-ID, derived from the outbox row's
 * message id, so a message sent again after a crash between the server's 250 and the outbox's record
 * is recognisable as the same message (docs/submissions-and-announcements.md "E-mail to the repair shops").
 *
 * Nothing here throws for a mail problem, and no error text carries the URL's password.
 */
import nodemailer from "nodemailer";
import type { MailConfig } from "@/io/config.ts";
import type { ShopEmail } from "@/lib/announcements/mail.tsx";
import { DEFAULT_TIMEOUT_MS, type WebhookResult } from "@/lib/announcements/webhook.ts";

/** What one attempt came to: the webhook's outcomes, and `failed` for a refusal no retry can change. */
export type SendResult = WebhookResult | { outcome: "failed"; error: string; status?: number };

const SNIPPET_CHARS = 200;

/** The Message-ID of an outbox row's e-mail: the row's message id at the service's host. */
export function mailMessageId(messageId: string, publicUrl: string): string {
  return `<${messageId}@${new URL(publicUrl).hostname}>`;
}

/**
 * Sends `mail` to `to`. A 5xx answer to a recipient or to the message itself (RCPT TO, DATA: an unknown
 * mailbox, a refused message) is `failed` at once: RFC 5321 says repeating it cannot succeed, and waiting
 * 24 hours would hold every other shop's e-mail back behind it. Everything else (connection refused, a
 * timeout, a 4xx, a 5xx to the greeting, the sender or the log-in: the server or its configuration) is a
 * `retry`. A message some recipients refused and others took is delivered: the refused ones are named in
 * the log.
 */
export async function sendShopEmail(
  config: MailConfig,
  to: string[],
  mail: ShopEmail,
  opts: { messageId: string; timeoutMs?: number },
): Promise<SendResult & { rejected?: string[] }> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // One connection per message: e-mails are few, and nothing is left open between rounds.
  const transport = nodemailer.createTransport({
    url: config.smtpUrl,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
  });
  try {
    const info = await transport.sendMail({
      from: config.from,
      to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      messageId: opts.messageId,
      // No remote content, and nothing from the environment (nodemailer's defaults would add neither).
      disableUrlAccess: true,
      disableFileAccess: true,
    });
    const rejected = (info.rejected ?? []).map(String);
    return { outcome: "delivered", status: Number(/^\d{3}/.exec(info.response)?.[0] ?? 250), rejected };
  } catch (error) {
    return classifySmtpError(error, config.smtpUrl);
  } finally {
    transport.close();
  }
}

interface SmtpError {
  message?: string;
  code?: string;
  responseCode?: number;
  command?: string;
}

/** What a nodemailer error means; exported for the tests of the rule. */
export function classifySmtpError(error: unknown, smtpUrl: string): SendResult {
  const e = (typeof error === "object" && error !== null ? error : {}) as SmtpError;
  const text = redactUrl(String(e.message ?? error).replace(/\s+/g, " "), smtpUrl).slice(0, SNIPPET_CHARS);
  const status = e.responseCode;
  const message = status ? `SMTP ${status}: ${text}` : `${e.code ?? "error"}: ${text}`;
  const permanent = status !== undefined && status >= 500 &&
    (e.command === "RCPT TO" || e.command === "DATA");
  if (permanent) return { outcome: "failed", error: message, status };
  return { outcome: "retry", throttled: false, error: message, ...(status ? { status } : {}) };
}

/** The SMTP URL's password and the URL itself out of an error text bound for the dashboard. */
function redactUrl(text: string, smtpUrl: string): string {
  let out = text.split(smtpUrl).join("[smtp url]");
  try {
    const password = decodeURIComponent(new URL(smtpUrl).password);
    if (password) out = out.split(password).join("…");
  } catch {
    // Not a URL (config parsing makes sure it is): nothing more to remove.
  }
  return out;
}
