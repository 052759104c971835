/**
 * A claim's evidence pack (docs/dashboard.md "Claim page and evidence pack"): one ZIP with the original photo
 * of every leg of every part, named `<part no>_<leg>_<time>.jpg`, a `manifest.csv` and `manifest.json`
 * listing each file with the SHA-256 recorded when the photo was stored (its storage key), and the printable
 * page as HTML.
 *
 * Streamed, never built in memory: a pull-driven generator reads one photo at a time from the store and
 * hands fflate's output on as the client takes it, so memory stays at a few chunks however many photos the
 * claim has (bench/evidence_zip.ts measures it). Photos are stored, not deflated: JPEG does not shrink.
 */
import { csvRow } from "@/io/csv.ts";
import type { PhotoStore } from "@/io/photo_storage.ts";
import { isoInZone } from "@/io/time_zone.ts";
import type { Leg, LegPhoto } from "@/lib/dashboard/claim.ts";

/** One photo of the pack: the leg it shows (the same object as in the page's data) and its file name. */
export interface EvidenceFile {
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
    files.push({ fileName, leg, photo: leg.photo });
  }
  return files;
}

const MANIFEST_COLUMNS = [
  "file",
  "sha256",
  "bytes",
  "part_no",
  "leg",
  "movement_id",
  "driver",
  "place",
  "time",
];

function manifestRows(files: EvidenceFile[], zone: string) {
  return files.map(({ fileName, leg, photo }) => ({
    file: fileName,
    sha256: photo.sha256,
    bytes: photo.bytes,
    part_no: leg.partNo,
    leg: leg.leg,
    movement_id: leg.movementId,
    driver: leg.driver,
    place: leg.place,
    time: isoInZone(leg.at, zone),
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
