import { PartnerApiError } from "../errors.ts";

/**
 * Base class of the webhook kit's errors, itself a PartnerApiError: the package's one message prefix, and `name`
 * set as a literal field in each class (see PartnerApiError) so it survives minification.
 */
export class WebhookError extends PartnerApiError {
  override readonly name: string = "WebhookError";
}

export type WebhookSignatureFailure = "missing" | "malformed" | "mismatch";

/** The `X-Signature` header is absent, not 64 hex digits, or matches none of the secrets. */
export class WebhookSignatureError extends WebhookError {
  override readonly name = "WebhookSignatureError";
  readonly reason: WebhookSignatureFailure;
  constructor(reason: WebhookSignatureFailure) {
    const detail: Record<WebhookSignatureFailure, string> = {
      missing: "the X-Signature header is missing or empty",
      malformed: "the X-Signature header is not 64 hex digits (an HMAC-SHA256 digest)",
      mismatch: "the X-Signature header matches none of the signing secrets (wrong secret, or the body was changed)",
    };
    super(`webhook signature verification failed: ${detail[reason]}`);
    this.reason = reason;
  }
}

/** The body is signed correctly but is not JSON, or not an envelope of a known event type. */
export class WebhookPayloadError extends WebhookError {
  override readonly name = "WebhookPayloadError";
}

/**
 * A parsed object (or anything other than a string or bytes) was passed where the raw request body
 * is needed: the most common mistake with webhook signatures.
 */
export class WebhookRawBodyError extends WebhookError {
  override readonly name = "WebhookRawBodyError";
  constructor(argument: string, received: unknown) {
    super(
      `${argument} must be the raw request body (a string or a Uint8Array/Buffer), but ${describe(received)} was given. ` +
        "The signature is an HMAC of the exact bytes that were sent; a parsed and re-serialised object can differ in " +
        "key order, spacing, escaping or number formatting, so it cannot be verified. Read the body before any JSON " +
        'parser runs: `await request.text()` in fetch-style frameworks, `express.raw({ type: "application/json" })` ' +
        "in Express, or the raw `data` chunks of a Node `http` request.",
    );
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array (an already-parsed JSON body?)";
  if (value instanceof ArrayBuffer) return "an ArrayBuffer (wrap it: new Uint8Array(buffer))";
  if (typeof value === "object") return "an object (an already-parsed JSON body?)";
  return `a ${typeof value}`;
}

/** A secret argument that cannot sign anything (empty, or not a string). */
export class WebhookSecretError extends WebhookError {
  override readonly name = "WebhookSecretError";
}
