/**
 * partner-api-client: the typed client for the partner API. Its public surface, listed name by name, once: this
 * is the package root for runtimes without Node built-ins (browsers, workers, edge runtimes: package.json's
 * `browser`, `worker`, `workerd` and `edge-light` export conditions), so a bundle for those never meets
 * `node:crypto`; ./index.ts, the root for Node, is this surface and the three node:crypto webhook functions (here,
 * their Web Crypto twins `…Async`). test/runtimes/entries.test.ts holds the two roots to that.
 */

export type { components, operations, paths, webhooks } from "../generated/schema.js";
export { createPartnerClient, type PartnerClientOptions } from "./client.ts";
export {
  ApiError,
  type ApiErrorOf,
  type DeclaredErrorStatus,
  ERROR_PREFIX,
  type FetchResult,
  InvalidInputError,
  isApiError,
  PartnerApiError,
  unwrap,
} from "./errors.ts";
export { HTTP_METHODS, type HttpMethod, isHttpMethod } from "./http-methods.ts";
export {
  type PageablePath,
  type PageItem,
  PageLimitError,
  type PaginateInit,
  type PaginateLimits,
  paginate,
} from "./paginate.ts";
export { DEFAULT_RETRY, type RetryOptions } from "./retry.ts";
export { ENVIRONMENTS, type Environment } from "./servers.ts";
export { DEFAULT_TIMEOUT_MS, RequestTimeoutError } from "./timeout.ts";
export type {
  CompanyClient,
  CompanyPaths,
  Fetch,
  PartnerClient,
  SuccessResult,
  ThrowingClient,
  WithoutCompanyHeader,
} from "./types.ts";
export { isUlid } from "./ulid.ts";
// The webhook kit, from its modules that import nothing from `node:` (./webhooks/index.ts also holds ./webhooks/node.ts).
export {
  createMemoryDedupeStore,
  createWebhookDeduper,
  type DedupeOutcome,
  type WebhookDeduper,
  type WebhookDedupeStore,
} from "./webhooks/dedupe.ts";
export type { RawBody, WebhookSecrets } from "./webhooks/encoding.ts";
export {
  WebhookError,
  WebhookPayloadError,
  WebhookRawBodyError,
  WebhookSecretError,
  WebhookSignatureError,
  type WebhookSignatureFailure,
} from "./webhooks/errors.ts";
export {
  isWebhookEventType,
  parseWebhookEvent,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  type WebhookPayloadOf,
  webhookEventTypes,
} from "./webhooks/events.ts";
export {
  createWebhookHandler,
  type NodeRequestLike,
  type NodeResponseLike,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookHandlerResult,
  type WebhookHandlers,
  type WebhookVerdict,
} from "./webhooks/handler.ts";
export { constructWebhookEventAsync, signWebhookPayloadAsync, verifyWebhookSignatureAsync } from "./webhooks/web.ts";
