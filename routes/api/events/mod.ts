/**
 * The handler's one dispatch table: `event_type` → event (docs/protocol.md). An event type not listed
 * answers as unknown (D9).
 */
import { DomainError } from "@/lib/errors.ts";
import type { HandlerEvent } from "@/routes/api/events/types.ts";
import { searchEvent } from "@/routes/api/events/search.ts";
import { dropOffEvent } from "@/routes/api/events/drop_off.ts";
import { pickUpReverseEvent } from "@/routes/api/events/pick_up_reverse.ts";
import { dropOffReverseEvent } from "@/routes/api/events/drop_off_reverse.ts";
import { uploadTokenEvent } from "@/routes/api/events/upload_token.ts";

const handlerEvents = {
  Parts_search_details: searchEvent,
  parts_drop_off: dropOffEvent,
  parts_pick_up_reverse: pickUpReverseEvent,
  parts_drop_off_reverse: dropOffReverseEvent,
  parts_movement_upload_token: uploadTokenEvent,
} satisfies Record<string, HandlerEvent>;

/** The event named by a payload's `event_type`, or the D9 refusal. */
export function eventOf(eventType: string): HandlerEvent {
  if (!Object.hasOwn(handlerEvents, eventType)) {
    throw new DomainError("invalid", `Unknown event_type ${eventType}.`);
  }
  return handlerEvents[eventType as keyof typeof handlerEvents] as HandlerEvent;
}
