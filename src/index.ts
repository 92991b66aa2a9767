/** partner-api-client: the typed client for the partner API. */

export type { components, operations, paths, webhooks } from "../generated/schema.js";
export { createPartnerClient, type PartnerClientOptions } from "./client.ts";
export { ApiError, type FetchResult, InvalidInputError, unwrap } from "./errors.ts";
export { type PageablePath, type PageItem, type PaginateInit, type PaginateLimits, paginate } from "./paginate.ts";
export { DEFAULT_RETRY, type RetryOptions } from "./retry.ts";
export { ENVIRONMENTS, type Environment } from "./servers.ts";
export { DEFAULT_TIMEOUT_MS, RequestTimeoutError } from "./timeout.ts";
export type { CompanyClient, CompanyPaths, PartnerClient, WithoutCompanyHeader } from "./types.ts";
export { isUlid } from "./ulid.ts";
export * from "./webhooks/index.ts";
