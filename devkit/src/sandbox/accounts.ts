/**
 * Accounts by fingerprint at the HTTP front: the sandbox keeps accounts by API key, and names them everywhere it
 * shows them (the request log, faults, the dashboard) by `acct_` and 12 hex digits of the key's SHA-256. This
 * module reads the key a request acts with: its `X-API-Key`, or the account its `X-Sandbox-Account` names
 * without its key.
 */
import type { IncomingHttpHeaders } from "node:http";
import { SandboxProblem } from "./flows/flow.ts";
import { MAX_API_KEY_LENGTH } from "./limits.ts";
import { accountFingerprint } from "./testmode/log.ts";

/** The header that names an account by fingerprint instead of sending its key. */
export const SANDBOX_ACCOUNT_HEADER = "x-sandbox-account";
export const FINGERPRINT = /^acct_[0-9a-f]{12}$/;

/** Keys shorter than this are no credential (a test account's name, "ci"): their hint is the whole key. */
const MIN_SECRET_LENGTH = 8;

/** How people know an account's key without seeing it: `…` and its last four characters. */
export function keyHint(apiKey: string): string {
  return apiKey.length < MIN_SECRET_LENGTH ? apiKey : `…${apiKey.slice(-4)}`;
}

/** A header's first value; an empty one counts as absent. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) || undefined;
}

/** Where the keys of the accounts that have called are found by fingerprint (the engine). */
export interface AccountKeys {
  apiKeyOf(fingerprint: string): string | undefined;
}

/**
 * The API key a request acts with: its X-API-Key, else the key of the account its X-Sandbox-Account names
 * (X-API-Key wins when both are sent). A fingerprint of no account is a 401 naming the header.
 */
export function callerKey(headers: IncomingHttpHeaders, accounts: AccountKeys): string | undefined {
  const apiKey = headerValue(headers, "x-api-key");
  if (apiKey !== undefined && apiKey.length > MAX_API_KEY_LENGTH)
    throw new SandboxProblem(
      401,
      "api-key-too-long",
      "API key too long",
      `X-API-Key is ${apiKey.length} characters long; the sandbox takes keys of at most ${MAX_API_KEY_LENGTH} characters`,
    );
  if (apiKey !== undefined) return apiKey;
  const fingerprint = headerValue(headers, SANDBOX_ACCOUNT_HEADER);
  if (fingerprint === undefined) return undefined;
  const found = FINGERPRINT.test(fingerprint) ? accounts.apiKeyOf(fingerprint) : undefined;
  if (found === undefined)
    throw new SandboxProblem(
      401,
      "unknown-account",
      "Unknown account",
      FINGERPRINT.test(fingerprint)
        ? `X-Sandbox-Account ${fingerprint} names no account that has called this sandbox (GET /_sandbox/accounts lists them)`
        : `X-Sandbox-Account must be an account fingerprint such as acct_5e2b9c0f41d7 (GET /_sandbox/accounts lists them), got "${fingerprint.slice(0, 40)}"`,
    );
  return found;
}

/** Fingerprints of the keys seen lately, so a key's SHA-256 is not computed on each of its calls. */
const recentFingerprints = new Map<string, string>();
const RECENT_FINGERPRINTS = 1024;

/** The fingerprint a request is logged and faulted under: its key's, or the one it names; null without either. */
export function callerFingerprint(headers: IncomingHttpHeaders): string | null {
  const apiKey = headerValue(headers, "x-api-key");
  if (apiKey !== undefined) {
    let fingerprint = recentFingerprints.get(apiKey);
    if (fingerprint === undefined) {
      // Bounded: many keys (or hostile ones) start it afresh rather than grow it.
      if (recentFingerprints.size >= RECENT_FINGERPRINTS) recentFingerprints.clear();
      fingerprint = accountFingerprint(apiKey);
      recentFingerprints.set(apiKey, fingerprint);
    }
    return fingerprint;
  }
  const named = headerValue(headers, SANDBOX_ACCOUNT_HEADER);
  return named !== undefined && FINGERPRINT.test(named) ? named : null;
}
