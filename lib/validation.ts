/**
 * Shared input rules: zod schemas for the protocol's recurring fields, and the one translation of a zod
 * failure into the text of D9, `Invalid request: <path> <problem>.`, used by every face.
 */
import { z } from "zod";
import { ValidationError } from "@/lib/errors.ts";

/** The largest value of a PostgreSQL `integer` column: a larger number is no row of ours. */
export const MAX_ID = 2_147_483_647;

/** Whether `n` can be a row's id. */
export const isId = (n: unknown): n is number =>
  typeof n === "number" && Number.isSafeInteger(n) && n > 0 && n <= MAX_ID;

/** A path or form value of digits (surrounding spaces allowed), or a number, as an id; else null. */
export function parseId(value: unknown): number | null {
  const n = typeof value === "string" && /^\s*\d{1,10}\s*$/.test(value) ? Number(value) : value;
  return isId(n) ? n : null;
}

/** An ID sent as a string or a number (D10); answered as a JSON number. */
export const idField = z.union([z.number(), z.string().trim().regex(/^\d+$/, { message: "must be an ID" })])
  .transform((v) => Number(v))
  .refine(isId, { message: "must be an ID" });

/**
 * Text rules (docs/security.md "Database time bounds and text input"), one per kind of field, for every face.
 * Why: PostgreSQL refuses U+0000 in text (it used to surface as a 503), the other C0 controls and DEL have no
 * business in what people type, and the Unicode bidirectional controls (U+061C, U+200E, U+200F,
 * U+202A–U+202E, U+2066–U+2069) make a page, a CSV cell or a chat line read differently from what it holds
 * ("Trojan Source").
 * - Names and identifiers (rego, e-mail, part no., claim number, names of people and places, list filters,
 *   `event_type`): any of those controls is refused, as a validation error of the field
 *   ("must not contain control characters"): nobody types one on purpose, and silently changing a key
 *   would match something else than was asked for.
 * - Free text (a status change's reason, a part's description, a repair shop's address): tab and line
 *   breaks are kept (CRLF and CR become LF), bidirectional controls are stripped (they carry nothing the
 *   service keeps), any other C0 control or DEL is refused.
 * Output keeps a second line of defence for rows written before these rules: CSV cells and chat texts strip
 * bidirectional controls (`stripBidi`).
 */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f]/;
// deno-lint-ignore no-control-regex -- likewise
const FREE_TEXT_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const BIDI_CONTROLS = new RegExp(BIDI_CONTROL.source, "g");

/** The D9 problem of a text holding a control its field refuses. */
export const CONTROL_PROBLEM = "must not contain control characters";

/** Whether `s` may be a name or identifier: no C0 control, DEL or bidirectional control. */
export function isLineText(s: string): boolean {
  return !CONTROLS.test(s) && !BIDI_CONTROL.test(s);
}

/** `s` without bidirectional controls (free text, and CSV cells and chat texts on the way out). */
// Tested first: text almost never holds one, and a test is cheaper than a replace (a CSV export strips
// millions of cells).
export const stripBidi = (s: string): string => BIDI_CONTROL.test(s) ? s.replace(BIDI_CONTROLS, "") : s;

/** Free text as kept: bidi controls stripped, line breaks as LF; null when it holds a refused control. */
export function cleanFreeText(s: string): string | null {
  return FREE_TEXT_CONTROLS.test(s) ? null : stripBidi(s).replace(/\r\n?/g, "\n");
}

/** A name or identifier as sent, checked only for controls (see the text rules above). */
export const lineTextField = z.string().refine(isLineText, { message: CONTROL_PROBLEM });

/** A name or identifier of at most `max` characters, trimmed (see the text rules above). */
export const textField = (max: number) =>
  z.string().trim().max(max).refine(isLineText, { message: CONTROL_PROBLEM });

/** A name or key that must be given: `textField`, not empty once trimmed. */
export const requiredTextField = (max: number) => textField(max).min(1, { message: "must not be empty" });

