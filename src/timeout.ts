/**
 * Per-request timeouts: each request (each attempt, when retried) gets an `AbortSignal.timeout`
 * combined with the caller's own `signal`, so either one ends it.
 */
import { InvalidInputError } from "./errors.ts";

/** Default time one request may take before it is aborted: 30 seconds. */
export const DEFAULT_TIMEOUT_MS = 30_000;

type Fetch = (request: Request, requestInitExt?: unknown) => Promise<Response>;

/** Thrown when a request got no response in time. The caller's own abort stays an `AbortError`. */
export class RequestTimeoutError extends Error {
  override readonly name = "TimeoutError";
  readonly method: string;
  readonly path: string;
  readonly timeoutMs: number;

  constructor(method: string, path: string, timeoutMs: number) {
    super(`partner-api-client: ${method} ${path} got no response within ${timeoutMs} ms (timeoutMs)`);
    this.method = method;
    this.path = path;
    this.timeoutMs = timeoutMs;
  }
}

export function assertTimeout(timeoutMs: unknown): asserts timeoutMs is number {
  if (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2_147_483_647) {
    throw new InvalidInputError("timeoutMs", `timeoutMs must be a whole number of milliseconds from 1 to 2147483647, got ${String(timeoutMs)}`);
  }
}

/** Wraps a fetch so every request it sends is aborted after `timeoutMs`. */
export function withTimeout(fetch: Fetch, timeoutMs: number): Fetch {
  assertTimeout(timeoutMs);
  return async (request, requestInitExt) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const timed = new Request(request, { signal: AbortSignal.any([request.signal, timeout]) });
    try {
      return await fetch(timed, requestInitExt);
    } catch (error) {
      if (timeout.aborted && !request.signal.aborted) {
        throw new RequestTimeoutError(request.method, new URL(request.url).pathname, timeoutMs);
      }
      throw error;
    }
  };
}
