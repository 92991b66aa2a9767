/**
 * Webhook signatures, computed and checked once for every runtime. The only thing that differs between runtimes is
 * how an HMAC-SHA256 is computed, so that is all a backend provides (as stripe-node's `CryptoProvider`): node:crypto
 * synchronously in ./node.ts, Web Crypto asynchronously in ./web.ts. Everything else (the raw-body and secret
 * checks, the form of the header, the constant-time comparison against every secret, the errors) lives here.
 */
import { type RawBody, rawBodyBytes, secretList, signatureProblem, type WebhookSecrets } from "./encoding.ts";
import { WebhookSignatureError, type WebhookSignatureFailure } from "./errors.ts";
import { parseWebhookEvent, type WebhookEvent } from "./events.ts";

/** A backend's HMAC-SHA256: the lowercase hex digest of `body` keyed by `secret` (UTF-8), as `X-Signature` holds it. */
export interface HmacSha256Provider<Digest extends string | Promise<string>> {
  hmacSha256Hex(body: string | Uint8Array, secret: string): Digest;
}

/** A body and its secrets, checked before anything is hashed; the signature too, or why it cannot be one. */
type SignatureInput =
  | { body: string | Uint8Array; secrets: string[]; signature: string; failure?: undefined }
  | { body: string | Uint8Array; secrets: string[]; failure: WebhookSignatureFailure };

/**
 * Throws WebhookRawBodyError for anything but a string or bytes (an already-parsed object) and WebhookSecretError
 * for a secret that cannot sign; a missing or malformed signature is an answer, not a throw. A string body stays a
 * string: a backend that hashes text itself (node:crypto) then never copies it into bytes.
 */
function signatureInput(rawBody: RawBody, signature: unknown, secrets: WebhookSecrets): SignatureInput {
  const body = typeof rawBody === "string" ? rawBody : rawBodyBytes(rawBody);
  const list = secretList(secrets, "secretOrSecrets");
  const problem = signatureProblem(signature);
  if (problem) return { body, secrets: list, failure: problem };
  // Backends give lowercase hex; the header may be in either case.
  return { body, secrets: list, signature: (signature as string).toLowerCase() };
}

/**
 * "mismatch" unless one of the digests equals the signature. Every digest is compared, in time that depends only on
 * the length (equal for every well-formed signature), so the timing tells neither where they differ nor which
 * secret matched.
 */
function comparison(digests: readonly string[], signature: string): WebhookSignatureFailure | undefined {
  let matched = false;
  for (const digest of digests) if (timingSafeEqual(digest, signature)) matched = true;
  return matched ? undefined : "mismatch";
}

function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

export function signatureFailure(
  provider: HmacSha256Provider<string>,
  rawBody: RawBody,
  signature: unknown,
  secrets: WebhookSecrets,
): WebhookSignatureFailure | undefined {
  const input = signatureInput(rawBody, signature, secrets);
  if (input.failure) return input.failure;
  return comparison(
    input.secrets.map((secret) => provider.hmacSha256Hex(input.body, secret)),
    input.signature,
  );
}

export async function signatureFailureAsync(
  provider: HmacSha256Provider<Promise<string>>,
  rawBody: RawBody,
  signature: unknown,
  secrets: WebhookSecrets,
): Promise<WebhookSignatureFailure | undefined> {
  const input = signatureInput(rawBody, signature, secrets);
  if (input.failure) return input.failure;
  return comparison(
    await Promise.all(input.secrets.map((secret) => provider.hmacSha256Hex(input.body, secret))),
    input.signature,
  );
}

/** The body and the one secret of a signing call, checked as for verification. */
export function signingInput(rawBody: RawBody, secret: string): { body: string | Uint8Array; secret: string } {
  const body = typeof rawBody === "string" ? rawBody : rawBodyBytes(rawBody);
  const [key] = secretList(secret, "secret");
  return { body, secret: key! };
}

/** The event of a body whose signature was checked: throws WebhookSignatureError for a failure, else parses. */
export function verifiedEvent(rawBody: RawBody, failure: WebhookSignatureFailure | undefined): WebhookEvent {
  if (failure) throw new WebhookSignatureError(failure);
  return parseWebhookEvent(rawBody);
}
