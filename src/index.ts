/** partner-api-client: the typed client for the partner API. */
export { createPartnerClient, type PartnerClientOptions } from "./client.ts";
export type { CompanyClient, CompanyPaths, PartnerClient, WithoutCompanyHeader } from "./types.ts";
export { paginate, type PageablePath, type PageItem, type PaginateInit, type PaginateLimits } from "./paginate.ts";
export { ApiError, InvalidInputError, unwrap, type FetchResult } from "./errors.ts";
export { RequestTimeoutError, DEFAULT_TIMEOUT_MS } from "./timeout.ts";
export { DEFAULT_RETRY, type RetryOptions } from "./retry.ts";
export { ENVIRONMENTS, type Environment } from "./servers.ts";
export { isUlid } from "./ulid.ts";
export type { paths, components, operations, webhooks } from "../generated/schema.js";
export * from "./webhooks/index.ts";
