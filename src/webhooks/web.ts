/**
 * The signature functions over Web Crypto (`globalThis.crypto.subtle`): browsers, workers, edge runtimes, and Node
 * too. Async, because Web Crypto is; they run the one algorithm of ./signature.ts and give the same answers as the
 * node:crypto functions of ./node.ts. Nothing here imports from `node:`.
 */
import { bytesToHex, type RawBody, type WebhookSecrets } from "./encoding.ts";
import { WebhookError } from "./errors.ts";
import type { WebhookEvent } from "./events.ts";
import { type HmacSha256Provider, signatureFailureAsync, signingInput, verifiedEvent } from "./signature.ts";

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function subtle(): SubtleCrypto {
  const found = globalThis.crypto?.subtle;
  if (!found) {
    throw new WebhookError(
      "Web Crypto (globalThis.crypto.subtle) is not available in this runtime (browsers expose it only on https:// " +
        "and localhost pages); on Node use constructWebhookEvent, which uses node:crypto",
    );
  }
  return found;
}

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = subtle().importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    // A few secrets live at a time (rotation); the cap only guards against callers passing ever-new ones.
    if (keys.size >= 16) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/** Web Crypto takes only ArrayBuffer-backed views; text is encoded and a view of a SharedArrayBuffer copied. */
function bufferSource(body: string | Uint8Array): Uint8Array<ArrayBuffer> {
  if (typeof body === "string") return encoder.encode(body);
  return body.buffer instanceof ArrayBuffer ? (body as Uint8Array<ArrayBuffer>) : new Uint8Array(body);
}

const webCrypto: HmacSha256Provider<Promise<string>> = {
  async hmacSha256Hex(body, secret) {
    return bytesToHex(new Uint8Array(await subtle().sign("HMAC", await hmacKey(secret), bufferSource(body))));
  },
};

/** The `X-Signature` value of a body, computed with Web Crypto. */
export async function signWebhookPayloadAsync(rawBody: RawBody, secret: string): Promise<string> {
  const input = signingInput(rawBody, secret);
  return webCrypto.hmacSha256Hex(input.body, input.secret);
}

/** verifyWebhookSignature over Web Crypto: same answers, same errors. */
export async function verifyWebhookSignatureAsync(
  rawBody: RawBody,
  signature: string | null | undefined,
  secretOrSecrets: WebhookSecrets,
): Promise<boolean> {
  return (await signatureFailureAsync(webCrypto, rawBody, signature, secretOrSecrets)) === undefined;
}

/** constructWebhookEvent over Web Crypto: same checks, same errors. */
export async function constructWebhookEventAsync(
  rawBody: RawBody,
  signature: string | null | undefined,
  secrets: WebhookSecrets,
): Promise<WebhookEvent> {
  return verifiedEvent(rawBody, await signatureFailureAsync(webCrypto, rawBody, signature, secrets));
}
