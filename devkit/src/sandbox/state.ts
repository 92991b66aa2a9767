/**
 * The sandbox's whole state as plain JSON: what a state file holds. Every record is stored as the contract
 * shows it (plus the few private fields the sandbox needs), so a response is a projection, never a rebuild.
 */

import type { components } from "partner-api-client";
import type { components as control } from "../../generated/sandbox.js";
import { CLOCK_RANGE_TEXT, inClockRange } from "./clock.ts";
import type { Task } from "./flows/index.ts";
import type { RandomState } from "./random.ts";

export type { Task };

type Schemas = components["schemas"];

export const STATE_FORMAT = "partner-api-sandbox-state";
/** Bumped when a state file written by this version could not be read by an older one. */
export const STATE_VERSION = 2;

export interface CompanyRecord {
  company: Schemas["Company"] & { id: string };
  redirectUri?: string;
  cardBins: Schemas["CardBin"][];
  cardHolders: (Schemas["CardHolder"] & { id: string })[];
  cards: CardRecord[];
  wallets: WalletRecord[];
  paymentRoutes: (Schemas["PaymentRoute"] & { id: string })[];
  /** Newest last; the list operation orders them. */
  ledger: Schemas["LedgerEntry"][];
  kybStatus?: string;
}

export interface CardRecord {
  card: Schemas["Card"] & { id: string; status: string };
  cardHolderId: string;
  bin: string;
  category: string;
  description?: string;
  spendSettings?: Schemas["SpendSettings"];
  frozen: boolean;
}

export interface WalletRecord {
  wallet: control["schemas"]["Wallet"];
  /** Opened addresses by chain. */
  addresses: Record<string, string>;
}

export interface EventRecord {
  envelope: { id: string; type: string; payload: Record<string, unknown>; createdAt: string };
  /** The exact bytes every attempt sends, so each retry is the same body. */
  body: string;
  deliveries: control["schemas"]["WebhookDelivery"][];
}

export interface EndpointRecord {
  endpoint: control["schemas"]["WebhookEndpoint"];
  secret: string;
}

export interface AccountState {
  random: RandomState;
  /** The name its partner gave it (control API `updateAccount`). */
  label?: string;
  /** The account's last id, so ids of one millisecond still sort in the order they were made. */
  lastId?: string;
  companies: CompanyRecord[];
  /** Transactions readable with getTransaction, by id. */
  transactions: Record<string, Schemas["Transaction"] & { id: string }>;
  endpoints: EndpointRecord[];
  /** Oldest first. */
  events: EventRecord[];
}

export interface SandboxState {
  format: typeof STATE_FORMAT;
  version: number;
  seed: number;
  /** The clock's reading when the state was written: a restart carries on from it. */
  clock: string;
  nextTaskId: number;
  tasks: Task[];
  accounts: Record<string, AccountState>;
}

export function emptyState(seed: number, clockMs: number): SandboxState {
  return {
    format: STATE_FORMAT,
    version: STATE_VERSION,
    seed,
    clock: new Date(clockMs).toISOString(),
    nextTaskId: 1,
    tasks: [],
    accounts: dataMap(),
  };
}

/**
 * A map keyed by request data (an API key, an id, a chain): an object with no prototype, so a key such as
 * `__proto__`, `constructor` or `toString` is an entry like any other, never an inherited member. It is still
 * a plain JSON object in a state file.
 */
export function dataMap<Value>(entries?: Iterable<readonly [string, Value]>): Record<string, Value> {
  const map: Record<string, Value> = Object.create(null);
  if (entries) for (const [key, value] of entries) map[key] = value;
  return map;
}

/** The same entries in a `dataMap` (JSON.parse gives objects that inherit from Object.prototype). */
function asDataMap<Value>(object: Record<string, Value> | undefined): Record<string, Value> {
  return dataMap(object && typeof object === "object" ? Object.entries(object) : []);
}

/**
 * A state read from a file, made like one the sandbox built: every map keyed by request data (accounts by
 * API key, transactions by id, wallet addresses by chain) a `dataMap`. JSON.parse keeps a `__proto__` key as
 * an own property, so nothing is lost on the way. Changes `state` in place and returns it; throws a TypeError
 * saying what is wrong when the state could not be served: a clock outside the clock's range, an account
 * that is not one.
 */
export function normalizeLoadedState(state: SandboxState): SandboxState {
  if (!inClockRange(Date.parse(state.clock)))
    throw new TypeError(`its clock ${state.clock} is outside the sandbox clock's range, ${CLOCK_RANGE_TEXT}`);
  state.accounts = asDataMap(state.accounts);
  for (const [apiKey, account] of Object.entries(state.accounts)) {
    if (!account || typeof account !== "object" || !Array.isArray(account.companies))
      throw new TypeError(`the account ${JSON.stringify(apiKey.slice(0, 40))} is not an account object`);
    account.transactions = asDataMap(account.transactions);
    for (const company of account.companies ?? [])
      for (const wallet of company.wallets ?? []) wallet.addresses = asDataMap(wallet.addresses);
  }
  return state;
}
