/**
 * `createPartnerClient()`: openapi-fetch clients typed by the generated `paths`, with the API key and the
 * company as their default headers, parameter checks before sending, and a transport that times out every
 * request and retries the operations the contract marks safe to repeat.
 *
 * Every option is checked once, where it enters (`settle`), and passed on settled. A call looks its
 * operation up once and hands the facts to the checks, the transport and the error.
 */
import createClient, {
  type Client,
  createFinalURL,
  createQuerySerializer,
  defaultPathSerializer,
  type Middleware,
  type PathSerializer,
} from "openapi-fetch";
import type { paths } from "../generated/schema.js";
import { authHeaders, checkApiKey } from "./auth.ts";
import { ApiError, rememberRequest } from "./errors.ts";
import { HTTP_METHODS, type HttpMethod, isHttpMethod } from "./http-methods.ts";
import { checkKnownKeys, fail } from "./input.ts";
import { type OperationFacts, operationFor, type UpperMethod } from "./operations.ts";
import { type CallParameters, checkParameters } from "./params.ts";
import { type RetryOptions, type RetryPolicy, settleRetry, sleep, waitBeforeRetry } from "./retry.ts";
import { type Environment, resolveBaseUrl } from "./servers.ts";
import {
  checkTimeout,
  DEFAULT_TIMEOUT_MS,
  isTimeoutReason,
  RequestDeadline,
  RequestTimeoutError,
  TimeoutClock,
} from "./timeout.ts";
import type { CompanyClient, Fetch, PartnerClient } from "./types.ts";
import { checkUlid } from "./ulid.ts";

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
  /**
   * `true`: every call resolves to `{ data, response }` or throws `ApiError` (typed so: `data` is never
   * undefined). Default `false`: calls resolve to openapi-fetch's `{ data, error, response }`.
   */
  throwOnError?: boolean;
}

const KNOWN_OPTIONS = ["apiKey", "baseUrl", "environment", "companyId", "fetch", "timeoutMs", "retry", "throwOnError"];
const NEVER = new AbortController().signal;
// Read at each call, so a fetch patched in after the client was made (a test's mock) is used.
const globalFetch: Fetch = (request) => globalThis.fetch(request);

/** The options, checked and settled once per client. */
interface Settings {
  baseUrl: string;
  apiKey: string;
  fetch: Fetch;
  clock: TimeoutClock;
  retry: RetryPolicy | false;
  throwOnError: boolean;
  /** Strings that must never appear in an error: the API key. */
  secrets: readonly string[];
}

function settle(options: PartnerClientOptions): Settings {
  if (!options || typeof options !== "object")
    fail("options", "createPartnerClient() options", "an object with at least apiKey and baseUrl", options);
  checkKnownKeys(options, KNOWN_OPTIONS, "createPartnerClient() options");
  const apiKey = checkApiKey(options.apiKey);
  if (options.fetch !== undefined && typeof options.fetch !== "function")
    fail("fetch", "fetch", "a function (request) => Promise<Response>", options.fetch);
  if (options.throwOnError !== undefined && typeof options.throwOnError !== "boolean")
    fail("throwOnError", "throwOnError", "true or false", options.throwOnError);
  return {
    baseUrl: resolveBaseUrl(options),
    apiKey,
    fetch: options.fetch ?? globalFetch,
    clock: new TimeoutClock(checkTimeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS)),
    retry: settleRetry(options.retry),
    throwOnError: options.throwOnError ?? false,
    secrets: Object.freeze([apiKey]),
  };
}

/** What one client is built on: its settings and the openapi-fetch clients it sends through. */
interface Core {
  settings: Settings;
  /** Sends the API key: operations that act for no company. */
  unscoped: Client<paths>;
  /** Sends the API key and the company: company-scope operations of a company client. */
  scoped: Client<paths>;
}

type CallInit = Record<string, unknown> & {
  params?: CallParameters;
  signal?: AbortSignal | null;
  baseUrl?: string;
  pathSerializer?: PathSerializer;
};
type CallResult = { data?: unknown; error?: unknown; response: Response };
type InnerMethod = (url: string, init: Record<string, unknown>) => Promise<CallResult>;

/**
 * One call: checked, then sent under a deadline; an operation safe to repeat is sent again (a new request
 * built by openapi-fetch from the same options, with a deadline of its own) while the policy allows.
 * No closures and no per-call wrapper of `fetch` on the way: openapi-fetch calls the client's `fetch` itself.
 */
async function send(core: Core, method: UpperMethod, path: string, init: CallInit | undefined): Promise<CallResult> {
  const operation = operationFor(method, path);
  if (operation !== undefined) checkParameters(operation, method, path, init?.params);
  const { settings } = core;
  const inner = (operation?.[2] ? core.scoped : core.unscoped)[method] as unknown as InnerMethod;
  const policy = operation?.[1] ? settings.retry : undefined;
  const caller = init?.signal ?? undefined;
  for (let attempt = 1; ; attempt++) {
    const deadline = new RequestDeadline(settings.clock, caller);
    let result: CallResult | undefined;
    let failure: unknown;
    try {
      result = await inner(
        path,
        init === undefined ? { signal: deadline.signal } : { ...init, signal: deadline.signal },
      );
    } catch (error) {
      failure = error;
    } finally {
      deadline.end();
    }
    const response = result?.response;
    if (response?.ok) return result!;
    // After a failure without an answer, the caller's own abort ends the retries.
    const wait = policy && (response || !caller?.aborted) ? waitBeforeRetry(attempt, policy, response) : undefined;
    if (wait === undefined) {
      if (response) return failed(result!, method, path, init, operation, settings);
      // The clock also ran while openapi-fetch read the response body.
      if (!isTimeoutReason(failure) && !deadline.expired) throw failure;
      throw new RequestTimeoutError(method, urlOf(path, init, settings).pathname, settings.clock.timeoutMs);
    }
    await sleep(wait, caller ?? NEVER);
  }
}

