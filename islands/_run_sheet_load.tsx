/**
 * Load check at HQ (docs/runs.md "Load check"): on the run sheet, the driver scans each part going onto the
 * truck. The server names the part and refuses one not ready to deliver (`POST /tablet/api/scan`, job
 * `deliver`); a part of a claim the sheet does not list to deliver is a warning, and a part of one it lists
 * is marked loaded, with each claim's count. The marks are this tablet's alone (`localStorage`, per driver
 * and depot day): nobody else sees them, and they tell the driver, not the server, what is on the truck.
 */
import { useState } from "preact/hooks";
import type { ScanAnswer } from "@/components/tablet_jobs.ts";
import type { RunSheet } from "./_run_sheet.ts";
import { ScanField, useScanner } from "./_tablet_scan.tsx";

/** What this tablet marked loaded today: part id → its claim number. */
interface Loaded {
  date: string;
  parts: Record<string, string>;
}

const loadedKey = (userId: number) => `pm.loaded.${userId}`;

/** Today's marks (a kept copy of another day is dropped). */
function loadedOf(userId: number, date: string): Loaded {
  try {
    const kept = JSON.parse(localStorage.getItem(loadedKey(userId)) ?? "null") as Loaded | null;
    if (kept?.date === date && kept.parts && typeof kept.parts === "object") return kept;
  } catch { /* unreadable: start afresh */ }
  return { date, parts: {} };
}

/**
 * Marks a scanned part loaded when the sheet lists its claim to deliver; else the warning to show. The
 * sheet lists the driver's stops and the unassigned ones (docs/runs.md).
 */
function markLoaded(userId: number, sheet: RunSheet, part: ScanAnswer): Loaded | string {
  const listed = sheet.stops.some((s) => s.deliver.some((l) => l.claimNumber === part.claim_number));
  if (!listed) {
    return `${part.part_no} (claim ${part.claim_number}, rego ${part.rego}) is not on today's run sheet: ` +
      "leave it at HQ and ask HQ about it.";
  }
  const loaded = loadedOf(userId, sheet.date);
  loaded.parts[String(part.part_id)] = part.claim_number;
  try {
    localStorage.setItem(loadedKey(userId), JSON.stringify(loaded));
  } catch { /* storage full: the mark holds until the page closes */ }
  return loaded;
}

/** **Load check**: the scan field, and each claim to deliver with how many of its parts are loaded. */
export function LoadCheck({ userId, csrf, sheet }: { userId: number; csrf: string; sheet: RunSheet }) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const scanner = useScanner("deliver", csrf, "loaded");
  const marks = loaded ?? loadedOf(userId, sheet.date);
  const count = (claim: string) => Object.values(marks.parts).filter((c) => c === claim).length;
  const lines = sheet.stops.flatMap((s) => s.deliver.filter((l) => !l.done));
  return (
    <section class="card space-y-3" aria-labelledby="load-check-heading" data-testid="load-check">
      <h2 id="load-check-heading" class="text-2xl font-bold">Load check</h2>
      <p>Scan each part as it goes onto the truck. The marks stay on this tablet.</p>
      <ScanField
        scanner={scanner}
        onCode={(code) =>
          scanner.read(code, () => ({
            onPart: (part) => {
              const result = markLoaded(userId, sheet, part);
              if (typeof result === "string") return Promise.resolve(result);
              setLoaded({ ...result });
              return Promise.resolve(true);
            },
          }))}
      />
      <ul class="grid grid-cols-1 gap-2 sm:grid-cols-2" aria-label="Loaded">
        {lines.map((l) => (
          <li key={l.claimNumber} data-testid={`loaded-${l.rego.replace(/\s+/g, "")}`}>
            <span class="font-mono">{l.rego}</span>: {Math.min(count(l.claimNumber), l.parts)} of {l.parts}
            {" "}
            loaded{count(l.claimNumber) >= l.parts ? " ✓" : ""}
          </li>
        ))}
      </ul>
    </section>
  );
}
