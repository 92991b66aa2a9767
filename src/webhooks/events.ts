import { webhookEventTypes } from "../../generated/contract.ts";
import type { webhooks } from "../../generated/schema.d.ts";
import { type RawBody, rawBodyBytes, rawBodyText } from "./encoding.ts";
import { WebhookPayloadError } from "./errors.ts";

export { webhookEventTypes };

/** The type of every webhook event in the contract: the keys of the generated `webhooks` interface. */
export type WebhookEventType = keyof webhooks & string;

/** The envelope of one event type, as the generated contract types describe its request body. */
export type WebhookEventOf<K extends WebhookEventType> = NonNullable<
  webhooks[K]["post"]
>["requestBody"]["content"]["application/json"];

/** Any webhook event: a union discriminated on `type`, so `payload` narrows when `type` is checked. */
export type WebhookEvent = { [K in WebhookEventType]: WebhookEventOf<K> }[WebhookEventType];

/** The `payload` of one event type. */
export type WebhookPayloadOf<K extends WebhookEventType> = WebhookEventOf<K>["payload"];

const knownTypes: ReadonlySet<string> = new Set(webhookEventTypes);

/** True when `type` is an event type of the contract. */
export function isWebhookEventType(type: unknown): type is WebhookEventType {
  return typeof type === "string" && knownTypes.has(type);
}

/**
 * Parses a raw body into a typed event, checking the envelope (`id`, `type`, `payload`, `createdAt`) and that
 * `type` is a known event type. Does not verify the signature: use constructWebhookEvent for that.
 * Throws WebhookPayloadError for a body that is not JSON or not a known envelope.
 */
export function parseWebhookEvent(rawBody: RawBody): WebhookEvent {
  const text = rawBodyText(rawBodyBytes(rawBody));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new WebhookPayloadError(`the webhook body is not JSON (${(error as Error).message})`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new WebhookPayloadError(
      `the webhook body is JSON but not an event envelope: expected an object, got ${kind(value)}`,
    );
  }
  const envelope = value as Record<string, unknown>;
  for (const field of ["id", "type", "createdAt"] as const) {
    if (typeof envelope[field] !== "string" || envelope[field] === "") {
      throw new WebhookPayloadError(
        `the event envelope's "${field}" must be a non-empty string, got ${kind(envelope[field])}`,
      );
    }
  }
  const payload = envelope.payload;
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
    throw new WebhookPayloadError(`the event envelope's "payload" must be an object, got ${kind(payload)}`);
  }
  if (!isWebhookEventType(envelope.type)) {
    throw new WebhookPayloadError(
      `unknown event type "${String(envelope.type)}"; the contract knows ${webhookEventTypes.join(", ")}`,
    );
  }
  return envelope as unknown as WebhookEvent;
}

function kind(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? `the string ${JSON.stringify(value.slice(0, 40))}` : `a ${typeof value}`;
}
