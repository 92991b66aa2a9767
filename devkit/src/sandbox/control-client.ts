/**
 * The typed client of the sandbox's control API: openapi-fetch over the generated `paths` of the control
 * contract, with an account's `X-API-Key` when given. With `throwOnError: true` it works as the partner client
 * does with that option: every call resolves to `{ data, response }` (`data` typed as never undefined) or
 * throws the client package's `ApiError`, carrying the status, the problem document, the method, the path and
 * the control operation's id.
 */
import createClient, { type Client } from "openapi-fetch";
import { ApiError, HTTP_METHODS, type HttpMethod, type ThrowingClient } from "partner-api-client";
import type { paths as ControlPaths } from "../../generated/sandbox.js";
import type { ContractRouter } from "../contract/router.ts";

/** The control client with `throwOnError`: every call resolves to `{ data, response }` or throws `ApiError`. */
export type ThrowingControl = ThrowingClient<ControlPaths>;

/** Keys this long or longer are kept out of errors, as the partner client keeps its key out. */
const MIN_SECRET_LENGTH = 8;

/** The control client: openapi-fetch's `{ data, error, response }` results, or throwing on error answers. */
export type SandboxControl<ThrowOnError extends boolean = false> = ThrowOnError extends true
  ? ThrowingControl
  : Client<ControlPaths>;

export interface SandboxControlOptions {
  /** The account's API key, sent as `X-API-Key`; account-scoped operations need one. */
  apiKey?: string;
  /** `true`: every call resolves to `{ data, response }` or throws `ApiError`. Default false. */
  throwOnError?: boolean;
  /** The fetch to call with (one that bounds what it reads, or a stand-in in tests); the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/** Builds the client; `router` names the operation of a failed call in its error. */
export function controlClient(
  baseUrl: string,
  options: SandboxControlOptions,
  router: () => ContractRouter,
): SandboxControl<boolean> {
  const { apiKey, throwOnError = false, fetch } = options;
  if (apiKey !== undefined && (typeof apiKey !== "string" || apiKey === ""))
    throw new TypeError(`sandbox control client: apiKey must be a non-empty string, got ${String(apiKey)}`);
  if (typeof throwOnError !== "boolean")
    throw new TypeError(`sandbox control client: throwOnError must be true or false, got ${String(throwOnError)}`);
  if (fetch !== undefined && typeof fetch !== "function")
    throw new TypeError(`sandbox control client: fetch must be a function, got ${typeof fetch}`);
  const client = createClient<ControlPaths>({
    baseUrl,
    ...(apiKey !== undefined ? { headers: { "X-API-Key": apiKey } } : {}),
    ...(fetch !== undefined ? { fetch } : {}),
  });
  if (!throwOnError) return client;
  const throwing: Record<string, unknown> = {
    use: client.use.bind(client),
    eject: client.eject.bind(client),
  };
  type Result = { data?: unknown; error?: unknown; response: Response };
  const check = async (method: string, result: Promise<Result>): Promise<Result> => {
    const answer = await result;
    if (answer.response.ok) return answer;
    const { pathname } = new URL(answer.response.url);
    const match = router().match(method, pathname);
    throw new ApiError({
      status: answer.response.status,
      body: answer.error,
      method,
      path: pathname,
      operationId: match.kind === "operation" ? match.operation.operationId : undefined,
      declared: match.kind === "operation" && match.operation.responses.has(answer.response.status),
      // A key as short as a test account's name ("ci") is no credential, and scrubbing it would garble the message.
      secrets: apiKey !== undefined && apiKey.length >= MIN_SECRET_LENGTH ? [apiKey] : [],
    });
  };
  const inner = client as unknown as Record<string, (path: string, init?: unknown) => Promise<Result>>;
  // `satisfies`: the list written out above fails to compile once the project's list holds another method.
  for (const method of HTTP_METHODS satisfies readonly HttpMethod[]) {
    const upper = method.toUpperCase();
    throwing[upper] = (path: string, init?: unknown) => check(upper, inner[upper]!(path, init));
  }
  throwing.request = (method: string, path: string, init?: unknown) =>
    check(
      method.toUpperCase(),
      (client.request as unknown as (m: string, p: string, i?: unknown) => Promise<Result>)(method, path, init),
    );
  return throwing as unknown as SandboxControl<true>;
}
