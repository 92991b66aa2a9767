/**
 * Before the first phase: the run's signal (its deadline, the caller's stop), the reachability check, and the
 * receivers' signing secrets.
 */
import { randomBytes } from "node:crypto";
import { formatDuration } from "../../common/duration.ts";
import { UsageError } from "../../common/errors.ts";
import { redirectNote } from "../checks.ts";
import { describeFetchError, fetchBounded, RunStopped } from "../http.ts";
import { DEFAULT_MAX_DURATION_MS, type VerifyOptions } from "./options.ts";

/**
 * The first reachability check: whether the base URL answers is all it asks, so its body is never read. A
 * redirect is not followed; returns a line naming where it pointed, for the run's progress.
 */
export async function preflight(options: VerifyOptions, signal: AbortSignal): Promise<string | undefined> {
  try {
    const { response } = await fetchBounded(
      options.baseUrl,
      { method: "GET" },
      { timeoutMs: 10_000, signal, maxBytes: 0 },
    );
    const note = redirectNote(response);
    return note === "" ? undefined : `--base-url ${options.baseUrl} answered ${response.status}${note}`;
  } catch (error) {
    if (signal.aborted) throw error;
    throw new UsageError(
      `--base-url ${options.baseUrl}: cannot reach it (${describeFetchError(error)}); start the implementation or correct the URL`,
    );
  }
}

/**
 * The run's signal: aborted, with a RunStopped naming why, when the caller's signal aborts (Ctrl-C) or the run
 * has taken `maxDurationMs`. `clear` lets the deadline go.
 */
export function runSignal(options: VerifyOptions): { signal: AbortSignal; clear(): void } {
  const maxDurationMs = options.maxDurationMs ?? DEFAULT_MAX_DURATION_MS;
  const controller = new AbortController();
  const onAbort = () => controller.abort(new RunStopped("the run was stopped (Ctrl-C or a signal)"));
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new RunStopped(`the run reached its --max-duration of ${formatDuration(maxDurationMs)}`)),
    maxDurationMs,
  );
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * The signing secret of each account's receiver: the ones given, or made for the run when it registers its
 * receivers through the control API. Each account has a secret of its own, so a delivery signed with the other's
 * is caught.
 */
export function webhookSecrets(options: VerifyOptions, hasControl: boolean): Map<"main" | "other", string> {
  const secrets = new Map<"main" | "other", string>();
  const mainSecret =
    options.webhookSecret ?? (hasControl ? `whsec_verify_${randomBytes(12).toString("hex")}` : undefined);
  if (mainSecret !== undefined) secrets.set("main", mainSecret);
  const otherSecret =
    options.otherWebhookSecret ?? (hasControl ? `whsec_verify_${randomBytes(12).toString("hex")}` : undefined);
  if (otherSecret !== undefined && options.otherApiKey !== undefined) secrets.set("other", otherSecret);
  return secrets;
}
