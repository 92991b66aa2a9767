/**
 * The retry policy for operations the contract marks safe to repeat (`x-idempotent: true`): on network
 * errors, timeouts, 429 and 5xx; a bounded number of attempts with exponential backoff and jitter, waiting
 * at least what `Retry-After` asks. The client runs the loop (src/client.ts): each attempt is a call of its
 * own, built by openapi-fetch from the same options, with its own timeout. A caller's abort ends it at once.
 */
import { checkKnownKeys, checkWholeNumber, fail } from "./input.ts";

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

const RETRY_OPTIONS = Object.keys(DEFAULT_RETRY) as (keyof RetryPolicy)[];
/** The largest value each option may take (the smallest: 1 attempt, 0 ms). */
const RETRY_MAX: RetryPolicy = { attempts: 10, baseDelayMs: 60_000, maxDelayMs: 300_000 };

/** The policy for `retry` as given to the client, checked: `false` turns retries off. */
export function settleRetry(option: RetryOptions | false | undefined): RetryPolicy | false {
  if (option === false) return false;
  if (option === undefined) return DEFAULT_RETRY;
  if (typeof option !== "object" || option === null)
    fail("retry", "retry", `false or an object { ${RETRY_OPTIONS.join(", ")} }`, option);
  checkKnownKeys(option, RETRY_OPTIONS, "retry", "retry");
  const policy: Partial<Record<keyof RetryPolicy, number>> = {};
  for (const key of RETRY_OPTIONS)
    policy[key] = checkWholeNumber(
      option[key] ?? DEFAULT_RETRY[key],
      `retry.${key}`,
      +(key === "attempts"),
      RETRY_MAX[key],
    );
  return Object.freeze(policy as RetryPolicy);
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

/** Waits `ms`, or rejects with the abort reason as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
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
 * Milliseconds to wait before retrying after attempt number `attempt` got `response` (or, without one, failed:
 * a network error or a timeout), or undefined when the outcome stands: the last attempt, a status other than
 * 429 and 5xx, or a `Retry-After` longer than `maxDelayMs`.
 */
export function waitBeforeRetry(
  attempt: number,
  policy: RetryPolicy,
  response?: Response,
  random: () => number = Math.random,
): number | undefined {
  if (attempt >= policy.attempts || (response && response.status !== 429 && response.status < 500)) return undefined;
  const asked = response && retryAfterMs(response.headers.get("Retry-After"));
  return asked !== undefined && asked > policy.maxDelayMs
    ? undefined
    : Math.max(asked ?? 0, backoffMs(attempt, policy, random));
}
