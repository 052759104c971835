/**
 * The body length a request declares, so a size limit can refuse it before reading a byte. Null when the
 * body is chunked (Transfer-Encoding wins over Content-Length) or the header is absent or not a number:
 * then only a counting read can tell.
 */
export function declaredLength(request: Request): number | null {
  if (request.headers.has("transfer-encoding")) return null;
  const value = request.headers.get("content-length")?.trim();
  return value && /^\d{1,15}$/.test(value) ? Number(value) : null;
}
