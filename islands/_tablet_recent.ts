/**
 * The regos this tablet searched for last (found ones only), so a driver coming back to the same vehicle
 * taps instead of typing. Kept in the browser's localStorage: per tablet, the last five, newest first.
 * Storage may be unavailable (private mode, a full quota): the list is then simply empty.
 */

const KEY = "pm.recentRegos";
export const RECENT_REGOS_MAX = 5;

/**
 * Same vehicle, however it was typed: D11's comparison (lib/rego.ts normaliseRego, which browser code
 * may not import: islands take nothing from lib/).
 */
const sameVehicle = (a: string, b: string) =>
  a.replace(/[\s-]+/g, "").toUpperCase() === b.replace(/[\s-]+/g, "").toUpperCase();

export function recentRegos(): string[] {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(KEY) ?? "[]");
    if (!Array.isArray(stored)) return [];
    return stored.filter((r): r is string => typeof r === "string" && r.length > 0 && r.length <= 64)
      .slice(0, RECENT_REGOS_MAX);
  } catch {
    return [];
  }
}

/** Puts a rego first in the list (once per vehicle) and keeps the newest five. */
export function rememberRego(rego: string): void {
  const value = rego.trim().toUpperCase();
  if (!value) return;
  const list = [value, ...recentRegos().filter((r) => !sameVehicle(r, value))].slice(0, RECENT_REGOS_MAX);
  try {
    localStorage.setItem(KEY, JSON.stringify(list));
  } catch {
    // Storage full or refused: the shortcut is a convenience, the search itself worked.
  }
}
