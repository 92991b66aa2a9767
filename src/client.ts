/**
 * `createPartnerClient()`: an openapi-fetch client typed by the generated `paths`, with the API key and
 * company scope as middleware, parameter checks before sending, and a transport that times out every
 * request and retries the operations the contract marks safe to repeat.
 */
import createClient, { type Client, type ClientOptions, type Middleware } from "openapi-fetch";
import type { paths } from "../generated/schema.js";
import { apiKeyMiddleware, assertApiKey, companyMiddleware } from "./auth.ts";
import { InvalidInputError, rememberRequest } from "./errors.ts";
import { operationFor } from "./operations.ts";
import { checkParameters } from "./params.ts";
import { type RetryOptions, resolveRetry, withRetries } from "./retry.ts";
import { type Environment, resolveBaseUrl } from "./servers.ts";
import { assertTimeout, DEFAULT_TIMEOUT_MS, Deadline, timeoutErrorOr, withTimeout } from "./timeout.ts";
import type { CompanyClient, PartnerClient } from "./types.ts";
import { assertUlid } from "./ulid.ts";

type Fetch = NonNullable<ClientOptions["fetch"]>;

export interface PartnerClientOptions {
  /** The partner API key, sent as `X-API-Key`. Never printed, never put in an error. */
  apiKey: string;
  /** The API address you received with your credentials, e.g. "https://api.example.com". */
  baseUrl?: string;
  /**
   * An environment from the contract's servers. The contract's hosts are still placeholders under
   * `.invalid`, so this throws until real hosts are published: pass `baseUrl` instead.
   */
  environment?: Environment;
  /** Acting company (a ULID): returns a company client, as `forCompany(companyId)` would. */
  companyId?: string;
  /** The fetch to send requests with (openapi-fetch's signature: it receives a `Request`). Default: globalThis.fetch. */
  fetch?: Fetch;
  /** Milliseconds each request (each attempt) may take before it is aborted. Default 30 000. */
  timeoutMs?: number;
  /** Retries for operations safe to repeat; `false` turns them off. Default: 3 attempts, 300 ms doubling, at most 10 s apart. */
  retry?: RetryOptions | false;
}

const KNOWN_OPTIONS = new Set(["apiKey", "baseUrl", "environment", "companyId", "fetch", "timeoutMs", "retry"]);
const NEVER = new AbortController().signal;
const globalFetch: Fetch = (request) => globalThis.fetch(request);
const METHODS = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"] as const;

interface Settings {
  apiKey: string;
  baseUrl: string;
  fetch: Fetch | undefined;
  timeoutMs: number;
  retry: ReturnType<typeof resolveRetry>;
}

function settingsOf(options: PartnerClientOptions): Settings {
  if (!options || typeof options !== "object")
    throw new InvalidInputError(
      "options",
      "createPartnerClient() takes an options object with at least apiKey and baseUrl",
    );
  const unknown = Object.keys(options).filter((key) => !KNOWN_OPTIONS.has(key));
  if (unknown.length > 0) {
    throw new InvalidInputError(
      unknown[0]!,
      `unknown option ${unknown.map((k) => `"${k}"`).join(", ")}; known: ${[...KNOWN_OPTIONS].join(", ")}`,
    );
  }
  assertApiKey(options.apiKey);
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    throw new InvalidInputError(
      "fetch",
      `fetch must be a function (request: Request) => Promise<Response>, got ${typeof options.fetch}`,
    );
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  assertTimeout(timeoutMs);
  return {
    apiKey: options.apiKey,
    baseUrl: resolveBaseUrl(options),
    fetch: options.fetch,
    timeoutMs,
    retry: resolveRetry(options.retry),
  };
}

/** Sends every call through the timeout and, for operations safe to repeat, the retry transport. */
function withTransport(inner: Client<paths>, settings: Settings): Client<paths> {
  const call =
    (method: (typeof METHODS)[number]) =>
    async (url: string, init: Record<string, unknown> = {}) => {
      const operation = operationFor(method, url);
      // Bad input is caught before a request is even built.
      if (operation) checkParameters(method, url, (init.params ?? {}) as Parameters<typeof checkParameters>[2]);
      const base: Fetch = (init.fetch as Fetch | undefined) ?? settings.fetch ?? globalFetch;
      const callerSignal = (init.signal as AbortSignal | null | undefined) ?? undefined;
      const deadline = new Deadline(settings.timeoutMs, callerSignal);
      let transport = withTimeout(base, deadline);
      if (operation?.idempotent && settings.retry)
        transport = withRetries(transport, settings.retry, { signal: callerSignal ?? NEVER });
      try {
        // The deadline's signal goes on the request openapi-fetch builds: no copy of the request per call.
        const result = await (inner[method] as (url: string, init: unknown) => Promise<{ response: Response }>)(url, {
          ...init,
          signal: deadline.signal,
          fetch: transport,
        });
        rememberRequest(result.response, {
          method,
          url: deadline.url,
          operationId: operation?.operationId,
          secrets: [settings.apiKey],
        });
        return result;
      } catch (error) {
        // The clock also runs while openapi-fetch reads the response body.
        throw deadline.url ? timeoutErrorOr(error, deadline, method, deadline.url) : error;
      } finally {
        deadline.clear();
      }
    };
  const client = {
    use: inner.use.bind(inner),
    eject: inner.eject.bind(inner),
    request: (method: string, url: string, init?: Record<string, unknown>) => {
      const upper = method.toUpperCase() as (typeof METHODS)[number];
      if (!METHODS.includes(upper))
        throw new InvalidInputError(
          "method",
          `method must be one of ${METHODS.join(", ")}, got ${JSON.stringify(method)}`,
        );
      return call(upper)(url, init);
    },
  } as Record<string, unknown>;
  for (const method of METHODS) client[method] = call(method);
  return client as unknown as Client<paths>;
}

function build(settings: Settings, companyId: string | undefined): PartnerClient | CompanyClient {
  const inner = createClient<paths>({ baseUrl: settings.baseUrl });
  // Parameters are checked before the request is built (withTransport); the middleware sets the headers.
  const middleware: Middleware[] = [apiKeyMiddleware(settings.apiKey)];
  if (companyId !== undefined) middleware.push(companyMiddleware(companyId));
  // One middleware running both in order: openapi-fetch awaits each middleware separately.
  inner.use({
    onRequest(context) {
      for (const step of middleware) step.onRequest?.(context);
    },
  });
  const client = withTransport(inner, settings) as PartnerClient & { companyId?: string };
  Object.defineProperty(client, "forCompany", {
    value: (id: string) => {
      assertUlid(id, "companyId");
      return build(settings, id);
    },
  });
  if (companyId !== undefined) Object.defineProperty(client, "companyId", { value: companyId, enumerable: true });
  return client;
}

/**
 * Creates a client for the partner API. With `companyId` it returns a client acting for that company;
 * without, company-scope operations need `X-Company-Id` on each call (or use `client.forCompany(id)`).
 */
export function createPartnerClient(options: PartnerClientOptions & { companyId: string }): CompanyClient;
export function createPartnerClient(options: PartnerClientOptions & { companyId?: undefined }): PartnerClient;
export function createPartnerClient(options: PartnerClientOptions): PartnerClient | CompanyClient;
export function createPartnerClient(options: PartnerClientOptions): PartnerClient | CompanyClient {
  const settings = settingsOf(options);
  if (options.companyId !== undefined) assertUlid(options.companyId, "companyId");
  return build(settings, options.companyId);
}
