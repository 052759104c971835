import type { z } from "zod";
import type { AppDeps } from "@/lib/deps.ts";
import type { Actor } from "@/lib/users.ts";

/**
 * One `event_type` of the handler: the schema of its `payload`, and `run`, the adapter from that payload
 * to the use case's input and from its result to the protocol's `result.data`. The handler validates, then
 * calls `run` with the actor of `user_email`, which the use case checks first (D13 order: the submissions
 * in their first statement, lib/movements/submission.ts; the others with `actorUser`).
 */
export interface HandlerEvent<S extends z.ZodType = z.ZodType, R = unknown> {
  schema: S;
  run(deps: AppDeps, actor: Actor, payload: z.output<S>): Promise<R>;
}

/** Keeps the event's own payload and answer types. */
export const defineEvent = <S extends z.ZodType, R>(event: HandlerEvent<S, R>): HandlerEvent<S, R> => event;
