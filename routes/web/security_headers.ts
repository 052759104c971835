/**
 * Security headers on every answer. Scripts come only from this origin (the island boot and chunks are
 * external, content-hashed files: no inline script at all); no framing; no MIME sniffing; referrers stay
 * on this site. Inline `style` attributes are allowed (progress bars set widths), style elements are not.
 * Outside development, browsers are told to use HTTPS only for this host and its subdomains for a year
 * (development runs on plain http://localhost, which HSTS would break for every other local service).
 * The tablet's pages may also compile WebAssembly (`'wasm-unsafe-eval'`, which allows no JavaScript eval):
 * the camera scan's QR decoder (docs/tablet.md "Scanning"), served from this origin like every script.
 */
import type { MiddlewareHandler } from "hono";
import type { Config } from "@/io/config.ts";

const policy = (scripts: string) =>
  [
    "default-src 'self'",
    `script-src ${scripts}`,
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

export const CONTENT_SECURITY_POLICY = policy("'self'");
/** Under /tablet: the same, and WebAssembly may be compiled (the QR decoder). */
export const TABLET_CONTENT_SECURITY_POLICY = policy("'self' 'wasm-unsafe-eval'");

const SECURITY_HEADERS: [string, string][] = [
  ["X-Content-Type-Options", "nosniff"],
  ["X-Frame-Options", "DENY"],
  ["Referrer-Policy", "same-origin"],
  ["Cross-Origin-Opener-Policy", "same-origin"],
];

/** Two years (the HSTS preload list asks for at least one); subdomains too, so none can be used over http. */
export const STRICT_TRANSPORT_SECURITY = "max-age=63072000; includeSubDomains";

export function securityHeaders(config: Pick<Config, "appEnv">): MiddlewareHandler {
  const headers: [string, string][] = config.appEnv === "development"
    ? SECURITY_HEADERS
    : [...SECURITY_HEADERS, ["Strict-Transport-Security", STRICT_TRANSPORT_SECURITY]];
  // Both sets built once, not per answer (docs/search-path.md).
  const pages = setOf(CONTENT_SECURITY_POLICY, headers);
  const tablet = setOf(TABLET_CONTENT_SECURITY_POLICY, headers);
  return async (c, next) => {
    await next();
    const path = c.req.path;
    const set = path === "/tablet" || path.startsWith("/tablet/") ? tablet : pages;
    // Set on the finished answer's own headers: `c.header()` after the handler copies the whole Response
    // (and turns its body into a stream) once per header, which cost more than the rest of the middleware.
    // A route's own Referrer-Policy stands: the shop's page sends none at all (its path is its secret).
    const all = c.res.headers.has("Referrer-Policy") ? set.keepingReferrerPolicy : set.all;
    try {
      for (const [name, value] of all) c.res.headers.set(name, value);
    } catch {
      // Immutable headers (a Response from fetch or Response.redirect): `c.header` copies the answer.
      for (const [name, value] of all) c.header(name, value);
    }
  };
}

/** One policy's headers: all of them, and all but Referrer-Policy (for an answer that set its own). */
function setOf(csp: string, headers: [string, string][]) {
  const all: [string, string][] = [["Content-Security-Policy", csp], ...headers];
  return { all, keepingReferrerPolicy: all.filter(([name]) => name !== "Referrer-Policy") };
}
