/**
 * The handover digest (docs/handover.md "Digest"): SHA-256, lowercase hex, of a short UTF-8 text naming the
 * movement, the leg, each part with its photo's hash, the signature's and the left-at photo's hash, so what
 * was signed is bound to exactly what was photographed. A photo's hash is its storage key (the SHA-256 of
 * its bytes), so anyone can recompute the digest from the evidence pack's own files.
 */
import { createHash } from "node:crypto";
import type { MovementStage } from "@/db/schema.ts";

export interface DigestInput {
  movementId: number;
  leg: MovementStage;
  /** The leg's parts with the SHA-256 of their photo of this leg (null: none). */
  parts: { partId: number; sha256: string | null }[];
  signatureSha256: string | null;
  leftSha256: string | null;
}

/** The text the digest is taken of: one fact a line, parts by ascending id, a final newline. */
export function handoverText(d: DigestInput): string {
  const parts = [...d.parts].sort((a, b) => a.partId - b.partId);
  return [
    "parts-movement handover v1",
    `movement ${d.movementId}`,
    `leg ${d.leg}`,
    ...parts.map((p) => `part ${p.partId} ${p.sha256 ?? "none"}`),
    `signature ${d.signatureSha256 ?? "none"}`,
    `left ${d.leftSha256 ?? "none"}`,
  ].join("\n") + "\n";
}

export function handoverDigest(d: DigestInput): string {
  return createHash("sha256").update(handoverText(d), "utf8").digest("hex");
}
