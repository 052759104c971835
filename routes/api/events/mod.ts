/** The handler's dispatch table: `event_type` → event. An event type not listed answers as unknown (D9). */
import type { HandlerEvent } from "@/routes/api/events/types.ts";
import { searchEvent } from "@/routes/api/events/search.ts";
import { dropOffEvent } from "@/routes/api/events/drop_off.ts";
import { pickUpReverseEvent } from "@/routes/api/events/pick_up_reverse.ts";
import { dropOffReverseEvent } from "@/routes/api/events/drop_off_reverse.ts";
import { uploadTokenEvent } from "@/routes/api/events/upload_token.ts";

export const handlerEvents: Record<string, HandlerEvent> = {
  Parts_search_details: searchEvent,
  parts_drop_off: dropOffEvent,
  parts_pick_up_reverse: pickUpReverseEvent,
  parts_drop_off_reverse: dropOffReverseEvent,
  parts_movement_upload_token: uploadTokenEvent,
};
