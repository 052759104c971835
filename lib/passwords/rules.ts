/**
 * The dashboard password rules (docs/sign-in.md "Dashboard passwords"): at least PASSWORD_MIN_LENGTH
 * characters, at most PASSWORD_MAX_LENGTH, no control characters, and not in the common-passwords list
 * shipped beside this file (its source and licence: lib/passwords/README.md). The list is read once per
 * process, on the first check. A password is compared NFC-normalised (the same text typed on two keyboards
 * is one password) and, against the list, lower-cased (the list is).
 */
import { isLineText } from "@/lib/validation.ts";

export const PASSWORD_MIN_LENGTH = 12;
/** A password manager's longest is far shorter; the cap keeps what is hashed small. */
export const PASSWORD_MAX_LENGTH = 256;

const LIST_URL = new URL("./common_passwords.txt", import.meta.url);
let common: Promise<Set<string>> | undefined;

/** The common-passwords list, loaded once. */
function commonPasswords(): Promise<Set<string>> {
  common ??= Deno.readTextFile(LIST_URL).then((text) => new Set(text.split("\n").filter(Boolean)));
  return common;
}

/** The form in which a password is hashed and checked, when set and at sign-in. */
export const normalisePassword = (password: string): string => password.normalize("NFC");

/** Whether the list holds the password (case ignored). */
export async function isCommonPassword(password: string): Promise<boolean> {
  return (await commonPasswords()).has(normalisePassword(password).toLowerCase());
}

/**
 * What is wrong with a new password, worded to follow the field's name ("The password …", or an import
 * file's path); null when it may be used.
 */
export async function passwordProblem(password: string): Promise<string | null> {
  const length = [...normalisePassword(password)].length;
  if (length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`;
  if (!isLineText(password)) return "must not contain control characters";
  if (await isCommonPassword(password)) return "is one of the most common passwords: choose another";
  return null;
}
