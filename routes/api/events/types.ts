import type { z } from "zod";
import type { User } from "@/db/schema.ts";
import type { AppDeps } from "@/lib/deps.ts";

/**
 * One `event_type` of the handler: the schema of its `payload` and the use case call that answers
 * `result.data`. The handler validates, resolves `user_email`, then calls `run` (D13 order).
 */
export interface HandlerEvent<S extends z.ZodType = z.ZodType> {
  schema: S;
  run(deps: AppDeps, user: User, payload: z.output<S>): Promise<unknown>;
}

export const defineEvent = <S extends z.ZodType>(event: HandlerEvent<S>): HandlerEvent =>
  event as HandlerEvent;
