/**
 * The client's errors, all under `PartnerApiError`: `ApiError` for a non-2xx answer, `InvalidInputError`
 * for a wrong option or request parameter (thrown before anything is sent), `RequestTimeoutError` and
 * `PageLimitError` (in their modules), and the webhook kit's errors. None ever holds the API key: errors
 * keep only what they print, and text from the server is scrubbed of the key.
 */

import type { operations } from "../generated/schema.js";
import type { OperationFacts } from "./operations.ts";

/** Every message of the package's errors starts with this, so logs can tell them apart. */
export const ERROR_PREFIX = "partner-api-client: ";
const REDACTED = "[REDACTED]";

/**
 * The base class of every error this package throws: `catch (e) { if (e instanceof PartnerApiError) … }`.
 * Each subclass sets `name` as a string literal field rather than from `new.target.name`, because
 * minifiers rename classes (esbuild turns `class ApiError` into `class n`) and `name` must survive a
 * partner's bundler; the literal type also lets `error.name` narrow.
 */
export class PartnerApiError extends Error {
  override readonly name: string = "PartnerApiError";

  constructor(message: string, options?: ErrorOptions) {
    super(ERROR_PREFIX + message, options);
  }
}

/** Bad input caught before anything is sent: names the input and the form it must take. */
export class InvalidInputError extends PartnerApiError {
  override readonly name = "InvalidInputError";
  /** The option or parameter that was wrong, e.g. `cardId` or `companyId`. */
  declare readonly input: string;

  constructor(input: string, message: string) {
    super(message);
    this.input = input;
  }
}

/** What the client remembers about the request behind an error answer, so `unwrap()` can say which call failed. */
export interface RequestInfo {
  method: string;
  /** The full URL the request went to. */
  url: string;
  /** What the contract says about the operation, when the path is one of its templates. */
  operation: OperationFacts | undefined;
  /** Strings that must never appear in an error (the API key). */
  secrets: readonly string[];
}

const requestInfo = new WeakMap<Response, RequestInfo>();

/** Records which request an error answer answers; called by the client for every non-2xx response. */
export function rememberRequest(response: Response, info: RequestInfo): void {
  requestInfo.set(response, info);
}

/** Replaces every occurrence of a secret in a string, or in the strings (keys too) of a JSON value, with a marker. */
function redact<T>(value: T, secrets: readonly string[], depth = 0): T {
  if (typeof value === "string") {
    let text: string = value;
    for (const secret of secrets) if (secret) text = text.split(secret).join(REDACTED);
    return text as T;
  }
  if (depth > 50 || value === null || typeof value !== "object") return value;
  const scrub = (item: unknown) => redact(item, secrets, depth + 1);
  return (
    Array.isArray(value) ? value.map(scrub) : Object.fromEntries(Object.entries(value).map((entry) => entry.map(scrub)))
  ) as T;
}

/**
 * A non-2xx answer from the API, thrown by `unwrap()` and by every call of a `throwOnError` client.
 * `isApiError(error, operationId)` narrows it to what the contract declares for that operation.
 */
export class ApiError extends PartnerApiError {
  override readonly name = "ApiError";
  // Declared, not defined: the constructor sets each (class field definitions would cost bytes in every bundle).
  declare readonly status: number;
  /** True when the contract declares this status for the operation (then `status` and `body` are typed by it). */
  declare readonly declared: boolean;
  /** The parsed error body as openapi-fetch gave it (JSON, or text when it is not JSON). */
  declare readonly body: unknown;
  declare readonly method: string;
  /** The request path (without query string), e.g. `/v1/cards/01JD8X9N4E2R6T8V0W2Y4Z6A8C/unfreeze`. */
  declare readonly path: string;
  declare readonly operationId: string | undefined;
  /** The server's request id (`X-Request-Id` or `Request-Id`) when the response carried one. */
  declare readonly requestId: string | undefined;

