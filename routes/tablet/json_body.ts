/** The body of a tablet JSON request, read under the sub-app's body limit; not JSON is a refusal (422). */
import type { Context } from "hono";
import { DomainError } from "@/lib/errors.ts";

export async function readJson(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new DomainError("invalid", "Request body must be JSON.");
  }
}
