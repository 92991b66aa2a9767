/**
 * Signature functions for runtimes with `node:crypto` (Node, Bun, Deno). For runtimes with only Web Crypto,
 * use the async variants in ./web.ts: they give the same answers.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { type RawBody, rawBodyBytes, secretList, signatureProblem, type WebhookSecrets } from "./encoding.ts";
import { WebhookSignatureError } from "./errors.ts";
import { parseWebhookEvent, type WebhookEvent } from "./events.ts";

// node:crypto hashes a string as UTF-8 itself, so a string body is never copied into a byte array first.
function hmac(body: string | Uint8Array, secret: string): Buffer {
  return createHmac("sha256", secret).update(body).digest();
}

/** The raw body as node:crypto takes it; throws WebhookRawBodyError for anything but a string or bytes. */
function rawBodyInput(rawBody: unknown): string | Uint8Array {
  return typeof rawBody === "string" ? rawBody : rawBodyBytes(rawBody);
}

/** The `X-Signature` value of a body: the lowercase hex HMAC-SHA256 of its raw bytes, keyed by `secret`. */
export function signWebhookPayload(rawBody: RawBody, secret: string): string {
  const body = rawBodyInput(rawBody);
  const [key] = secretList(secret, "secret");
  return hmac(body, key!).toString("hex");
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
  return signatureFailure(rawBody, signature, secretOrSecrets) === undefined;
}

function signatureFailure(rawBody: RawBody, signature: unknown, secrets: WebhookSecrets) {
  const body = rawBodyInput(rawBody);
  const keys = secretList(secrets, "secretOrSecrets");
  const problem = signatureProblem(signature);
  if (problem) return problem;
  const received = Buffer.from(signature as string, "hex");
  let matched = false;
  // Every secret is tried, so the time taken does not tell which one matched.
  for (const key of keys) {
    const expected = hmac(body, key);
    if (expected.length === received.length && timingSafeEqual(expected, received)) matched = true;
  }
  return matched ? undefined : "mismatch";
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
  const failure = signatureFailure(rawBody, signature, secrets);
  if (failure) throw new WebhookSignatureError(failure);
  return parseWebhookEvent(rawBody);
}
