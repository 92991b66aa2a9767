import { WebhookRawBodyError, WebhookSecretError } from "./errors.ts";

/** What a raw webhook body may be: the exact text or bytes received. */
export type RawBody = string | Uint8Array;

/** One signing secret, or several during a rotation (any of them may match). */
export type WebhookSecrets = string | readonly string[];

/** The contract's pattern of `X-Signature`: a hex HMAC-SHA256 digest, in either letter case (the source does not say). */
const SIGNATURE_PATTERN = /^[0-9a-fA-F]{64}$/;

const encoder = new TextEncoder();

/** The bytes of a raw body; throws WebhookRawBodyError for a parsed object or any other non-raw value. */
export function rawBodyBytes(rawBody: unknown, argument = "rawBody"): Uint8Array {
  if (typeof rawBody === "string") return encoder.encode(rawBody);
  if (rawBody instanceof Uint8Array) return rawBody;
  throw new WebhookRawBodyError(argument, rawBody);
}

/** The text of a raw body (UTF-8). */
export function rawBodyText(rawBody: RawBody): string {
  return typeof rawBody === "string" ? rawBody : new TextDecoder("utf-8").decode(rawBody);
}

/** The secrets as a non-empty list; throws WebhookSecretError naming the bad one. */
export function secretList(secrets: unknown, argument = "secrets"): string[] {
  const list = typeof secrets === "string" ? [secrets] : Array.isArray(secrets) ? (secrets as unknown[]) : undefined;
  if (!list) throw new WebhookSecretError(`${argument} must be a string or a list of strings, got ${typeof secrets}`);
  if (list.length === 0) throw new WebhookSecretError(`${argument} is an empty list; give at least one signing secret`);
  list.forEach((secret, index) => {
    const name = typeof secrets === "string" ? argument : `${argument}[${index}]`;
    if (typeof secret !== "string") throw new WebhookSecretError(`${name} must be a string, got ${typeof secret}`);
    if (secret.length === 0) throw new WebhookSecretError(`${name} is empty; an empty key signs nothing`);
  });
  return list as string[];
}

/** Why a header value cannot be a signature, or undefined when it has the right form. */
export function signatureProblem(signature: unknown): "missing" | "malformed" | undefined {
  if (signature === undefined || signature === null || signature === "") return "missing";
  if (typeof signature !== "string" || !SIGNATURE_PATTERN.test(signature)) return "malformed";
  return undefined;
}

/** Lowercase hex, as node:crypto's `digest("hex")` gives it. */
export function bytesToHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
