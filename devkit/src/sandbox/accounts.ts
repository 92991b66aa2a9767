/**
 * Accounts by fingerprint: the sandbox keeps accounts by API key, and names them everywhere it shows them
 * (the request log, faults, the dashboard) by `acct_` and 12 hex digits of the key's SHA-256. This module
 * goes the other way for `X-Sandbox-Account`, which acts as an account that has called without its key,
 * and reads what an account holds for `listAccounts` and `getAccount`.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { components } from "../../../generated/sandbox.js";
import type { SandboxEngine } from "./engine.ts";
import { SandboxProblem } from "./flow.ts";
import { MAX_ACCOUNTS, MAX_API_KEY_LENGTH } from "./limits.ts";
import type { AccountState, SandboxState } from "./state.ts";
import { accountFingerprint } from "./testmode/log.ts";

type Schemas = components["schemas"];

/** The header that names an account by fingerprint instead of sending its key. */
export const SANDBOX_ACCOUNT_HEADER = "x-sandbox-account";
export const FINGERPRINT = /^acct_[0-9a-f]{12}$/;
/** Ledger entries `getAccount` gives per company (the newest), as the contract bounds them. */
export const OVERVIEW_LEDGER_ENTRIES = 100;
/** Deposits `getAccount` gives per company (the newest), as the contract bounds them. */
export const OVERVIEW_DEPOSITS = 100;

/** A header's first value; an empty one counts as absent. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) || undefined;
}

/** Fingerprint → API key, per accounts object (a reset replaces it, and the index with it). */
const indexes = new WeakMap<SandboxState["accounts"], Map<string, string>>();

/** The API key of the account with this fingerprint; undefined when no account that has called has it. */
export function apiKeyOf(state: SandboxState, fingerprint: string): string | undefined {
  if (!FINGERPRINT.test(fingerprint)) return undefined;
  let index = indexes.get(state.accounts);
  const known = index?.get(fingerprint);
  if (known !== undefined && Object.hasOwn(state.accounts, known)) return known;
  // A miss reads the accounts again: one may have been seeded since the index was built.
  index = new Map();
  for (const apiKey of Object.keys(state.accounts)) index.set(accountFingerprint(apiKey), apiKey);
  indexes.set(state.accounts, index);
  return index.get(fingerprint);
}

/**
 * The API key a request acts with: its X-API-Key, else the key of the account its X-Sandbox-Account names
 * (X-API-Key wins when both are sent). A fingerprint of no account is a 401 naming the header.
 */
