/**
 * The sandbox's control API (`/_sandbox/…`, generated/sandbox.json), as verify uses it when the target serves
 * it: to set up what the partner API cannot (card holders and wallets to name, a payment route, a deposit,
 * KYC and onboarding changes, clock advances, webhook receivers). Detected by `GET /_sandbox/clock` answering
 * `{ "now": "<date-time>" }`, as the control contract declares.
 */
import { describeFetchError, fetchBounded, parseJson } from "./http.ts";

/** The control API failed a set-up call: the target misbehaves, so verify cannot go on (a failed run, not a bug). */
export class ControlError extends Error {
  override name = "ControlError";
}

export interface ControlAnswer {
  status: number;
  json?: unknown;
}

export class SandboxControl {
  /** `signal`: the run's, so a call ends when the run stops. */
  constructor(
    readonly baseUrl: string,
    private readonly signal?: AbortSignal,
  ) {}

  /** One call, read as every verify request is (http.ts `fetchBounded`): bounded in bytes and in time. */
  async call(method: string, path: string, apiKey?: string, body?: unknown): Promise<ControlAnswer> {
    const headers: Record<string, string> = {};
    if (apiKey !== undefined) headers["X-API-Key"] = apiKey;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    try {
      const { response, text } = await fetchBounded(
        `${this.baseUrl}${path}`,
        { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) },
        { signal: this.signal },
      );
      if (text === undefined)
        throw new ControlError(
          `${method} ${path} on the sandbox's control API answered a body over the size verify reads`,
        );
      return { status: response.status, ...parseJson(text) };
    } catch (error) {
      if (error instanceof ControlError || this.signal?.aborted) throw error;
      throw new ControlError(
        `the sandbox's control API did not answer ${method} ${path}: ${describeFetchError(error)}`,
      );
    }
  }

  /** The control API's own answer must be 2xx: anything else is reported as a setup step that failed. */
  async expect2xx(method: string, path: string, apiKey?: string, body?: unknown): Promise<unknown> {
    const answer = await this.call(method, path, apiKey, body);
    if (answer.status < 200 || answer.status > 299)
      throw new ControlError(`${method} ${path} on the sandbox's control API answered ${answer.status}`);
    return answer.json;
  }
}

/** A SandboxControl when the target serves the control API, otherwise undefined. */
export async function detectControl(baseUrl: string, signal?: AbortSignal): Promise<SandboxControl | undefined> {
  const control = new SandboxControl(baseUrl, signal);
  const answer = await control.call("GET", "/_sandbox/clock").catch(() => undefined);
  const now = (answer?.json as { now?: unknown } | undefined)?.now;
  return answer?.status === 200 && typeof now === "string" && !Number.isNaN(Date.parse(now)) ? control : undefined;
}
