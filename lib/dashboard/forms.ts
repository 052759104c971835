/**
 * The zod building blocks of the dashboard's form and query schemas (each route declares one per form). The
 * values are passed on as typed: the use cases judge them and word the refusal the page shows.
 */
import { z } from "zod";

/** A text field: the string sent, or "" when it is absent or a file. */
export const formText = z.string().catch("");

/** A toggle's hidden field: "true" turns it on, anything else off. */
export const formFlag = formText.transform((v) => v === "true");

/** A page's `?done=` query: one of `notices`'s keys picks its notice; anything else shows none. */
export function doneQuery<T>(notices: Record<string, T>) {
  return z.string().refine((key) => Object.hasOwn(notices, key)).transform((key) => notices[key])
    .optional().catch(undefined);
}
