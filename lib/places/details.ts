/**
 * The rules of a place's details (docs/dashboard.md "Places"): a repair shop's
 * phone, contact e-mail addresses and opening hours, and any place's coordinates. Each rule answers a value
 * or a problem, so the admin page (a PlaceFieldError naming the field) and the import (a problem at the
 * row's path) refuse the same things in the same words.
 */
import { z } from "zod";
import { DomainError } from "@/lib/errors.ts";
import { CONTROL_PROBLEM, emailField, isLineText, safeParseInput } from "@/lib/validation.ts";
import { type OpeningHours, openingHoursSchema, parseOpeningHours } from "@/lib/places/hours.ts";

/** The fields of a place's form, as the form names its inputs. */
export type PlaceField = "name" | "address" | "phone" | "emails" | "latitude" | "longitude" | "opening_hours";

/** How a message names each field. */
export const FIELD_LABEL: Record<PlaceField, string> = {
  name: "Name",
  address: "Address",
  phone: "Phone",
  emails: "Contact e-mails",
  latitude: "Latitude",
  longitude: "Longitude",
  opening_hours: "Opening hours",
};

/**
 * A form value a place's rule refuses, naming the field (the page marks that input invalid): the message
 * is "<Field>: <problem>.", or `text` when given.
 */
export class PlaceFieldError extends DomainError {
  constructor(readonly field: PlaceField, problem: string, text?: string) {
    super("invalid", text ?? `${FIELD_LABEL[field]}: ${problem}.`);
    this.name = "PlaceFieldError";
  }
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };
const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const no = <T>(problem: string): Checked<T> => ({ ok: false, problem });

/** The most contact e-mail addresses a shop keeps. */
export const MAX_EMAILS = 10;
export const MAX_PHONE = 40;

/**
 * A phone number as people write it ("02 9555 0101", "+61 2 9555 0101", "(02) 9555-0101", "13 11 22"):
 * digits with spaces, brackets, dots, dashes and a leading "+"; 6 to 15 digits (E.164's longest). Kept as
 * typed with spaces collapsed; empty is none.
 */
export function checkPhone(text: string): Checked<string | null> {
  const clean = text.trim().replace(/\s+/g, " ");
  if (clean === "") return ok(null);
  if (!isLineText(clean)) return no(CONTROL_PROBLEM);
  if (clean.length > MAX_PHONE) return no(`must be at most ${MAX_PHONE} characters`);
  const digits = clean.replace(/\D/g, "").length;
  if (!/^\+?[\d ().-]+$/.test(clean) || digits < 6 || digits > 15) {
    return no("must be a phone number of 6 to 15 digits, e.g. 02 9555 0101 or +61 2 9555 0101");
  }
  return ok(clean);
}

/** The `tel:` link of a stored phone number: its digits, with the leading "+" when it has one. */
export function phoneHref(phone: string): string {
  return `tel:${phone.trim().startsWith("+") ? "+" : ""}${phone.replace(/\D/g, "")}`;
}

/**
 * Contact e-mail addresses: each checked (lower case, like users' addresses), repeats dropped, at most
 * MAX_EMAILS. `list` as typed in the form (separated by commas, semicolons, spaces or lines) or as an array.
 */
export function checkEmails(list: string | string[]): Checked<string[]> {
  const items = typeof list === "string" ? list.split(/[\s,;]+/).filter(Boolean) : list;
  const out: string[] = [];
  for (const item of items) {
    const parsed = emailField.safeParse(item);
    if (!parsed.success) {
      return no(
        isLineText(item)
          ? `${JSON.stringify(item)} is not an e-mail address`
          : `an address ${CONTROL_PROBLEM}`,
      );
    }
    if (!out.includes(parsed.data)) out.push(parsed.data);
  }
  if (out.length > MAX_EMAILS) return no(`give at most ${MAX_EMAILS} addresses`);
  return ok(out);
}

const COORDINATE_TEXT = /^[+-]?\d{1,3}(?:\.\d+)?$/;
const RANGE = { latitude: 90, longitude: 180 } as const;

