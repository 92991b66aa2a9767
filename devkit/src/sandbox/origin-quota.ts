/**
 * New accounts from other sites' pages. The partner API allows any origin (as Prism does), and any new
 * `X-API-Key` is a new, seeded, persisted account: a page of any site the developer opens could create 5,000 in
 * 8 s, and fill the sandbox's 100,000 accounts (after which every new key is refused) in about 3 minutes. So
 * a request that creates an account and carries the `Origin` of another site than the sandbox's own is counted
 * against its origin: at most NEW_ACCOUNTS_PER_ORIGIN a minute of the sandbox's clock, then a 429 naming the
 * limit with `Retry-After`. Requests without `Origin` (curl, a test, a backend) and the dashboard's (its own
 * origin) are not counted. The limit is the sandbox's clock's: with the clock frozen, the minute moves only
 * when the clock is advanced.
 */
import type { IncomingMessage } from "node:http";
import { inert } from "../inert.ts";
import { SandboxProblem } from "./flows/flow.ts";

/** New accounts one other origin may create in a minute of the sandbox's clock. */
export const NEW_ACCOUNTS_PER_ORIGIN = 30;
/** Origins counted at once; past it the oldest window is dropped (an origin's count starts afresh). */
const MAX_ORIGINS = 1_000;
const MINUTE_MS = 60_000;

/** The origin of a cross-site browser request (another than `http(s)://<Host>`), or undefined. */
export function foreignOrigin(request: IncomingMessage): string | undefined {
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  const lower = origin.toLowerCase();
  const host = request.headers.host?.toLowerCase();
  if (host !== undefined && (lower === `http://${host}` || lower === `https://${host}`)) return undefined;
  return lower.slice(0, 200);
}

export interface NewAccountQuota {
  /** Throws a 429 SandboxProblem when `request` would create one account too many for its origin. */
  admit(request: IncomingMessage): void;
}

/** The quota, counted by `now` (the sandbox's clock, in milliseconds). */
export function newAccountQuota(now: () => number, limit = NEW_ACCOUNTS_PER_ORIGIN): NewAccountQuota {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    admit(request) {
      const origin = foreignOrigin(request);
      if (origin === undefined) return;
      const at = now();
      let window = windows.get(origin);
      if (window === undefined || at - window.start >= MINUTE_MS || at < window.start) {
        if (window === undefined && windows.size >= MAX_ORIGINS) windows.delete(windows.keys().next().value!);
        windows.delete(origin);
        window = { start: at, count: 0 };
        windows.set(origin, window);
      }
      if (window.count >= limit) {
        const retryAfter = Math.max(1, Math.ceil((window.start + MINUTE_MS - at) / 1000));
        const problem = new SandboxProblem(
          429,
          "new-account-rate",
          "Too many new accounts",
          `pages of ${JSON.stringify(inert(origin))} created ${limit} new accounts in the last minute of the sandbox's clock, the most it takes from another site's page; retry after ${retryAfter} s, use a key that already has an account, or call without a browser`,
        );
        problem.headers = { "retry-after": String(retryAfter) };
        throw problem;
      }
      window.count++;
    },
  };
}
