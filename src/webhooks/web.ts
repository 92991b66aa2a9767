/**
 * Signature functions for runtimes with only Web Crypto (`globalThis.crypto.subtle`): edge workers, browsers.
 * They are async, and give the same answers as ./node.ts. This module imports nothing from `node:`.
 */
import {
  bytesToHex,
  hexToBytes,
  type RawBody,
  rawBodyBytes,
  secretList,
  signatureProblem,
  type WebhookSecrets,
} from "./encoding.ts";
import { WebhookError, WebhookSignatureError } from "./errors.ts";
import { parseWebhookEvent, type WebhookEvent } from "./events.ts";

const encoder = new TextEncoder();

/** Web Crypto takes only ArrayBuffer-backed views; a view of a SharedArrayBuffer is copied. */
function bufferSource(rawBody: RawBody): Uint8Array<ArrayBuffer> {
  const bytes = rawBodyBytes(rawBody);
  return bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}
const keys = new Map<string, Promise<CryptoKey>>();

function subtle(): SubtleCrypto {
  const found = globalThis.crypto?.subtle;
  if (!found)
    throw new WebhookError(
      "Web Crypto (globalThis.crypto.subtle) is not available in this runtime; use the node:crypto functions",
    );
  return found;
}

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = subtle().importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify",
    ]);
    // A few secrets live at a time (rotation); the cap only guards against callers passing ever-new ones.
    if (keys.size >= 16) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/** The `X-Signature` value of a body, computed with Web Crypto. */
export async function signWebhookPayloadAsync(rawBody: RawBody, secret: string): Promise<string> {
  const bytes = bufferSource(rawBody);
  const [key] = secretList(secret, "secret");
  return bytesToHex(new Uint8Array(await subtle().sign("HMAC", await hmacKey(key!), bytes)));
}

/** verifyWebhookSignature for Web Crypto runtimes; `crypto.subtle.verify` compares in constant time. */
export async function verifyWebhookSignatureAsync(
  rawBody: RawBody,
  signature: string | null | undefined,
  secretOrSecrets: WebhookSecrets,
): Promise<boolean> {
  return (await signatureFailureAsync(rawBody, signature, secretOrSecrets)) === undefined;
}

async function signatureFailureAsync(rawBody: RawBody, signature: unknown, secrets: WebhookSecrets) {
  const bytes = bufferSource(rawBody);
  const list = secretList(secrets, "secretOrSecrets");
  const problem = signatureProblem(signature);
  if (problem) return problem;
  const received = hexToBytes(signature as string);
  const results = await Promise.all(
    list.map(async (secret) => subtle().verify("HMAC", await hmacKey(secret), received, bytes)),
  );
  return results.includes(true) ? undefined : "mismatch";
}

/** constructWebhookEvent for Web Crypto runtimes: same checks, same errors. */
export async function constructWebhookEventAsync(
  rawBody: RawBody,
  signature: string | null | undefined,
  secrets: WebhookSecrets,
): Promise<WebhookEvent> {
  const failure = await signatureFailureAsync(rawBody, signature, secrets);
  if (failure) throw new WebhookSignatureError(failure);
  return parseWebhookEvent(rawBody);
}