/** One coordinate in decimal degrees, in range; rounded to 6 decimals (about 0.1 m) as stored. */
export function checkCoordinate(axis: "latitude" | "longitude", value: string | number): Checked<number> {
  const n = typeof value === "number" ? value : COORDINATE_TEXT.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(n)) return no("must be a number in decimal degrees, e.g. -33.8688");
  const max = RANGE[axis];
  if (n < -max || n > max) return no(`must be between -${max} and ${max}`);
  return ok(Math.round(n * 1e6) / 1e6);
}

export interface Coordinates {
  latitude: number | null;
  longitude: number | null;
}

/**
 * The form's two coordinate boxes: both or neither. A pair pasted into the latitude box ("-33.8688,
 * 151.2093", as map apps copy it) with the longitude box empty is read as both.
 */
export function coordinatesFromForm(latitude: string, longitude: string): Coordinates {
  let lat = latitude.trim();
  let lon = longitude.trim();
  const pair = /^([^,\s]+)\s*[,\s]\s*([^,\s]+)$/.exec(lat);
  if (pair && lon === "") [lat, lon] = [pair[1], pair[2]];
  if (lat === "" && lon === "") return { latitude: null, longitude: null };
  if (lat === "") throw new PlaceFieldError("latitude", "give it with the longitude, or leave both empty");
  if (lon === "") throw new PlaceFieldError("longitude", "give it with the latitude, or leave both empty");
  return {
    latitude: must("latitude", checkCoordinate("latitude", lat)),
    longitude: must("longitude", checkCoordinate("longitude", lon)),
  };
}

/** The value, or the PlaceFieldError of `field`. */
export function must<T>(field: PlaceField, checked: Checked<T>): T {
  if (!checked.ok) throw new PlaceFieldError(field, checked.problem);
  return checked.value;
}

/** Opening hours as typed in the form; null when empty (not known). */
export function hoursFromForm(text: string): OpeningHours | null {
  const parsed = parseOpeningHours(text);
  if (!parsed.ok) throw new PlaceFieldError("opening_hours", parsed.problem);
  return parsed.hours;
}

// ---- The import's fields (lib/import.ts): the same rules as zod fields, problems at the row's path ----

/** A zod field from a rule: its problem becomes the issue's message. */
const ruled = <I, T>(input: z.ZodType<I>, rule: (value: I) => Checked<T>) =>
  input.transform((value, ctx) => {
    const checked = rule(value);
    if (checked.ok) return checked.value;
    ctx.issues.push({ code: "custom", message: checked.problem, input: value });
    return z.NEVER;
  });

export const phoneField = ruled(z.string(), checkPhone);
export const emailsField = ruled(z.array(z.string()), checkEmails);
export const latitudeField = ruled(z.number(), (n) => checkCoordinate("latitude", n));
export const longitudeField = ruled(z.number(), (n) => checkCoordinate("longitude", n));

/**
 * Opening hours in an import: the text a person types ("Mon–Fri 07:30–17:00") or the stored JSON object
 * (`{ "mon": [{ "open": "07:30", "close": "17:00" }] }`).
 */
export const openingHoursField = z.unknown().transform((value, ctx): OpeningHours | null => {
  if (typeof value === "string") {
    const parsed = parseOpeningHours(value);
    if (parsed.ok) return parsed.hours;
    ctx.issues.push({ code: "custom", message: parsed.problem, input: value });
    return z.NEVER;
  }
  const parsed = safeParseInput(openingHoursSchema, value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    ctx.issues.push({ code: "custom", message: issue.message, path: issue.path, input: value });
  }
  return z.NEVER;
});

/** A row's coordinates: both or neither (a zod refinement's check, for the import's rows). */
export function coordinatesPaired(row: { latitude?: unknown; longitude?: unknown }): PlaceField | null {
  const lat = row.latitude === undefined || row.latitude === null;
  const lon = row.longitude === undefined || row.longitude === null;
  return lat === lon ? null : lat ? "latitude" : "longitude";
}
