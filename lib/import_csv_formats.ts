/**
 * The import's CSV formats (docs/import.md "CSV files"): one kind of row per file, its columns (name,
 * required or not, an example, what it holds) and its downloadable template. lib/import_csv.ts reads a file
 * of a kind into the import's JSON document.
 */
import { PART_STATUSES } from "@/db/schema.ts";

export const CSV_KINDS = ["claims", "repairers", "hq_locations", "users"] as const;
export type CsvKind = typeof CSV_KINDS[number];
/** What an upload holds, as chosen on the page: the JSON document or one kind of CSV. */
export type UploadKind = "json" | CsvKind;

export interface CsvColumn {
  name: string;
  required: boolean;
  /** The template's example value. */
  example: string;
  /** What the page says about the column. */
  about: string;
}

export interface CsvFormat {
  kind: CsvKind;
  /** As the page names the kind. */
  label: string;
  columns: CsvColumn[];
}

const col = (name: string, required: boolean, example: string, about: string): CsvColumn => ({
  name,
  required,
  example,
  about,
});

const coordinates = [
  col("latitude", false, "-33.9173", "decimal degrees, with longitude"),
  col("longitude", false, "151.1851", "decimal degrees, with latitude"),
];

export const CSV_FORMATS: Record<CsvKind, CsvFormat> = {
  claims: {
    kind: "claims",
    label: "Claims and parts",
    columns: [
      col("claim_number", true, "CLM-1001", "one line per part; the claim's lines share it"),
      col("registration", true, "ABC123", "the same on every line of the claim (or blank after its first)"),
      col("repairer", false, "North Smash Repairs", "a repair shop known or in the same import; blank: none"),
      col("part_no", false, "52119-0K040", "blank on a line of a claim without parts"),
      col("description", false, "Front bumper cover", "free text"),
      col("qty", false, "1", "a whole number, 1 when blank"),
      col("status", false, "Arrived", `with part_no: one of ${PART_STATUSES.join(", ")}`),
    ],
  },
  repairers: {
    kind: "repairers",
    label: "Repair shops",
    columns: [
      col("name", true, "North Smash Repairs", "the shop's name, its key"),
      col("address", false, "1 Panel St", "free text"),
      col("phone", false, "02 9555 0101", "6 to 15 digits"),
      col("emails", false, "workshop@northsmash.example", "up to 10 addresses separated by ; or spaces"),
      ...coordinates,
      col("opening_hours", false, "Mon–Fri 07:30–17:00, Sat 08:00–12:00", "as typed on the places page"),
    ],
  },
  hq_locations: {
    kind: "hq_locations",
    label: "HQ locations",
    columns: [
      col("name", true, "Crash Claim HQ - Main Depot", "the location's name, its key"),
      ...coordinates,
    ],
  },
  users: {
    kind: "users",
    label: "Users",
    columns: [
      col("email", true, "dana@depot.example", "the user's key"),
      col("name", true, "Dana Driver", ""),
      col("role", true, "driver", "driver, dispatcher or admin"),
      col("pin", false, "4821", "a driver's: 4 to 8 digits (keep the cell as text)"),
      col("password", false, "", "a dispatcher's or admin's: at least 12 characters"),
      col("active", false, "true", "true or false; true when blank"),
    ],
  },
};

/** The template of a kind: its header line and one example line (CRLF, UTF-8, no formula defusing). */
export function csvTemplate(kind: CsvKind): string {
  const cell = (s: string) => /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  const { columns } = CSV_FORMATS[kind];
  return [columns.map((c) => c.name), columns.map((c) => c.example)].map((r) => r.map(cell).join(","))
    .join("\r\n") + "\r\n";
}
