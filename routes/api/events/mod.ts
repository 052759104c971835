/** The handler's dispatch table: `event_type` → event. An event type not listed answers as unknown (D9). */
import type { HandlerEvent } from "@/routes/api/events/types.ts";
import { searchEvent } from "@/routes/api/events/search.ts";

export const handlerEvents: Record<string, HandlerEvent> = {
  Parts_search_details: searchEvent,
};
