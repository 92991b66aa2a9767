/**
 * The sandbox's whole state as plain JSON: what a state file holds. Every record is stored as the contract
 * shows it (plus the few private fields the sandbox needs), so a response is a projection, never a rebuild.
 */

import type { components } from "partner-api-client";
import type { components as control } from "../../../generated/sandbox.js";
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
    accounts: {},
  };
}
