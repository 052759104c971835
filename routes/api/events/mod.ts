/**
 * The one dispatch table of movements and searches: `event_type` → event, for the mobile handler and the
 * tablet alike. An event type not listed answers as unknown (D9).
 */
import type { z } from "zod";
import { DomainError } from "@/lib/errors.ts";
import { UnknownUserError } from "@/lib/users.ts";
import type { HandlerEvent } from "@/routes/api/events/types.ts";
import { searchEvent } from "@/routes/api/events/search.ts";
import { dropOffEvent } from "@/routes/api/events/drop_off.ts";
import { pickUpReverseEvent } from "@/routes/api/events/pick_up_reverse.ts";
import { dropOffReverseEvent } from "@/routes/api/events/drop_off_reverse.ts";
import { uploadTokenEvent } from "@/routes/api/events/upload_token.ts";

/**
 * A submission event that counts its outcomes in the metrics (docs/operations.md "Metrics"): recorded, the
 * kind of the domain error that refused it, or `error`. Both faces run these events, so both are counted;
 * a payload refused by its schema never reaches `run`, and an unknown user (checked first in `run`) is not a
 * submission here.
 */
function counted<S extends z.ZodType, R>(eventType: string, event: HandlerEvent<S, R>): HandlerEvent<S, R> {
  return {
    schema: event.schema,
    async run(deps, actor, payload) {
      try {
        const result = await event.run(deps, actor, payload);
        deps.metrics?.submission(eventType, "recorded");
        return result;
      } catch (error) {
        if (error instanceof UnknownUserError) throw error;
        deps.metrics?.submission(eventType, error instanceof DomainError ? error.kind : "error");
        throw error;
      }
    },
  };
}

export const handlerEvents = {
  Parts_search_details: searchEvent,
  parts_drop_off: counted("parts_drop_off", dropOffEvent),
  parts_pick_up_reverse: counted("parts_pick_up_reverse", pickUpReverseEvent),
  parts_drop_off_reverse: counted("parts_drop_off_reverse", dropOffReverseEvent),
  parts_movement_upload_token: uploadTokenEvent,
} satisfies Record<string, HandlerEvent>;

/** The event named by a payload's `event_type`, or the D9 refusal. */
export function eventOf(eventType: string): HandlerEvent {
  if (!Object.hasOwn(handlerEvents, eventType)) {
    throw new DomainError("invalid", `Unknown event_type ${eventType}.`);
  }
  return handlerEvents[eventType as keyof typeof handlerEvents] as HandlerEvent;
}
