/**
 * The import's rows of places (D5, docs/operations.md "Import"): HQ locations and repair shops with their
 * details (lib/places/details.ts). Every problem of a row is listed at once, the coordinates' pairing
 * included.
 */
import { z } from "zod";
import {
  coordinatesPaired,
  emailsField,
  latitudeField,
  longitudeField,
  openingHoursField,
  phoneField,
} from "@/lib/places/details.ts";
import { freeTextField, requiredTextField } from "@/lib/validation.ts";

/** A place's coordinates: both or neither. */
const coordinates = { latitude: latitudeField.nullish(), longitude: longitudeField.nullish() };
function pairedCoordinates(row: { latitude?: unknown; longitude?: unknown }, ctx: z.RefinementCtx) {
  const missing = coordinatesPaired(row);
  if (missing) {
    ctx.addIssue({
      code: "custom",
      path: [missing],
      message: `is required with ${missing === "latitude" ? "longitude" : "latitude"}`,
    });
  }
}
/** Runs `pairedCoordinates` whatever the row's other problems (when it is an object at all), so D5 lists all. */
const anyObject = { when: (payload: { value: unknown }) => typeof payload.value === "object" };

export const hqLocationRow = z.strictObject({ name: requiredTextField(200), ...coordinates })
  .superRefine(pairedCoordinates, anyObject);

export const repairerRow = z.strictObject({
  name: requiredTextField(200),
  address: freeTextField(500).nullish(),
  phone: phoneField.nullish(),
  emails: emailsField.optional(),
  ...coordinates,
  opening_hours: openingHoursField.nullish(),
}).superRefine(pairedCoordinates, anyObject);
