/**
 * The mobile handler: `POST /api/handler?publickey=…` (docs/protocol.md "Common", D7–D10).
 * Transport faults (key, JSON, size) answer with their HTTP status; everything else is HTTP 200 with the
 * envelope, because clients built on the original platform treat non-2xx as a network fault (D8).
 */
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import { secretMatcher } from "@/io/secure_compare.ts";
import { requireActiveUser } from "@/lib/users.ts";
import { parseInput } from "@/lib/validation.ts";
import { failure, success } from "@/routes/api/envelope.ts";
import { handlerEvents } from "@/routes/api/events/mod.ts";
import { handlerUserLimiter, tooMany } from "@/routes/web/rate_limits.ts";

export const HANDLER_BODY_LIMIT = 64 * 1024;

// Paths in messages are relative to `payload` (D9: `details.rego`), so the envelope is read in two steps.
const bodySchema = z.object({ payload: z.record(z.string(), z.unknown()) });
const eventTypeSchema = z.object({ event_type: z.string() });

export function handlerRoutes(deps: AppDeps) {
  const app = new Hono();
  const perUser = handlerUserLimiter(deps);
  const isPublicKey = secretMatcher(deps.config.publicKey);
  const tooLarge = (c: Context) =>
    c.json({ code: 1001, message: "Request body too large (64 KiB at most)." }, 413);
  const streamedBodyLimit = bodyLimit({ maxSize: HANDLER_BODY_LIMIT, onError: tooLarge });

  app.post(
    "/",
    async (c, next) => {
      if (!isPublicKey(c.req.query("publickey") ?? "")) {
        return c.json({ code: 9370, message: "Invalid public key." }, 401);
      }
      await next();
    },
    (c, next) => {
      // A declared length is checked here, as hono's bodyLimit does, without opening the body as a stream
      // (which makes the JSON read below slower); a chunked body goes through bodyLimit's counting read.
      const length = c.req.raw.headers.get("content-length");
      if (length === null || c.req.raw.headers.has("transfer-encoding")) return streamedBodyLimit(c, next);
      return parseInt(length, 10) > HANDLER_BODY_LIMIT ? tooLarge(c) : next();
    },
    async (c) => {
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        return c.json({ code: 1000, message: "Request body must be JSON." }, 400);
      }
      try {
        const { payload } = parseInput(bodySchema, body);
        const { event_type } = parseInput(eventTypeSchema, payload);
        const event = Object.hasOwn(handlerEvents, event_type) ? handlerEvents[event_type] : null;
        if (!event) throw new DomainError("invalid", `Unknown event_type ${event_type}.`);
        const input = parseInput(event.schema, payload) as { user_email: string };
        const user = await requireActiveUser(deps.db, input.user_email);
        const decision = perUser?.hit(String(user.id));
        if (decision && !decision.allowed) return tooMany(c, decision);
        return c.json(success(await event.run(deps, user, input)));
      } catch (error) {
        if (error instanceof DomainError) return c.json(failure(error.message));
        throw error;
      }
    },
  );
  return app;
}