export function callerKey(headers: IncomingHttpHeaders, state: SandboxState): string | undefined {
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
  const found = apiKeyOf(state, fingerprint);
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

/** The fingerprint a request is logged and faulted under: its key's, or the one it names; null without either. */
export function callerFingerprint(headers: IncomingHttpHeaders): string | null {
  const apiKey = headerValue(headers, "x-api-key");
  if (apiKey !== undefined) return accountFingerprint(apiKey);
  const named = headerValue(headers, SANDBOX_ACCOUNT_HEADER);
  return named !== undefined && FINGERPRINT.test(named) ? named : null;
}

/** Keys shorter than this are no credential (a test account's name, "ci"): their hint is the whole key. */
const MIN_SECRET_LENGTH = 8;

/** How people know an account's key without seeing it: `…` and its last four characters. */
export function keyHint(apiKey: string): string {
  return apiKey.length < MIN_SECRET_LENGTH ? apiKey : `…${apiKey.slice(-4)}`;
}

/**
 * Each key's latest call with the key (clock time), oldest call first, per accounts object (a reset replaces the
 * object, and so empties it).
 */
const lastCalls = new WeakMap<SandboxState["accounts"], Map<string, string>>();

/** Notes a call made with an account's own key (`X-API-Key`), for `listAccounts`' lastCalledAt and lastCaller. */
export function noteCall(state: SandboxState, apiKey: string, atMs: number): void {
  if (apiKey.length > MAX_API_KEY_LENGTH) return;
  let calls = lastCalls.get(state.accounts);
  if (!calls) {
    calls = new Map();
    lastCalls.set(state.accounts, calls);
  }
  calls.delete(apiKey);
  calls.set(apiKey, new Date(atMs).toISOString());
  // Bounded by the accounts: keys that never became one (refused before seeding) are dropped now and then.
  if (calls.size > 2 * MAX_ACCOUNTS)
    for (const key of calls.keys()) if (!Object.hasOwn(state.accounts, key)) calls.delete(key);
}

function summary(state: SandboxState, apiKey: string, account: AccountState): Schemas["SandboxAccount"] {
  let cards = 0;
  for (const company of account.companies) cards += company.cards.length;
  return {
    account: accountFingerprint(apiKey),
    label: account.label ?? null,
    keyHint: keyHint(apiKey),
    lastCalledAt: lastCalls.get(state.accounts)?.get(apiKey) ?? null,
    companies: account.companies.length,
    cards,
    events: account.events.length,
    webhookEndpoints: account.endpoints.length,
  };
}

/** Every account, in the order it first called, and the one that called last (`listAccounts`). */
export function listAccounts(state: SandboxState): Schemas["ListAccountsResponse"] {
  let lastCaller: string | null = null;
  // The calls are kept in the order they came: the last one of an account that exists is the last caller.
  for (const apiKey of lastCalls.get(state.accounts)?.keys() ?? [])
    if (Object.hasOwn(state.accounts, apiKey)) lastCaller = accountFingerprint(apiKey);
  return {
    accounts: Object.entries(state.accounts).map(([apiKey, account]) => summary(state, apiKey, account)),
    lastCaller,
  };
}

/** One account's summary, by fingerprint; undefined for no such account. */
export function accountSummary(state: SandboxState, fingerprint: string): Schemas["SandboxAccount"] | undefined {
  const apiKey = apiKeyOf(state, fingerprint);
  const account = apiKey === undefined ? undefined : state.accounts[apiKey];
  return apiKey === undefined || !account ? undefined : summary(state, apiKey, account);
}

/**
 * The deposits on a company's routes, newest first, at most OVERVIEW_DEPOSITS: each transaction a
 * `payment_route.transaction.created` event of the company names, as getTransaction reads it.
 */
function depositsOf(account: AccountState, companyId: string): Schemas["RouteDeposit"][] {
  const deposits: Schemas["RouteDeposit"][] = [];
  for (let index = account.events.length - 1; index >= 0 && deposits.length < OVERVIEW_DEPOSITS; index--) {
    const { envelope } = account.events[index]!;
    if (envelope.type !== "payment_route.transaction.created") continue;
    const payload = envelope.payload as {
      companyId?: string;
      transaction?: { id?: string };
      data?: { routeId?: string };
    };
    if (payload.companyId !== companyId || !payload.data?.routeId || !payload.transaction?.id) continue;
    const transaction = account.transactions[payload.transaction.id];
    if (transaction) deposits.push({ routeId: payload.data.routeId, transaction });
  }
  return deposits;
}

/** Everything an account holds, by fingerprint (`getAccount`); undefined for no such account. */
export function accountOverview(engine: SandboxEngine, fingerprint: string): Schemas["AccountOverview"] | undefined {
  const apiKey = apiKeyOf(engine.state, fingerprint);
  const account = apiKey === undefined ? undefined : engine.state.accounts[apiKey];
  if (!account) return undefined;
  return {
    account: fingerprint,
    companies: account.companies.map((record) => ({
      company: record.company,
      kybStatus: record.kybStatus ?? null,
      cardHolders: record.cardHolders,
      cards: record.cards.map((card) => card.card),
      paymentRoutes: record.paymentRoutes,
      wallets: record.wallets.map((wallet) => wallet.wallet),
      ledger: record.ledger.slice(-OVERVIEW_LEDGER_ENTRIES).reverse(),
      deposits: depositsOf(account, record.company.id),
    })),
  };
}
