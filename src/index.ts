/** partner-api-client: the typed client for the partner API. The public surface, listed name by name. */

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
// The webhook kit (helper modules under ./webhooks/).
export {
  constructWebhookEvent,
  constructWebhookEventAsync,
  createMemoryDedupeStore,
  createWebhookDeduper,
  createWebhookHandler,
  type DedupeOutcome,
  isWebhookEventType,
  type NodeRequestLike,
  type NodeResponseLike,
  parseWebhookEvent,
  type RawBody,
  signWebhookPayload,
  signWebhookPayloadAsync,
  verifyWebhookSignature,
  verifyWebhookSignatureAsync,
  type WebhookDeduper,
  type WebhookDedupeStore,
  WebhookError,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookHandlerResult,
  type WebhookHandlers,
  WebhookPayloadError,
  type WebhookPayloadOf,
  WebhookRawBodyError,
  WebhookSecretError,
  type WebhookSecrets,
  WebhookSignatureError,
  type WebhookSignatureFailure,
  type WebhookVerdict,
  webhookEventTypes,
} from "./webhooks/index.ts";