/** Free text of at most `max` characters, trimmed and cleaned (see the text rules above). */
export const freeTextField = (max: number) =>
  z.string().max(max).refine((s) => cleanFreeText(s) !== null, { message: CONTROL_PROBLEM })
    .transform((s) => cleanFreeText(s)!.trim());

/** An e-mail address, compared in lower case. */
export const emailField = z.string().trim().max(254).refine(isLineText, { message: CONTROL_PROBLEM })
  .toLowerCase().pipe(z.email({ message: "must be an e-mail address" }));

/**
 * The e-mail typed into a sign-in form, trimmed. One holding a control character can be no user's address
 * (emailField refuses them), so it reads as empty: the sign-in answers as for any unknown address, and the
 * value never reaches the database (PostgreSQL refuses U+0000).
 */
export const signInEmailField = z.string().catch("").transform((v) => isLineText(v.trim()) ? v.trim() : "");

/** A rego as typed; the search normalises it (D11). */
export const regoField = z.string().max(64, { message: "must be at most 64 characters" })
  .refine(isLineText, { message: CONTROL_PROBLEM });

/**
 * The D9 problem text of an issue, chosen by its code and parameters. It is the per-parse error map of
 * every parse here (`PARSE_OPTIONS`), so a schema's own message (`{ message: "must be an ID" }`) takes
 * precedence over it (zod's error precedence) and every issue's `message` ends up as the final text: no
 * code reads a message to decide anything.
 */
function problemOf(issue: z.core.$ZodRawIssue): string {
  // JSON has no undefined, so an undefined input is a missing field. A missing ID field (a string-or-number
  // union) fails as invalid_union.
  if (
    (issue.code === "invalid_type" || issue.code === "invalid_value" || issue.code === "invalid_union") &&
    issue.input === undefined
  ) {
    return "is required";
  }
  switch (issue.code) {
    case "invalid_type":
      if (issue.expected === "object" || issue.expected === "record") return "must be an object";
      if (issue.expected === "array") return "must be an array";
      return `must be a ${issue.expected}`;
    case "invalid_value":
      return `must be one of ${issue.values.map(String).join(", ")}`;
    case "invalid_union":
      return "has an unexpected type";
    case "too_small":
      return issue.origin === "array" ? `must have at least ${issue.minimum} item(s)` : "is too short";
    case "too_big":
      return issue.origin === "array" ? `must have at most ${issue.maximum} items` : "is too long";
    case "invalid_format":
      return `must be ${issue.format === "email" ? "an e-mail address" : `a valid ${issue.format}`}`;
    default:
      return "is invalid";
  }
}

/** The options of every parse: issues get their D9 problem text (see problemOf). */
const PARSE_OPTIONS = { error: problemOf } as const;

/** Parses without throwing; each issue's message is its D9 problem text. For `listProblems`. */
export function safeParseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
): z.ZodSafeParseResult<z.output<S>> {
  return schema.safeParse(input, PARSE_OPTIONS);
}

/** `a.b[0].c` from a zod path. */
function formatPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${String(p)}`).join("");
}

/** Parses or throws the ValidationError of the first problem, path relative to `prefix`. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  prefix: PropertyKey[] = [],
): z.output<S> {
  const result = safeParseInput(schema, input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new ValidationError(formatPath([...prefix, ...issue.path]) || "body", issue.message);
}

/** Every problem as `path: problem` lines (the import lists them all), of an error from `safeParseInput`. */
export function listProblems(error: z.ZodError): { path: string; problem: string }[] {
  return error.issues.flatMap((issue) =>
    // One line per unknown key, naming it: "claims[1]: is invalid" would not say what to fix.
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ path: formatPath([...issue.path, key]), problem: "is not a known field" }))
      : [{ path: formatPath(issue.path) || "(file)", problem: issue.message }]
  );
}
