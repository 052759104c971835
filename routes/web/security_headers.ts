/**
 * Security headers on every answer. Scripts come only from this origin (the island boot and chunks are
 * external, content-hashed files: no inline script at all); no framing; no MIME sniffing; referrers stay
 * on this site. Inline `style` attributes are allowed (progress bars set widths), style elements are not.
 */
import type { MiddlewareHandler } from "hono";

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src-elem 'self'",
  "style-src-attr 'unsafe-inline'",
  // blob: and data: for the tablet's photo previews, made in the browser before upload.
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS: [string, string][] = [
  ["Content-Security-Policy", CONTENT_SECURITY_POLICY],
  ["X-Content-Type-Options", "nosniff"],
  ["X-Frame-Options", "DENY"],
  ["Referrer-Policy", "same-origin"],
  ["Cross-Origin-Opener-Policy", "same-origin"],
];

export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    // Set on the finished answer's own headers: `c.header()` after the handler copies the whole Response
    // (and turns its body into a stream) once per header, which cost more than the rest of the middleware.
    try {
      for (const [name, value] of SECURITY_HEADERS) c.res.headers.set(name, value);
    } catch {
      // Immutable headers (a Response from fetch or Response.redirect): `c.header` copies the answer.
      for (const [name, value] of SECURITY_HEADERS) c.header(name, value);
    }
  };
}
