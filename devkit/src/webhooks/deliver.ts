/**
 * The sender's side of a webhook, as the source describes it: an HTTP POST of the JSON envelope signed in
 * `X-Signature`, then up to 5 retries after 10 s, 30 s, 1 min, 2 min and 5 min while the receiver answers
 * non-2xx or cannot be reached: 6 attempts in all. (The source's "at most 5 attempts" at five intervals is
 * read as five retries; the contract, the sandbox and the guides say the same.) Every attempt carries the same
 * body bytes (so the same event id). Redirects are not followed: a 3xx answer is a failed attempt.
 */
// The client's own signing (a peer dependency): the devkit signs exactly as the partner's installed client verifies.
import { signWebhookPayloadAsync } from "partner-api-client";

/** The waits before each retry, from the source's Events section: one retry each, so 5 retries. */
export const RETRY_DELAYS_MS: readonly number[] = [10_000, 30_000, 60_000, 120_000, 300_000];
/** Attempts of one delivery in all: the first and one retry per wait. */
export const DELIVERY_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** How long one attempt may take before it counts as "cannot be reached" (the source states no timeout). */
export const ATTEMPT_TIMEOUT_MS = 10_000;

export interface AttemptReport {
  attempt: number;
  of: number;
  /** The HTTP status, or undefined when the receiver could not be reached. */
  status?: number;
  statusText?: string;
  /** Why the attempt failed to reach the receiver. */
  error?: string;
  ok: boolean;
  ms: number;
  /** The wait before the next attempt (already divided by speed), when there is one. */
  nextInMs?: number;
  /** The scheduled wait before the next attempt, undivided. */
  nextScheduledMs?: number;
}

export interface DeliveryOptions {
  url: string;
  body: string;
  secret: string;
  /** Divides every wait; 1 is the real schedule. */
  speed?: number;
  delaysMs?: readonly number[];
  onAttempt?: (report: AttemptReport) => void;
  /** How long each attempt may take (default ATTEMPT_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Aborts the attempt under way (it reports an error) and any wait before the next. */
  signal?: AbortSignal;
  /** The connections' dispatcher (an undici Agent): the sandbox's checks where each name resolves. */
  dispatcher?: unknown;
  /** The body's X-Signature when the caller signed it already (signWebhookPayloadAsync of `body` with `secret`). */
  signature?: string;
}

export interface DeliveryResult {
  delivered: boolean;
  attempts: AttemptReport[];
  ms: number;
}

export async function deliverWebhook(options: DeliveryOptions): Promise<DeliveryResult> {
  const speed = options.speed ?? 1;
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const delays = options.delaysMs ?? RETRY_DELAYS_MS;
  const of = options.delaysMs === undefined ? DELIVERY_ATTEMPTS : delays.length + 1;
  // Web Crypto, as Node and browsers both have it: the sandbox delivers from a browser tab too (partner-api-devkit/msw).
  const signature = options.signature ?? (await signWebhookPayloadAsync(options.body, options.secret));
  const attempts: AttemptReport[] = [];
  const started = performance.now();
  for (let attempt = 1; attempt <= of; attempt++) {
    const attemptStarted = performance.now();
    const report: AttemptReport = { attempt, of, ok: false, ms: 0 };
    const limit = attemptLimit(timeoutMs, options.signal);
    try {
      const response = await fetch(options.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-signature": signature,
          "user-agent": "partner-api-webhooks-trigger",
        },
        body: options.body,
        // A redirect is the receiver's answer, not a place to send the signed body (or a body-less GET) to:
        // a 3xx is a failed attempt, retried like any other non-2xx.
        redirect: "manual",
        signal: limit.signal,
        ...(options.dispatcher !== undefined ? { dispatcher: options.dispatcher } : {}),
      } as RequestInit);
      await response.arrayBuffer().catch(() => undefined);
      report.status = response.status;
      report.statusText = response.statusText;
      report.ok = response.status >= 200 && response.status < 300;
    } catch (error) {
      report.error = describeFetchError(error, timeoutMs);
    } finally {
      limit.clear();
    }
    report.ms = performance.now() - attemptStarted;
    const scheduled = delays[attempt - 1];
    if (!report.ok && scheduled !== undefined) {
      report.nextScheduledMs = scheduled;
      report.nextInMs = scheduled / speed;
    }
    attempts.push(report);
    options.onAttempt?.(report);
    if (report.ok) return { delivered: true, attempts, ms: performance.now() - started };
    if (options.signal?.aborted) break;
    if (report.nextInMs !== undefined) await new Promise((resolve) => setTimeout(resolve, report.nextInMs));
  }
  return { delivered: false, attempts, ms: performance.now() - started };
}

/**
 * The signal of one attempt: aborted with a TimeoutError after `timeoutMs`, or when `outer` aborts. A timer of
 * its own rather than AbortSignal.any([AbortSignal.timeout(…), outer]), which measures slower per attempt
 * (bench/RESULTS.md, "Request time limits").
 */
function attemptLimit(timeoutMs: number, outer: AbortSignal | undefined): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError")),
    timeoutMs,
  );
  const onOuter = () => controller.abort(outer?.reason);
  if (outer?.aborted) onOuter();
  else outer?.addEventListener("abort", onOuter, { once: true });
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onOuter);
    },
  };
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === "TimeoutError") return `no answer within ${timeoutMs / 1000} s`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A fresh event id in the contract examples' form: `evt_` and a ULID (48-bit time, 80 random bits). */
export function newEventId(now: number = Date.now()): string {
  let time = "";
  for (let i = 0, t = now; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  const random = crypto.getRandomValues(new Uint8Array(16));
  let rest = "";
  for (const byte of random) rest += CROCKFORD[byte % 32];
  return `evt_${time}${rest}`;
}
