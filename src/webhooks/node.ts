/**
 * The signature functions over node:crypto (Node, Bun, Deno): synchronous. Runtimes with only Web Crypto use the
 * async functions of ./web.ts; both run the one algorithm of ./signature.ts and give the same answers.
 */
import { createHmac } from "node:crypto";
import type { RawBody, WebhookSecrets } from "./encoding.ts";
import type { WebhookEvent } from "./events.ts";
import { type HmacSha256Provider, signatureFailure, signingInput, verifiedEvent } from "./signature.ts";

/** node:crypto hashes a string as UTF-8 itself, so a string body is never copied into bytes first. */
const nodeCrypto: HmacSha256Provider<string> = {
  hmacSha256Hex: (body, secret) => createHmac("sha256", secret).update(body).digest("hex"),
};

/** The `X-Signature` value of a body: the lowercase hex HMAC-SHA256 of its raw bytes, keyed by `secret`. */
export function signWebhookPayload(rawBody: RawBody, secret: string): string {
  const input = signingInput(rawBody, secret);
  return nodeCrypto.hmacSha256Hex(input.body, input.secret);
}

/**
 * True when `signature` is the HMAC-SHA256 of `rawBody` under any of the secrets (several during a rotation),
 * compared in constant time. False, never a throw, for a missing, empty, wrong-length or non-hex signature.
 * Throws WebhookRawBodyError when `rawBody` is not a string or bytes (e.g. an already-parsed object).
 */
export function verifyWebhookSignature(
  rawBody: RawBody,
  signature: string | null | undefined,
  secretOrSecrets: WebhookSecrets,
): boolean {
  return signatureFailure(nodeCrypto, rawBody, signature, secretOrSecrets) === undefined;
}

/**
 * Verifies the signature, then parses and returns the typed event. Throws WebhookSignatureError for a bad
 * signature, WebhookPayloadError for a body that is not JSON or not a known envelope, and WebhookRawBodyError
 * when handed anything but the raw body.
 */
export function constructWebhookEvent(
  rawBody: RawBody,
  signature: string | null | undefined,
  secrets: WebhookSecrets,
): WebhookEvent {
  return verifiedEvent(rawBody, signatureFailure(nodeCrypto, rawBody, signature, secrets));
}
