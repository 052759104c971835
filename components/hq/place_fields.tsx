/**
 * The detail fields of a place's forms on /hq/admin/places (docs/dashboard.md "Places"): a repair shop's phone, contact e-mails, coordinates and opening hours, an HQ location's
 * coordinates. Each box has a visible label and an accessible name that says whose it is ("Phone of East
 * Panels"); the box a refusal is about is marked invalid and described by the page's error.
 */
import type { PlaceField } from "@/lib/places/details.ts";
import { MAX_EMAILS, MAX_PHONE } from "@/lib/places/details.ts";
import { MAX_HOURS_TEXT } from "@/lib/places/hours.ts";
import type { LatLng } from "@/lib/places/read.ts";
import { inputClass } from "@/components/hq/ui.tsx";

/** The id of the page's error notice, which an invalid box points at (aria-describedby). */
export const PLACE_ERROR_ID = "place-error";

/** What a form shows in its boxes: the record's values, or what was typed when the form was refused. */
export type PlaceValues = Partial<Record<PlaceField, string>>;

/** The boxes' values of a place on record. */
export function placeValues(place: {
  address?: string | null;
  phone?: string | null;
  emails?: string[];
  coordinates: LatLng | null;
  openingHoursText?: string | null;
}): PlaceValues {
  return {
    address: place.address ?? "",
    phone: place.phone ?? "",
    emails: place.emails?.join(", ") ?? "",
    latitude: place.coordinates ? String(place.coordinates.latitude) : "",
    longitude: place.coordinates ? String(place.coordinates.longitude) : "",
    opening_hours: place.openingHoursText ?? "",
  };
}

/** The invalid field of a refused form, with its typed values. */
export interface Refused {
  values: PlaceValues;
  field: PlaceField | null;
}

/** The attributes that mark the box of `field` invalid when the refusal is about it. */
export function invalidMark(field: PlaceField, invalid: PlaceField | null) {
  return invalid === field ? { "aria-invalid": "true" as const, "aria-describedby": PLACE_ERROR_ID } : {};
}

interface BoxProps {
  field: PlaceField;
  label: string;
  /** Whose box it is, for its accessible name ("Phone of East Panels"); none in an "add" form. */
  of?: string;
  values: PlaceValues;
  invalid: PlaceField | null;
  hint?: string;
  size?: number;
  maxLength?: number;
  inputMode?: "tel" | "email" | "decimal" | "text";
}

function Box({ field, label, of, values, invalid, hint, size = 14, maxLength, inputMode }: BoxProps) {
  return (
    <label class="flex flex-col gap-1">
      <span class="text-sm font-medium text-slate-700">{label}</span>
      <input
        class={inputClass}
        name={field}
        value={values[field] ?? ""}
        size={size}
        maxLength={maxLength}
        inputMode={inputMode}
        aria-label={of ? `${label} of ${of}` : undefined}
        {...invalidMark(field, invalid)}
      />
      {hint && <span class="text-sm text-slate-600">{hint}</span>}
    </label>
  );
}

/** Latitude and longitude boxes (decimal degrees). */
export function CoordinateFields(
  { of, values, invalid, hints }: {
    of?: string;
    values: PlaceValues;
    invalid: PlaceField | null;
    hints?: boolean;
  },
) {
  return (
    <>
      <Box
        field="latitude"
        label="Latitude"
        of={of}
        values={values}
        invalid={invalid}
        size={11}
        maxLength={40}
        inputMode="decimal"
        hint={hints ? "e.g. -33.8688 (or paste “lat, long”)" : undefined}
      />
      <Box
        field="longitude"
        label="Longitude"
        of={of}
        values={values}
        invalid={invalid}
        size={11}
        maxLength={40}
        inputMode="decimal"
        hint={hints ? "e.g. 151.2093" : undefined}
      />
    </>
  );
}

/** A repair shop's phone, contact e-mails, coordinates and opening hours. */
export function RepairerDetailFields(
  { of, values, invalid, hints }: {
    of?: string;
    values: PlaceValues;
    invalid: PlaceField | null;
    hints?: boolean;
  },
) {
  return (
    <>
      <Box
        field="phone"
        label="Phone"
        of={of}
        values={values}
        invalid={invalid}
        maxLength={MAX_PHONE}
        inputMode="tel"
        hint={hints ? "e.g. 02 9555 0101" : undefined}
      />
      <Box
        field="emails"
        label="Contact e-mails"
        of={of}
        values={values}
        invalid={invalid}
        size={26}
        maxLength={MAX_EMAILS * 255}
        inputMode="email"
        hint={hints ? `Separated by commas; at most ${MAX_EMAILS}` : undefined}
      />
      <CoordinateFields of={of} values={values} invalid={invalid} hints={hints} />
      <Box
        field="opening_hours"
        label="Opening hours"
        of={of}
        values={values}
        invalid={invalid}
        size={34}
        maxLength={MAX_HOURS_TEXT}
        hint={hints ? "e.g. Mon–Fri 07:30–17:00, Sat 08:00–12:00 (other days closed)" : undefined}
      />
    </>
  );
}
