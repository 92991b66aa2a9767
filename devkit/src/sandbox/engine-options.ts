/**
 * The options `startSandbox` (options.ts) and partner-api-devkit/msw (msw/options.ts) share, checked once for both:
 * the seed, the clock, the timed transitions, the webhook receiver and limits. No Node here: the browser bundle
 * uses it too. Each caller adds its own (a port, a state file; a base URL) and its own error prefix through `fail`.
 */
import { CLOCK_RANGE_TEXT, inClockRange } from "./clock.ts";
import {
  DEFAULT_CARD_ISSUING_SECONDS,
  DEFAULT_KYB_REVIEW_SECONDS,
  DEFAULT_WEBHOOK_TIMEOUT_SECONDS,
  MAX_REQUEST_LOG_SIZE,
  MAX_WEBHOOK_TIMEOUT_SECONDS,
} from "./defaults.ts";
import { DEFAULT_REQUEST_LOG_SIZE } from "./testmode/log.ts";

export interface EngineOptions {
  seed?: number;
  speed?: number;
  startTime?: string | Date;
  frozen?: boolean;
  webhooks?: { url: string; secret: string };
  cardIssuingSeconds?: number;
  kybReviewSeconds?: number;
  webhookTimeoutSeconds?: number;
  requestLogSize?: number;
}

/** The shared options with their defaults filled in, or `fail` called with the option and what it takes. */
export function checkedEngineOptions(options: EngineOptions, fail: (message: string) => never) {
  const seed = options.seed ?? 1;
  if (!Number.isSafeInteger(seed) || seed < 0) fail(`seed must be a non-negative integer, got ${String(options.seed)}`);
  const speed = options.speed ?? 1;
  if (typeof speed !== "number" || !Number.isFinite(speed) || speed <= 0)
    fail(`speed must be a number above 0, got ${String(options.speed)}`);
  const seconds = (name: "cardIssuingSeconds" | "kybReviewSeconds", fallback: number): number => {
    const value = options[name] ?? fallback;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
      fail(`${name} must be a number of seconds, 0 or more, got ${String(options[name])}`);
    return value;
  };
  const webhookTimeoutSeconds = options.webhookTimeoutSeconds ?? DEFAULT_WEBHOOK_TIMEOUT_SECONDS;
  if (
    typeof webhookTimeoutSeconds !== "number" ||
    !Number.isFinite(webhookTimeoutSeconds) ||
    webhookTimeoutSeconds <= 0 ||
    webhookTimeoutSeconds > MAX_WEBHOOK_TIMEOUT_SECONDS
  )
    fail(
      `webhookTimeoutSeconds must be a number of seconds above 0, at most ${MAX_WEBHOOK_TIMEOUT_SECONDS}, got ${String(options.webhookTimeoutSeconds)}`,
    );
  if (options.webhooks !== undefined) {
    const { url, secret } = options.webhooks ?? {};
    if (typeof url !== "string" || !/^https?:\/\/./.test(url))
      fail(`webhooks.url must be an http(s) URL, got ${String(url)}`);
    if (typeof secret !== "string" || secret === "") fail("webhooks.secret must be a non-empty string");
  }
  const startMs = options.startTime === undefined ? Date.now() : new Date(options.startTime).getTime();
  if (Number.isNaN(startMs)) fail(`startTime must be an ISO 8601 time, got ${String(options.startTime)}`);
  if (!inClockRange(startMs))
    fail(`startTime must be ${CLOCK_RANGE_TEXT} (the sandbox clock's range), got ${String(options.startTime)}`);
  if (options.frozen !== undefined && typeof options.frozen !== "boolean")
    fail(`frozen must be true or false, got ${String(options.frozen)}`);
  const requestLogSize = options.requestLogSize ?? DEFAULT_REQUEST_LOG_SIZE;
  if (!Number.isInteger(requestLogSize) || requestLogSize < 0 || requestLogSize > MAX_REQUEST_LOG_SIZE)
    fail(
      `requestLogSize must be a whole number from 0 to ${MAX_REQUEST_LOG_SIZE}, got ${String(options.requestLogSize)}`,
    );
  return {
    seed,
    speed,
    startMs,
    frozen: options.frozen ?? false,
    cardIssuingSeconds: seconds("cardIssuingSeconds", DEFAULT_CARD_ISSUING_SECONDS),
    kybReviewSeconds: seconds("kybReviewSeconds", DEFAULT_KYB_REVIEW_SECONDS),
    webhookTimeoutMs: webhookTimeoutSeconds * 1000,
    requestLogSize,
    ...(options.webhooks ? { webhooks: { url: options.webhooks.url, secret: options.webhooks.secret } } : {}),
  };
}
