/**
 * A claim's evidence pack (docs/claim-page.md): one ZIP with the original photo
 * of every leg of every part, named `<part no>_<leg>_<time>.jpg`, each handover's signature
 * (`signatures/<movement>_<leg>.png`) or photo of where the parts were left (`left/<movement>_<leg>.jpg`,
 * docs/handover.md "Evidence pack"), a `manifest.csv` and `manifest.json` listing each file with the SHA-256
 * recorded when it was stored (its storage key) and the handover of its leg, and the printable page as HTML.
 *
 * Streamed, never built in memory: a pull-driven generator reads one photo at a time from the store and
 * hands fflate's output on as the client takes it, so memory stays at a few chunks however many photos the
 * claim has (bench/evidence_zip.ts measures it). Photos are stored, not deflated: JPEG does not shrink.
 */
import { csvRow } from "@/io/csv.ts";
import type { PhotoStore } from "@/io/photo_storage.ts";
import { isoInZone } from "@/io/time_zone.ts";
import type { Leg, LegPhoto } from "@/lib/dashboard/claim.ts";

/**
 * One file of the pack: a part's photo of a leg, or a handover's signature or left-at photo; the leg it
 * belongs to (the same object as in the page's data; for a handover's image, the first leg of its movement
 * leg) and its file name.
 */
export interface EvidenceFile {
  kind: "photo" | "signature" | "left";
  fileName: string;
  leg: Leg;
  photo: LegPhoto;
}

const EXTENSIONS: Record<string, string> = { "image/png": "png", "image/webp": "webp" };

/** Letters, digits, ".", "-", "+" stay; anything else (slashes, spaces, quotes) becomes "_". */
const sanitise = (s: string) => s.replace(/[^A-Za-z0-9.+-]/g, "_").replace(/^\.+/, "_");

/**
 * The photos of the legs that have one, with unique file names: part number, leg and the time in the
 * depot's zone ("PN-1_reverse_pickup_2026-11-21T20-30-05+1100.jpg"); a clash gets "-2", "-3".
 */
export function evidenceFiles(legs: Leg[], zone: string): EvidenceFile[] {
  const used = new Set<string>();
  const files: EvidenceFile[] = [];
  for (const leg of legs) {
    if (!leg.photo) continue;
    const time = isoInZone(leg.at, zone).replace(/\.\d{3}/, "").replaceAll(":", "-").replace(
      /-(\d\d)$/,
      "$1",
    );
    const stem = sanitise(`${leg.partNo}_${leg.leg}_${time}`);
    const ext = EXTENSIONS[leg.photo.contentType] ?? "jpg";
    let fileName = `${stem}.${ext}`;
    for (let n = 2; used.has(fileName); n++) fileName = `${stem}-${n}.${ext}`;
    used.add(fileName);
    files.push({ kind: "photo", fileName, leg, photo: leg.photo });
  }
  return [...files, ...handoverFiles(legs)];
}

/** Each movement leg's handover image once: `signatures/<movement>_<leg>.png`, `left/<movement>_<leg>.jpg`. */
function handoverFiles(legs: Leg[]): EvidenceFile[] {
  const seen = new Set<string>();
  const files: EvidenceFile[] = [];
  for (const leg of legs) {
    const h = leg.handover;
    const key = `${leg.movementId}_${leg.leg}`;
    if (!h || seen.has(key)) continue;
    seen.add(key);
    if (h.signature) {
      const ext = EXTENSIONS[h.signature.contentType] ?? "png";
      files.push({ kind: "signature", fileName: `signatures/${key}.${ext}`, leg, photo: h.signature });
    }
    if (h.left) {
      const ext = EXTENSIONS[h.left.contentType] ?? "jpg";
      files.push({ kind: "left", fileName: `left/${key}.${ext}`, leg, photo: h.left });
    }
  }
  return files;
}

const MANIFEST_COLUMNS = [
  "file",
  "sha256",
  "bytes",
  "part_no",
  "part_id",
  "leg",
  "movement_id",
  "driver",
  "place",
  "time",
  "receiver_name",
  "handover_time",
  "handover_digest",
  "unsigned_reason",
];

/**
 * One row per file. A part's photo row names its part; a handover image's row names none (it stands for
 * every part of its movement leg). Each row carries its leg's handover, empty when it has none.
 */
function manifestRows(files: EvidenceFile[], zone: string) {
  return files.map(({ kind, fileName, leg, photo }) => ({
    file: fileName,
    sha256: photo.sha256,
    bytes: photo.bytes,
    part_no: kind === "photo" ? leg.partNo : null,
    part_id: kind === "photo" ? leg.partId : null,
    leg: leg.leg,
    movement_id: leg.movementId,
    driver: leg.driver,
    place: leg.place,
    time: isoInZone(leg.at, zone),
    receiver_name: leg.handover?.receiverName ?? null,
    handover_time: leg.handover ? isoInZone(leg.handover.at, zone) : null,
    handover_digest: leg.handover?.digest ?? null,
    unsigned_reason: leg.handover?.unsignedReason ?? null,
  }));
}

/** The manifest as CSV (header, one row per photo) and JSON. */
export function manifests(files: EvidenceFile[], zone: string, claimNumber: string) {
  const rows = manifestRows(files, zone);
  const csv = csvRow(MANIFEST_COLUMNS, zone) +
    rows.map((r) => csvRow(MANIFEST_COLUMNS.map((c) => r[c as keyof typeof r]), zone)).join("");
  const json = JSON.stringify({ claim_number: claimNumber, time_zone: zone, files: rows }, null, 2) + "\n";
  return { csv, json };
}

/**
 * The ZIP as a byte stream: the photos (read through `storage.open`, in order), then the manifests and
 * `claim.html`. A photo missing from the store fails the stream (the download breaks off rather than
 * handing over a pack that silently lacks evidence).
 */
export function evidenceZip(
  storage: PhotoStore,
  files: EvidenceFile[],
  extra: { name: string; text: string }[],
): ReadableStream<Uint8Array> {
  return ReadableStream.from(zipChunks(storage, files, extra));
}

async function* zipChunks(
  storage: PhotoStore,
  files: EvidenceFile[],
  extra: { name: string; text: string }[],
) {
  // Loaded on the first download, not at start: fflate was about 15 MB of every idle process
  // (docs/performance.md "Memory and start-up").
  const { Zip, ZipDeflate, ZipPassThrough } = await import("fflate");
  const out: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, chunk) => {
    if (error) failure = error;
    else out.push(chunk);
  });
  function* drain() {
    if (failure) throw failure;
    while (out.length > 0) yield out.shift()!;
  }
  for (const { fileName, leg, photo } of files) {
    const body = await storage.open(photo.sha256);
    if (!body) throw new Error(`photo ${photo.id} (${photo.sha256}) is missing from the store`);
    const entry = new ZipPassThrough(fileName);
    entry.mtime = leg.at;
    zip.add(entry);
    for await (const chunk of body) {
      entry.push(chunk);
      yield* drain();
    }
    entry.push(new Uint8Array(0), true);
    yield* drain();
  }
  const encoder = new TextEncoder();
  for (const { name, text } of extra) {
    const entry = new ZipDeflate(name, { level: 6 });
    zip.add(entry);
    entry.push(encoder.encode(text), true);
    yield* drain();
  }
  zip.end();
  yield* drain();
}
