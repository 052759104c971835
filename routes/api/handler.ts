/**
 * The mobile handler: `POST /api/handler?publickey=…` (docs/protocol.md "Common", D7–D10).
 * Transport faults (key, JSON, size, rate) answer with their HTTP status and code (routes/api/codes.ts);
 * everything else is HTTP 200 with the envelope (routes/api/envelope.ts), because clients built on the
 * original platform treat non-2xx as a network fault (D8).
 */
import { type Context, Hono } from "hono";
import { z } from "zod";
import type { AppDeps } from "@/lib/deps.ts";
import { anySecretMatcher } from "@/io/secure_compare.ts";
import { lineTextField, parseInput } from "@/lib/validation.ts";
import { CODE } from "@/routes/api/codes.ts";
import { envelopeOf, fault, success } from "@/routes/api/envelope.ts";
import { eventOf } from "@/routes/api/events/mod.ts";
import { handlerUserLimiter, LIMITS, noteAndLimitAddress, tooMany } from "@/routes/web/rate_limits.ts";
import { bufferedBody, readBodyUnderCap } from "@/routes/web/body_limits.ts";
import { type HttpLayer, WHOLE_HTTP_LAYER } from "@/routes/web/http_layer.ts";

export const HANDLER_BODY_LIMIT = 64 * 1024;

// Paths in messages are relative to `payload` (D9: `details.rego`), so the envelope is read in two steps.
const bodySchema = z.object({ payload: z.record(z.string(), z.unknown()) });
const eventTypeSchema = z.object({ event_type: lineTextField });

/** UTF-8 with a leading BOM dropped and malformed bytes replaced, as `Request.text()` decodes. */
const decoder = new TextDecoder();

const tooLarge = (c: Context) =>
  c.json(fault(CODE.bodyTooLarge, "Request body too large (64 KiB at most)."), 413);

/** `layer`: every guarantee, unless a bench measures what one costs (routes/web/http_layer.ts). */
export function handlerRoutes(deps: AppDeps, layer: Readonly<HttpLayer> = WHOLE_HTTP_LAYER) {
  const app = new Hono();
  const perUser = handlerUserLimiter(deps);
  // PUBLIC_KEY, and while a rotation runs the one before it (docs/operations.md "Rotating the public key").
  const { publicKey, publicKeyPrevious, handlerRoles } = deps.config;
  const isPublicKey = anySecretMatcher(publicKeyPrevious ? [publicKey, publicKeyPrevious] : [publicKey]);

  if (layer.perAddress) app.use(noteAndLimitAddress(deps, LIMITS.handlerPerAddress));
  const pace = deps.config.bodyPace;
  // The key check and the body cap run in the route's own frame, not as middleware of their own: each
  // middleware is one more frame of Hono's compose on every request (docs/search-path.md).
  app.post(
    "/",
    async (c) => {
      if (layer.publicKey && !isPublicKey(c.req.query("publickey") ?? "")) {
        return c.json(fault(CODE.badPublicKey, "Invalid public key."), 401);
      }
      // Read whole under the cap and the pace rule (routes/web/body_limits.ts), then parsed from memory.
      if (layer.bodyLimit && !await readBodyUnderCap(c, pace, HANDLER_BODY_LIMIT)) return tooLarge(c);
      let body: unknown;
      try {
        const bytes = bufferedBody(c);
        body = JSON.parse(bytes ? decoder.decode(bytes) : await c.req.text());
      } catch {
        return c.json(fault(CODE.badJson, "Request body must be JSON."), 400);
      }
      try {
        const { payload } = parseInput(bodySchema, body);
        const { event_type } = parseInput(eventTypeSchema, payload);
        const event = eventOf(event_type);
        const input = parseInput(event.schema, payload) as { user_email: string };
        // Keyed on the client address and the e-mail (lower-cased by the schema, unique per user), so a
        // request over the limit costs no database round trip and the submissions can read their user in
        // their first statement (docs/performance.md "Round trips"). An unknown e-mail is limited like a
        // known one.
        const sourceAddress = c.get("sourceAddress");
        const decision = perUser?.hit(sourceAddress, input.user_email);
        if (decision && !decision.allowed) return tooMany(c, decision, "json");
        // Only for the roles allowed to use the app (HANDLER_ROLES): any other user is `User not found.`. The
        // source address goes into each recorded movement's audit entry (lib/movements/submission.ts).
        const actor = { email: input.user_email, roles: handlerRoles, sourceAddress };
        return c.json(success(await event.run(deps, actor, input)));
      } catch (error) {
        const envelope = envelopeOf(error);
        if (envelope) return c.json(envelope);
        throw error; // the app's onError: logged with an id, answered 503 without internals
      }
    },
  );
  return app;
}
