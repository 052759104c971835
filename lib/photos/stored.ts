/** A stored photo as the pages and the evidence pack name it (docs/claim-page.md). */

/** A stored photo: its storage key is the SHA-256 of its bytes, recorded when it was stored. */
export interface LegPhoto {
  id: number;
  sha256: string;
  bytes: number;
  contentType: string;
}

/** The photo of a joined row's columns; null when the row names none. */
export function photoOf(
  id: number | null,
  key: string | null,
  bytes: number | null,
  type: string | null,
): LegPhoto | null {
  return id === null || key === null ? null : { id, sha256: key, bytes: bytes ?? 0, contentType: type ?? "" };
}
