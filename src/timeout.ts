/**
 * Request timeouts. Every request carries an AbortSignal that aborts `timeoutMs` after the request started
 * (each retry attempt is a request of its own), and the caller's own `signal` aborts the request too.
 *
 * Requests that start within the same short window share one AbortController and one timer, which fires
 * `timeoutMs` after the window closes: a request is aborted at most one window late (at most `MAX_WINDOW_MS`,
 * and at most 1/32 of the timeout), and a client does not pay for a controller and a timer on every call
 * (on Node 20 they cost about a quarter of a call against a fast server). A window's timer is cleared once the
 * window has closed and its last request has ended; it never holds the process open (a request in flight
 * does that itself). Not `AbortSignal.timeout` joined through `AbortSignal.any`: both measure slower per call
 * (bench/RESULTS.md, "Request time limits"), and on Node 20 that stays alive until its timer fires
 * (nodejs/node#54614).
 */
import { PartnerApiError } from "./errors.ts";
import { checkWholeNumber } from "./input.ts";

/** Default time one request may take before it is aborted: 30 seconds. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The most a request is aborted late: the longest a window stays open. */
export const MAX_WINDOW_MS = 100;

/**
 * Requests per window at most. undici adds a listener to the signal of every Request built with it, and
 * adding one costs a walk of the listeners already there, so a busy window is closed early.
 */
const MAX_WINDOW_REQUESTS = 16;

/**
 * Thrown when a request got no response in time. The caller's own abort stays an `AbortError`.
 * Its `name` is "TimeoutError", as for `AbortSignal.timeout()`, so one `name` check covers both.
 */
export class RequestTimeoutError extends PartnerApiError {
  override readonly name = "TimeoutError";
  declare readonly method: string;
  declare readonly path: string;
  declare readonly timeoutMs: number;

  constructor(method: string, path: string, timeoutMs: number) {
    super(`${method} ${path} got no response within ${timeoutMs} ms (timeoutMs)`);
    Object.assign(this, { method, path, timeoutMs });
  }
}

/** `timeoutMs` as given to the client, checked: what `setTimeout` accepts. */
export function checkTimeout(timeoutMs: unknown): number {
  return checkWholeNumber(timeoutMs, "timeoutMs", 1, 2_147_483_647);
}

// The abort reasons of expired windows, to tell this client's timeouts from any other abort.
const timeoutReasons = new WeakSet<object>();

/** True when `error` is the abort reason of a request that ran out of time (and not, say, the caller's abort). */
export function isTimeoutReason(error: unknown): boolean {
  // WeakSet#has answers false for anything that is not an object.
  return timeoutReasons.has(error as object);
}

/**
 * True in Cloudflare Workers (workerd), where a timer belongs to the request that set it and is dropped when that
 * request ends: a window opened by one request would never time out another's (a client kept across requests then
 * waits forever), so there every request has a window of its own. test/runtimes' workerd run fails without this.
 */
function timersPerRequest(): boolean {
  return (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent === "Cloudflare-Workers";
}

/** Requests that started within one window, and the signal that times them all out. */
export interface TimeoutWindow {
  readonly controller: AbortController;
  readonly timer: ReturnType<typeof setTimeout>;
  /** `Date.now()` when it closes to new requests (it opened `windowMs` earlier). */
  readonly closesAt: number;
  /** Requests that joined. */
  joined: number;
  /** Requests that joined and have not ended. */
  pending: number;
}

/** One client's timeouts: hands each request the window it starts in. */
export class TimeoutClock {
  readonly timeoutMs: number;
  /** How long a window stays open: how late a request may be aborted at most. */
  readonly windowMs: number;
  #current: TimeoutWindow | undefined;

  /** `timeoutMs` must already be checked (`checkTimeout`). */
  constructor(timeoutMs: number) {
    this.timeoutMs = timeoutMs;
    this.windowMs = timersPerRequest() ? 0 : Math.min(MAX_WINDOW_MS, timeoutMs / 32);
  }

  /** The window of a request starting now; `leave` it when the request has ended. */
  join(): TimeoutWindow {
    let window = this.#current;
    const now = Date.now();
    // A wall clock set back would keep a window open too long: it then closes too.
    if (
      !window ||
      window.joined === MAX_WINDOW_REQUESTS ||
      now >= window.closesAt ||
      now < window.closesAt - this.windowMs
    ) {
      if (window?.pending === 0) clearTimeout(window.timer);
      const controller = new AbortController();
      const timer = setTimeout(() => {
        const reason = new DOMException(`no response within ${this.timeoutMs} ms`, "TimeoutError");
        timeoutReasons.add(reason);
        controller.abort(reason);
      }, this.windowMs + this.timeoutMs);
      (timer as { unref?: () => void }).unref?.();
      window = this.#current = { controller, timer, closesAt: now + this.windowMs, joined: 0, pending: 0 };
    }
    window.joined++;
    window.pending++;
    return window;
  }

  leave(window: TimeoutWindow): void {
    if (--window.pending === 0 && window !== this.#current) clearTimeout(window.timer);
  }
}

/**
 * The time limit of one request (one attempt): the signal it carries, from the window it started in. With a
 * caller's signal, a signal of its own that follows both. `end()` it when the request has ended.
 */
export class RequestDeadline {
  readonly signal: AbortSignal;
  readonly #clock: TimeoutClock;
  readonly #window: TimeoutWindow;
  readonly #caller: AbortSignal | undefined;
  #onAbort: (() => void) | undefined;

  constructor(clock: TimeoutClock, caller?: AbortSignal) {
    this.#clock = clock;
    const window = clock.join();
    this.#window = window;
    this.#caller = caller;
    let signal = window.controller.signal;
    // Only a request with the caller's own signal pays for a controller of its own.
    if (caller) {
      const timeout = signal;
      const follower = new AbortController();
      const onAbort = () => follower.abort(caller.aborted ? caller.reason : timeout.reason);
      if (caller.aborted || timeout.aborted) onAbort();
      else {
        this.#onAbort = onAbort;
        caller.addEventListener("abort", onAbort, { once: true });
        timeout.addEventListener("abort", onAbort, { once: true });
      }
      signal = follower.signal;
    }
    this.signal = signal;
  }

  /**
   * True when the request's time ran out before the caller aborted it. A runtime's fetch may reject with a copy of
   * the abort reason rather than the reason itself (workerd does), so a timeout is told by the window, not only by
   * the reason's identity (`isTimeoutReason`).
   */
  get expired(): boolean {
    return this.#window.controller.signal.aborted && !this.#caller?.aborted;
  }

  /** Lets go of the window and of the caller's signal. */
  end(): void {
    this.#clock.leave(this.#window);
    if (!this.#onAbort) return;
    this.#caller!.removeEventListener("abort", this.#onAbort);
    this.#window.controller.signal.removeEventListener("abort", this.#onAbort);
  }
}
