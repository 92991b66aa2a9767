/**
 * Text and bytes as Node and browsers both have them (TextEncoder, TextDecoder, Uint8Array; Web Crypto aside):
 * the sandbox's engine, flows and test mode run in a browser tab too (partner-api-devkit/msw). A Node Buffer is a
 * Uint8Array, so what the HTTP server reads passes as it is; where Node is there, its Buffer does the counting.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Node's Buffer when the code runs in Node (faster to count and copy with), undefined in a browser. */
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

export const EMPTY_BYTES: Uint8Array = new Uint8Array(0);

/** The UTF-8 length of a text, in bytes. */
export function utf8Length(text: string): number {
  return NodeBuffer ? NodeBuffer.byteLength(text) : encoder.encode(text).length;
}

/** A text's UTF-8 bytes, a copy of their own. */
export function utf8Bytes(text: string): Uint8Array {
  return NodeBuffer ? NodeBuffer.from(text) : encoder.encode(text);
}

/** Bytes read as UTF-8 (a text is itself). */
export function utf8Text(bytes: Uint8Array | string): string {
  if (typeof bytes === "string") return bytes;
  return decoder.decode(bytes);
}

/** The chunks one after the other, in one array (the one chunk itself when there is one). */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  if (NodeBuffer) return NodeBuffer.concat(chunks);
  let size = 0;
  for (const chunk of chunks) size += chunk.length;
  const joined = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.length;
  }
  return joined;
}

/** SHA-256 of a text's UTF-8 bytes, in lowercase hex: synchronous, where Web Crypto's digest is not. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(encoder.encode(text)));
}

/** SHA-256 of a text's UTF-8 bytes, in base64 (a Content-Security-Policy hash source). */
export function sha256Base64(text: string): string {
  let binary = "";
  for (const byte of sha256(encoder.encode(text))) binary += String.fromCharCode(byte);
  return btoa(binary);
}