/** The URL a call went to, rebuilt the way openapi-fetch builds it (only ever needed for an error). */
function urlOf(path: string, init: CallInit | undefined, settings: Settings): URL {
  return new URL(
    createFinalURL(path, {
      baseUrl: init?.baseUrl ?? settings.baseUrl,
      params: { path: init?.params?.path as Record<string, unknown> | undefined },
      querySerializer: () => "",
      pathSerializer: init?.pathSerializer ?? defaultPathSerializer,
    }),
  );
}

/** An error answer: recorded for `unwrap()`, and thrown at once on a `throwOnError` client. */
function failed(
  result: CallResult,
  method: string,
  path: string,
  init: CallInit | undefined,
  operation: OperationFacts | undefined,
  settings: Settings,
): CallResult {
  rememberRequest(result.response, {
    method,
    url: result.response.url || urlOf(path, init, settings).href,
    operation,
    secrets: settings.secrets,
  });
  if (settings.throwOnError) throw ApiError.fromResponse(result.response, result.error);
  return result;
}

/** openapi-fetch's client members that only register things: passed on to every inner client. */
const FORWARDED = ["use", "eject"] as const;

type SendingMember<C> = {
  [Key in keyof C]: C[Key] extends (...args: never[]) => Promise<unknown> ? Key : never;
}[keyof C];
type AssertNever<T extends never> = T;
/** Every member of openapi-fetch's client, as the wrapper handles it: a method, `request`, or forwarded. */
export type WrappedMember = Uppercase<HttpMethod> | "request" | (typeof FORWARDED)[number];
/**
 * Fails to compile when openapi-fetch's client gains a member the wrapper does not handle, or a member
 * that sends a request but is only forwarded (it would bypass the timeout and retries).
 */
export type UnwrappedMembers = AssertNever<
  Exclude<keyof Client<paths>, WrappedMember> | Exclude<SendingMember<Client<paths>>, Uppercase<HttpMethod> | "request">
>;

function wrap(core: Core): Record<WrappedMember, unknown> {
  const client = {
    request: (method: string, path: string, init?: CallInit) => {
      const lower = typeof method === "string" ? method.toLowerCase() : "";
      if (!isHttpMethod(lower)) fail("method", "method", `one of ${HTTP_METHODS.join(", ")} (any case)`, method);
      return send(core, lower.toUpperCase() as UpperMethod, path, init);
    },
  } as Record<WrappedMember, unknown>;
  for (const method of HTTP_METHODS) {
    const upper = method.toUpperCase() as UpperMethod;
    client[upper] = (path: string, init?: CallInit) => send(core, upper, path, init);
  }
  const inners = new Set([core.unscoped, core.scoped]);
  for (const member of FORWARDED)
    client[member] = (...middleware: Middleware[]) => {
      for (const inner of inners) inner[member](...middleware);
    };
  return client;
}

function build(settings: Settings, companyId: string | undefined): PartnerClient | CompanyClient {
  // openapi-fetch builds its default query serializer on every call unless it is given one: build it once.
  const options = { baseUrl: settings.baseUrl, fetch: settings.fetch, querySerializer: createQuerySerializer() };
  const unscoped = createClient<paths>({ ...options, headers: authHeaders(settings.apiKey) });
  const scoped =
    companyId === undefined
      ? unscoped
      : createClient<paths>({ ...options, headers: authHeaders(settings.apiKey, companyId) });
  const client = wrap({ settings, unscoped, scoped });
  Object.defineProperty(client, "forCompany", {
    value: (id: string) => build(settings, checkUlid(id, "companyId")),
  });
  if (companyId !== undefined) Object.defineProperty(client, "companyId", { value: companyId, enumerable: true });
  return client as unknown as PartnerClient | CompanyClient;
}

/**
 * Creates a client for the partner API. With `companyId` it returns a client acting for that company;
 * without, company-scope operations need `X-Company-Id` on each call (or use `client.forCompany(id)`).
 * With `throwOnError: true`, every call resolves to `{ data, response }` or throws `ApiError`.
 */
export function createPartnerClient(
  options: PartnerClientOptions & { companyId: string; throwOnError: true },
): CompanyClient<true>;
export function createPartnerClient(
  options: PartnerClientOptions & { companyId?: undefined; throwOnError: true },
): PartnerClient<true>;
export function createPartnerClient(
  options: PartnerClientOptions & { throwOnError: true },
): PartnerClient<true> | CompanyClient<true>;
export function createPartnerClient(options: PartnerClientOptions & { companyId: string }): CompanyClient;
export function createPartnerClient(options: PartnerClientOptions & { companyId?: undefined }): PartnerClient;
export function createPartnerClient(options: PartnerClientOptions): PartnerClient | CompanyClient;
export function createPartnerClient(options: PartnerClientOptions): PartnerClient<boolean> | CompanyClient<boolean> {
  const settings = settle(options);
  const companyId = options.companyId === undefined ? undefined : checkUlid(options.companyId, "companyId");
  return build(settings, companyId);
}
