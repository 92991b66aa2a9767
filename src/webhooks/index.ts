/** The webhook kit: typed events, signature verification, deduplication and a receiver. */
export {
  WEBHOOK_ERROR_PREFIX,
  WebhookError,
  WebhookPayloadError,
  WebhookRawBodyError,
  WebhookSecretError,
  WebhookSignatureError,
  type WebhookSignatureFailure,
} from "./errors.ts";
export type { RawBody, WebhookSecrets } from "./encoding.ts";
export {
  isWebhookEventType,
  parseWebhookEvent,
  webhookEventTypes,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  type WebhookPayloadOf,
} from "./events.ts";
export { constructWebhookEvent, signWebhookPayload, verifyWebhookSignature } from "./node.ts";
export { constructWebhookEventAsync, signWebhookPayloadAsync, verifyWebhookSignatureAsync } from "./web.ts";
export {
  createMemoryDedupeStore,
  createWebhookDeduper,
  type DedupeOutcome,
  type WebhookDedupeStore,
  type WebhookDeduper,
} from "./dedupe.ts";
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
