/**
 * The webhook kit: typed events, signature verification, deduplication and a receiver. This is the whole kit,
 * with ./node.ts (node:crypto); src/index.web.ts takes the kit from its other modules, so that a browser or worker
 * bundle never meets node:crypto.
 */

export {
  createMemoryDedupeStore,
  createWebhookDeduper,
  type DedupeOutcome,
  type WebhookDeduper,
  type WebhookDedupeStore,
} from "./dedupe.ts";
export type { RawBody, WebhookSecrets } from "./encoding.ts";
export {
  WebhookError,
  WebhookPayloadError,
  WebhookRawBodyError,
  WebhookSecretError,
  WebhookSignatureError,
  type WebhookSignatureFailure,
} from "./errors.ts";
export {
  isWebhookEventType,
  parseWebhookEvent,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  type WebhookPayloadOf,
  webhookEventTypes,
} from "./events.ts";
export {
  createWebhookHandler,
  type NodeRequestLike,
  type NodeResponseLike,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookHandlerResult,
  type WebhookHandlers,
  type WebhookVerdict,
} from "./handler.ts";
export { constructWebhookEvent, signWebhookPayload, verifyWebhookSignature } from "./node.ts";
export { constructWebhookEventAsync, signWebhookPayloadAsync, verifyWebhookSignatureAsync } from "./web.ts";
