/**
 * The HTTP layer's guarantees on the mobile handler's path, each of which the service always keeps
 * (docs/performance.md "Search path"). `createApp(deps)` builds them all; only a bench entry script under
 * bench/ passes anything else (bench/search_layer_server.ts, to measure what each one costs a search), and
 * nothing the service reads (configuration, environment) reaches this type.
 */
export interface HttpLayer {
  /** Request id, `X-Request-Id` and the request's log line (routes/web/request_log.ts). */
  requestLog: boolean;
  /** Security headers on every answer (routes/web/security_headers.ts). */
  securityHeaders: boolean;
  /** The handler's public-key check (routes/api/handler.ts). */
  publicKey: boolean;
  /** The body cap and the pace rule (routes/web/body_limits.ts). */
  bodyLimit: boolean;
  /** The client address noted and limited per address (routes/web/rate_limits.ts). */
  perAddress: boolean;
}

/** Every guarantee: what the service runs. */
export const WHOLE_HTTP_LAYER: Readonly<HttpLayer> = Object.freeze({
  requestLog: true,
  securityHeaders: true,
  publicKey: true,
  bodyLimit: true,
  perAddress: true,
});
