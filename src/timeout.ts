/**
 * Per-request timeouts through AbortSignal. One `Deadline` serves a call: its signal goes on the request
 * openapi-fetch builds, so the request is not copied; each attempt restarts the clock; the caller's own
 * `signal` aborts it too. Plain AbortController and setTimeout, cleared when the call ends: on Node 20,
 * `AbortSignal.timeout` joined through `AbortSignal.any` stays alive until its timer fires (nodejs/node#54614).
 */
import { InvalidInputError, PartnerApiError } from "./errors.ts";

/** Default time one request may take before it is aborted: 30 seconds. */
export const DEFAULT_TIMEOUT_MS = 30_000;

type Fetch = (request: Request, requestInitExt?: unknown) => Promise<Response>;

/**
 * Thrown when a request got no response in time. The caller's own abort stays an `AbortError`.
 * Its `name` is "TimeoutError", as for `AbortSignal.timeout()`, so one `name` check covers both.
 */
export class RequestTimeoutError extends PartnerApiError {
  override readonly name = "TimeoutError";
  readonly method: string;
  readonly path: string;
  readonly timeoutMs: number;

  constructor(method: string, path: string, timeoutMs: number) {
    super(`${method} ${path} got no response within ${timeoutMs} ms (timeoutMs)`);
    this.method = method;
    this.path = path;
    this.timeoutMs = timeoutMs;
  }
}

export function assertTimeout(timeoutMs: unknown): asserts timeoutMs is number {
  if (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2_147_483_647) {
    throw new InvalidInputError(
      "timeoutMs",
      `timeoutMs must be a whole number of milliseconds from 1 to 2147483647, got ${String(timeoutMs)}`,
    );
  }
}

/** The time limit of one call: aborts its signal `timeoutMs` after the attempt started, or when the caller aborts. */
export class Deadline {
  readonly timeoutMs: number;
  /** The URL of the last attempt sent under this deadline ("" before the first). */
  url = "";
  readonly #caller: AbortSignal | undefined;
  #controller = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #expired = false;
  readonly #onCallerAbort = () => this.#controller.abort(this.#caller?.reason);

  constructor(timeoutMs: number, caller?: AbortSignal | null) {
    assertTimeout(timeoutMs);
    this.timeoutMs = timeoutMs;
    this.#caller = caller ?? undefined;
    if (this.#caller?.aborted) this.#controller.abort(this.#caller.reason);
    else this.#caller?.addEventListener("abort", this.#onCallerAbort, { once: true });
  }

  /** The signal the current attempt carries. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True when the current attempt ran out of time (and the caller did not abort). */
  get expired(): boolean {
    return this.#expired && !this.cancelled;
  }

  /** True when the caller's own signal aborted. */
  get cancelled(): boolean {
    return this.#caller?.aborted ?? false;
  }

  /** Starts the clock for an attempt; after an attempt that timed out, a fresh signal replaces the aborted one. */
  start(): AbortSignal {
    clearTimeout(this.#timer);
    if (this.#expired && !this.cancelled) {
      this.#controller = new AbortController();
      this.#expired = false;
    }
    this.#timer = setTimeout(() => {
      this.#expired = true;
      this.#controller.abort(new DOMException(`no response within ${this.timeoutMs} ms`, "TimeoutError"));
    }, this.timeoutMs);
    return this.#controller.signal;
  }

  /** Stops the clock and lets go of the caller's signal: call it when the call has ended. */
  clear(): void {
    clearTimeout(this.#timer);
    this.#caller?.removeEventListener("abort", this.#onCallerAbort);
  }
}

/** The error to throw for `error` raised under `deadline`: a RequestTimeoutError when the time ran out. */
export function timeoutErrorOr(error: unknown, deadline: Deadline, method: string, url: string): unknown {
  return deadline.expired ? new RequestTimeoutError(method, new URL(url).pathname, deadline.timeoutMs) : error;
}

/** Wraps a fetch so each request it sends (each attempt) runs under `deadline`'s clock. */
export function withTimeout(fetch: Fetch, deadline: Deadline): Fetch {
  return async (request, requestInitExt) => {
    const signal = deadline.start();
    deadline.url = request.url;
    // The request already carries the deadline's signal unless an earlier attempt timed out.
    const attempt = request.signal.aborted ? new Request(request, { signal }) : request;
    try {
      return await fetch(attempt, requestInitExt);
    } catch (error) {
      throw timeoutErrorOr(error, deadline, request.method, request.url);
    }
  };
}
