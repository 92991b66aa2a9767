/**
 * Request timeouts. Every request carries an AbortSignal that aborts `timeoutMs` after the request started;
 * each retry attempt starts its own clock, and the caller's own `signal` aborts the request too.
 *
 * Requests that start within the same short window share one AbortController and one timer, which fires
 * `timeoutMs` after the window closes: a request is aborted at most one window late (at most `MAX_WINDOW_MS`,
 * and at most 1/32 of the timeout), and a client does not pay for a controller and a timer on every call
 * (on Node 20 they cost about a quarter of a call against a fast server). A window's timer is cleared once the
 * window has closed and its last request has ended; it never holds the process open (a request in flight
 * does that itself). Not `AbortSignal.timeout` joined through `AbortSignal.any`: on Node 20 that stays alive
 * until its timer fires (nodejs/node#54614).
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

/** `timeoutMs` as given to the client, checked: what `setTimeout` accepts. */
export function checkTimeout(timeoutMs: unknown): number {
  return checkWholeNumber(timeoutMs, "timeoutMs", 1, 2_147_483_647);
}

// The abort reasons of expired windows, to tell this client's timeouts from any other abort.
const timeoutReasons = new WeakSet<object>();

/** True when `error` is the abort reason of a request that ran out of time (and not, say, the caller's abort). */
export function isTimeoutReason(error: unknown): boolean {
  return typeof error === "object" && error !== null && timeoutReasons.has(error);
}

function expire(controller: AbortController, timeoutMs: number): void {
  const reason = new DOMException(`no response within ${timeoutMs} ms`, "TimeoutError");
  timeoutReasons.add(reason);
  controller.abort(reason);
}

/** Requests that started within one window, and the signal that times them all out. */
export interface TimeoutWindow {
  readonly controller: AbortController;
  readonly timer: ReturnType<typeof setTimeout>;
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
    this.windowMs = Math.min(MAX_WINDOW_MS, timeoutMs / 32);
  }

  /** The window of a request starting now; `leave` it when the request has ended. */
  join(): TimeoutWindow {
    let window = this.#current;
    if (window === undefined || window.joined === MAX_WINDOW_REQUESTS || performance.now() >= window.closesAt) {
      if (window !== undefined && window.pending === 0) clearTimeout(window.timer);
      window = this.#current = this.#open();
    }
    window.joined++;
    window.pending++;
    return window;
  }

  leave(window: TimeoutWindow): void {
    if (--window.pending === 0 && window !== this.#current) clearTimeout(window.timer);
  }

  #open(): TimeoutWindow {
    const controller = new AbortController();
    const timer = setTimeout(expire, this.windowMs + this.timeoutMs, controller, this.timeoutMs);
    (timer as { unref?: () => void }).unref?.();
    return { controller, timer, closesAt: performance.now() + this.windowMs, joined: 0, pending: 0 };
  }
}

/** One call's time limit: the signal of its current attempt, from the window the attempt started in. */
export class CallDeadline {
  /** The signal the current attempt carries. */
  signal: AbortSignal;
  /** The URL of the last attempt sent under this deadline ("" before the first). */
  url = "";
  readonly #clock: TimeoutClock;
  readonly #caller: AbortSignal | undefined;
  #window: TimeoutWindow;
  #earlier: TimeoutWindow[] | undefined;
  #onAbort: (() => void) | undefined;

  constructor(clock: TimeoutClock, caller?: AbortSignal | null) {
    this.#clock = clock;
    this.#caller = caller ?? undefined;
    this.#window = clock.join();
    this.signal = this.#signalFor(this.#window);
  }

  get timeoutMs(): number {
    return this.#clock.timeoutMs;
  }

  /** A fresh signal for the next attempt: its clock starts now. */
  renew(): AbortSignal {
    this.#unfollow();
    this.#earlier ??= [];
    this.#earlier.push(this.#window);
    this.#window = this.#clock.join();
    this.signal = this.#signalFor(this.#window);
    return this.signal;
  }

  /** Lets go of the windows and of the caller's signal: call it when the call has ended. */
  end(): void {
    this.#unfollow();
    this.#clock.leave(this.#window);
    if (this.#earlier !== undefined) for (const window of this.#earlier) this.#clock.leave(window);
  }

  #signalFor(window: TimeoutWindow): AbortSignal {
    const caller = this.#caller;
    const timeout = window.controller.signal;
    if (caller === undefined) return timeout;
    // Only a call with its own signal pays for a controller of its own, following both.
    const follower = new AbortController();
    if (caller.aborted) follower.abort(caller.reason);
    else if (timeout.aborted) follower.abort(timeout.reason);
    else {
      this.#onAbort = () => follower.abort(caller.aborted ? caller.reason : timeout.reason);
      caller.addEventListener("abort", this.#onAbort, { once: true });
      timeout.addEventListener("abort", this.#onAbort, { once: true });
    }
    return follower.signal;
  }

  #unfollow(): void {
    if (this.#onAbort === undefined) return;
    this.#caller?.removeEventListener("abort", this.#onAbort);
    this.#window.controller.signal.removeEventListener("abort", this.#onAbort);
    this.#onAbort = undefined;
  }
}
