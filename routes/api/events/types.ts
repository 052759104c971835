import type { z } from "zod";
import type { User } from "@/db/schema.ts";
import type { AppDeps } from "@/lib/deps.ts";

/**
 * One `event_type` of the handler: the schema of its `payload` and the use case call that answers
 * `result.data`. The handler validates, resolves `user_email`, then calls `run` (D13 order); the tablet
 * calls `run` of the same events with the payload the phone would send (routes/tablet/api.ts).
 */
export interface HandlerEvent<S extends z.ZodType = z.ZodType, R = unknown> {
  schema: S;
  run(deps: AppDeps, user: User, payload: z.output<S>): Promise<R>;
}

/** Keeps the event's own payload and answer types, so a typed caller (the tablet) gets them back. */
export const defineEvent = <S extends z.ZodType, R>(event: HandlerEvent<S, R>): HandlerEvent<S, R> => event;
