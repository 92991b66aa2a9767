/**
 * Retries for operations the contract marks safe to repeat (`x-idempotent: true`): on network errors,
 * timeouts, 429 and 5xx; a bounded number of attempts with exponential backoff and jitter, waiting at
 * least what `Retry-After` asks. Every attempt sends a clone of the same request (the request itself
 * when it has no body), so the body is re-sent byte for byte. A caller's abort ends it at once.
 */
import { InvalidInputError } from "./errors.ts";
import { checkKnownKeys, checkWholeNumber, describeValue } from "./input.ts";
import type { Fetch } from "./types.ts";

export interface RetryOptions {
  /** Total attempts, the first included (default 3). */
  attempts?: number;
  /** Delay before the first retry, doubled for each next one (default 300 ms). */
  baseDelayMs?: number;
  /** Longest wait between attempts (default 10 000 ms). A `Retry-After` longer than this ends the retries. */
  maxDelayMs?: number;
}

export type RetryPolicy = Readonly<Required<RetryOptions>>;

/** The default policy, frozen: every client shares it, so no caller may change it. */
export const DEFAULT_RETRY: RetryPolicy = Object.freeze({ attempts: 3, baseDelayMs: 300, maxDelayMs: 10_000 });

const RETRY_OPTIONS = Object.keys(DEFAULT_RETRY);

export interface RetryTools {
  /** Waits `ms`, or rejects when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** A number in [0, 1), for jitter. */
  random?: () => number;
  /** The caller's abort signal, which ends the retries; default: the request's own signal. */
  signal?: AbortSignal;
  /** The request for the next attempt, made from the previous one (the client gives each attempt its own timeout). */
  next?: (request: Request) => Request;
}

/** The policy for `retry` as given to the client, checked: `false` turns retries off. */
export function settleRetry(option: RetryOptions | false | undefined): RetryPolicy | false {
  if (option === false) return false;
  if (option === undefined) return DEFAULT_RETRY;
  if (typeof option !== "object" || option === null) {
    throw new InvalidInputError(
      "retry",
      `retry must be false or an object { ${RETRY_OPTIONS.join(", ")} }, got ${describeValue(option)}`,
    );
  }
  checkKnownKeys(option, RETRY_OPTIONS, "retry", "retry");
  return Object.freeze({
    attempts: checkWholeNumber(option.attempts ?? DEFAULT_RETRY.attempts, "retry.attempts", 1, 10),
    baseDelayMs: checkWholeNumber(option.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs, "retry.baseDelayMs", 0, 60_000),
    maxDelayMs: checkWholeNumber(option.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs, "retry.maxDelayMs", 0, 300_000),
  });
}

export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/** Milliseconds a `Retry-After` header asks for (delta-seconds or an HTTP date), or undefined. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Backoff before retry number `retry` (1 for the first): exponential, capped, with jitter in its upper half. */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Sends `request` with `fetch`, retrying as the policy says. Use only for operations safe to repeat.
 * Every attempt but the last sends a clone, so the body is re-sent byte for byte.
 */
export async function sendWithRetries(
  fetch: Fetch,
  request: Request,
  policy: RetryPolicy,
  tools: RetryTools = {},
): Promise<Response> {
  const sleep = tools.sleep ?? abortableSleep;
  const cancel = tools.signal ?? request.signal;
  let current = request;
  for (let attempt = 1; ; attempt++) {
    const last = attempt >= policy.attempts;
    if (attempt > 1 && tools.next !== undefined) current = tools.next(current);
    let wait: number;
    try {
      const response = await fetch(last || current.body === null ? current : current.clone());
      if (last || !isRetryableStatus(response.status)) return response;
      const asked = retryAfterMs(response.headers.get("Retry-After"));
      if (asked !== undefined && asked > policy.maxDelayMs) return response;
      wait = Math.max(asked ?? 0, backoffMs(attempt, policy, tools.random));
      await response.body?.cancel().catch(() => undefined);
    } catch (error) {
      if (last || cancel.aborted) throw error;
      wait = backoffMs(attempt, policy, tools.random);
    }
    await sleep(wait, cancel);
  }
}