  constructor(init: {
    status: number;
    body: unknown;
    method: string;
    path: string;
    operationId?: string | undefined;
    requestId?: string | undefined;
    declared?: boolean | undefined;
    secrets?: readonly string[] | undefined;
  }) {
    const { secrets = [], ...fields } = init;
    const [body, path, requestId] = [init.body, init.path, init.requestId].map((value) => redact(value, secrets));
    const text = body === undefined || body === "" ? "" : typeof body === "string" ? body : JSON.stringify(body);
    super(
      `${init.method} ${path}${init.operationId ? ` (${init.operationId})` : ""} answered ${init.status}` +
        `${requestId ? ` [request id ${requestId}]` : ""}${text && `: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`}`,
    );
    // Everything but the secrets; `body`, `path` and `requestId` as redacted.
    Object.assign(this, fields, { declared: !!init.declared, body, path, requestId });
  }

  /** Its own fields (name, status, declared, body, method, path, operationId, requestId) and its message. */
  toJSON(): object {
    return { ...this, message: this.message };
  }

  /** Builds the error for an openapi-fetch result, using what the client recorded about its request. */
  static fromResponse(response: Response, body: unknown): ApiError {
    const info = requestInfo.get(response);
    let path = "(unknown path)";
    try {
      path = new URL(info?.url || response.url).pathname;
    } catch {
      // No URL, or an unparsable one: the placeholder stays.
    }
    return new ApiError({
      status: response.status,
      body,
      method: info?.method ?? "(unknown method)",
      path,
      operationId: info?.operation?.[0],
      // The source names no request id header; these are the usual ones.
      requestId: response.headers.get("X-Request-Id") ?? response.headers.get("Request-Id") ?? undefined,
      declared: info?.operation?.[3]?.includes(response.status),
      secrets: info?.secrets,
    });
  }
}

type OperationId = keyof operations;
type Responses<Id extends OperationId> = operations[Id]["responses"];

/** The statuses of `Id`'s error responses (4xx and 5xx) as the contract declares them. */
export type DeclaredErrorStatus<Id extends OperationId> = {
  [Status in keyof Responses<Id>]: Status extends number
    ? `${Status}` extends `4${string}` | `5${string}`
      ? Status
      : never
    : never;
}[keyof Responses<Id>];

type ErrorBody<Id extends OperationId, Status extends keyof Responses<Id>> = Responses<Id>[Status] extends {
  content: { "application/json": infer Body };
}
  ? Body
  : unknown;

/**
 * The `ApiError` of one operation: with `declared` true, `status` is one the contract declares for it and
 * `body` that response's body; with `declared` false, any other status (a 500 from a proxy, say).
 */
export type ApiErrorOf<Id extends OperationId> =
  | {
      [Status in DeclaredErrorStatus<Id>]: ApiError & {
        readonly operationId: Id;
        readonly declared: true;
        readonly status: Status;
        readonly body: ErrorBody<Id, Status>;
      };
    }[DeclaredErrorStatus<Id>]
  | (ApiError & { readonly operationId: Id; readonly declared: false });

/** True when `error` is an `ApiError` from operation `operationId`, which it then narrows to `ApiErrorOf`. */
export function isApiError<Id extends OperationId>(error: unknown, operationId: Id): error is ApiErrorOf<Id> {
  return error instanceof ApiError && error.operationId === operationId;
}

/** An openapi-fetch result: `{ data, error, response }`. */
export interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The `data` of a successful result; throws `ApiError` for any non-2xx answer. */
export function unwrap<Result extends FetchResult>(result: Result): Exclude<Result["data"], undefined> {
  if (!result || typeof result !== "object" || !(result.response instanceof Response)) {
    throw new InvalidInputError("result", "unwrap() takes the { data, error, response } result of a client call");
  }
  if (result.error !== undefined || !result.response.ok) throw ApiError.fromResponse(result.response, result.error);
  return result.data as Exclude<Result["data"], undefined>;
}
