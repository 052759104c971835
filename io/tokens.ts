/**
 * Random secrets and their stored form, shared by sessions (lib/sessions.ts) and upload tokens
 * (lib/photos/upload_tokens.ts, lib/photos/upload.ts): 32 random bytes in unpadded base64url (43 characters), and
 * the only thing the database keeps of a token, its SHA-256 in hex.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";

const TOKEN_BYTES = 32;

/** Unpadded base64url (RFC 4648 §5) of the bytes. */
export function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

/** A fresh random token: 32 bytes in base64url, 43 characters of A-Z a-z 0-9 - _. */
export function randomToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(TOKEN_BYTES)));
}

/** What is stored of a token: its SHA-256, hex. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A fresh token and the only thing kept of it, its SHA-256. */
export function mintToken(): { token: string; hash: string } {
  const token = randomToken();
  return { token, hash: hashToken(token) };
}
