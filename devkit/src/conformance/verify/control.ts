/** The sandbox's control API as verify uses it: found on the target or not, each call bounded, its failures in words. */

import { sandboxRouter } from "../../contract/documents.ts";
import { inert } from "../../inert.ts";
import { controlClient, type SandboxControl } from "../../sandbox/control-client.ts";
import { fetchBounded } from "../http.ts";

/** The sandbox's control API, through its typed client, each call bounded as every verify request is. */
export interface Control {
  /** The client acting for an account (its X-API-Key), or for none; its calls end with `signal` (the run's). */
  as(apiKey?: string, signal?: AbortSignal): SandboxControl<true>;
}

/** A fetch for the control client that reads the answer within fetchBounded's bounds and the run's signal. */
function boundedFetch(signal: AbortSignal): (request: Request) => Promise<Response> {
  return async (request) => {
    const body = request.body === null ? undefined : await request.text();
    const { response, text } = await fetchBounded(
      request.url,
      { method: request.method, headers: request.headers, ...(body !== undefined ? { body } : {}) },
      { signal },
    );
    if (text === undefined)
      throw new Error(
        `${request.method} ${new URL(request.url).pathname} on the sandbox's control API answered a body over the size verify reads`,
      );
    const copy = new Response(text === "" || response.status === 204 ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    Object.defineProperty(copy, "url", { value: request.url });
    return copy;
  };
}

/** A Control when the target serves the control API (`GET /_sandbox/clock` answers `{ now: <date-time> }`). */
export async function detectControl(baseUrl: string, signal: AbortSignal): Promise<Control | undefined> {
  const as = (apiKey?: string, callSignal: AbortSignal = signal) =>
    controlClient(
      baseUrl,
      { ...(apiKey !== undefined ? { apiKey } : {}), throwOnError: true, fetch: boundedFetch(callSignal) },
      sandboxRouter,
    ) as SandboxControl<true>;
  try {
    const { data } = await as().GET("/_sandbox/clock");
    const now = (data as { now?: unknown } | undefined)?.now;
    return typeof now === "string" && !Number.isNaN(Date.parse(now)) ? { as } : undefined;
  } catch {
    // No control API (or no answer in time): the run goes on without it, and stops at its first request if stopped.
    return undefined;
  }
}

/**
 * Why a call to the control API failed, in the target's own words: the status, and the problem document's title and
 * detail in full when it sent one (an ApiError's message cuts a body at 200 characters).
 */
export function setupFailure(error: unknown): string {
  const { status, body, method, path } = error as {
    status?: unknown;
    body?: unknown;
    method?: unknown;
    path?: unknown;
  };
  if (typeof status === "number" && typeof method === "string" && typeof path === "string") {
    const problem = body !== null && typeof body === "object" ? (body as { title?: unknown; detail?: unknown }) : {};
    const words = [problem.title, problem.detail].filter((part): part is string => typeof part === "string");
    const said = words.length > 0 ? words.join(": ") : typeof body === "string" && body !== "" ? body : "";
    return inert(`${method} ${path} answered ${status}${said !== "" ? ` (${said.slice(0, 1000)})` : ""}`);
  }
  return error instanceof Error ? error.message : String(error);
}
