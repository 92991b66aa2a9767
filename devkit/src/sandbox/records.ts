/**
 * The sandbox's state as records: one table per kind, each record keyed by its id and knowing its account (the
 * API key it belongs to) and the record it hangs under (its owner: a company's cards, an event's deliveries).
 * Records are stored as the contract shows them (plus the few private fields the sandbox needs), so an answer
 * is a projection, never a rebuild. A record is never changed in place: the store freezes what is put, and a
 * change is a new record put in its place (store/tables.ts).
 */

import type { components } from "partner-api-client";
import type { components as control } from "../../generated/sandbox.js";
import type { RandomState } from "./random.ts";

type Schemas = components["schemas"];
type ControlSchemas = control["schemas"];

/** Every record: its id (unique within its account and table) and the API key of its account. */
export interface Row {
  readonly id: string;
  readonly account: string;
}

/** An account: the API key is its id. Its generator's state moves with every id drawn for it. */
export interface AccountRecord extends Row {
  readonly random: RandomState;
  /** The account's last id, so ids of one millisecond still sort in the order they were made. */
  readonly lastId?: string;
  /** A name the partner gave the account (setAccountLabel), shown instead of its fingerprint. */
  readonly label?: string;
}

export interface CompanyRecord extends Row {
  readonly company: Schemas["Company"] & { id: string };
  readonly redirectUri?: string;
  readonly cardBins: Schemas["CardBin"][];
  readonly kybStatus?: string;
}

export interface CardHolderRecord extends Row {
  readonly companyId: string;
  readonly cardHolder: Schemas["CardHolder"] & { id: string };
}

export interface CardRecord extends Row {
  readonly companyId: string;
  readonly card: Schemas["Card"] & { id: string; status: string };
  readonly cardHolderId: string;
  readonly bin: string;
  readonly category: string;
  readonly description?: string;
  readonly spendSettings?: Schemas["SpendSettings"];
  readonly frozen: boolean;
}

export interface WalletRecord extends Row {
  readonly companyId: string;
  readonly wallet: ControlSchemas["Wallet"];
  /** Opened addresses by chain (a null-prototype map: a chain is request data). */
  readonly addresses: Readonly<Record<string, string>>;
}

export interface RouteRecord extends Row {
  readonly companyId: string;
  readonly route: Schemas["PaymentRoute"] & { id: string };
}

/**
 * A transaction `getTransaction` reads: a movement of the company's ledger (with its `entry`, as the ledger
 * lists it) or a deposit on one of its payment routes (with its `routeId`).
 */
export interface TransactionRecord extends Row {
  readonly companyId: string;
  readonly transaction: Schemas["Transaction"] & { id: string };
  readonly entry?: Schemas["LedgerEntry"];
  readonly routeId?: string;
}

export interface EndpointRecord extends Row {
  readonly endpoint: ControlSchemas["WebhookEndpoint"];
  readonly secret: string;
}

export interface EventRecord extends Row {
  readonly envelope: { id: string; type: string; payload: Record<string, unknown>; createdAt: string };
  /** The exact bytes every attempt sends, so each retry is the same body. */
  readonly body: string;
}

/** One delivery attempt of an event to one endpoint, as the events list shows it. */
export interface DeliveryRecord extends Row {
  readonly eventId: string;
  readonly delivery: ControlSchemas["WebhookDelivery"];
}

/** What every timed task carries: the order it was scheduled in, when it is due and whose it is. */
export interface TaskBase {
  id: number;
  dueAt: number;
  apiKey: string;
  kind: string;
}

/** A timed task as the store keeps it: its number as the id, until it has run. */
export interface TaskRecord<Task extends TaskBase = TaskBase> extends Row {
  readonly task: Task;
}

/** Every table, with the record it holds. */
export interface Records {
  accounts: AccountRecord;
  companies: CompanyRecord;
  cardHolders: CardHolderRecord;
  cards: CardRecord;
  wallets: WalletRecord;
  routes: RouteRecord;
  transactions: TransactionRecord;
  endpoints: EndpointRecord;
  events: EventRecord;
  deliveries: DeliveryRecord;
  tasks: TaskRecord;
}

export type TableName = keyof Records;

/**
 * The record each table's records hang under, by id, for `list`: a company's cards, an event's deliveries, an
 * account's companies (the account's key). Accounts hang under no record (their owner is "").
 */
export const OWNERS: { readonly [T in TableName]: (record: Records[T]) => string } = {
  accounts: () => "",
  companies: (record) => record.account,
  cardHolders: (record) => record.companyId,
  cards: (record) => record.companyId,
  wallets: (record) => record.companyId,
  routes: (record) => record.companyId,
  transactions: (record) => record.companyId,
  endpoints: (record) => record.account,
  events: (record) => record.account,
  deliveries: (record) => record.eventId,
  tasks: (record) => record.account,
};

/** The tables in the order a snapshot writes them (records before those that hang under them). */
export const TABLE_NAMES = Object.keys(OWNERS) as TableName[];

/**
 * A map keyed by request data (an API key, an id, a chain): an object with no prototype, so a key such as
 * `__proto__`, `constructor` or `toString` is an entry like any other, never an inherited member. It is still
 * a plain JSON object in a state file.
 */
export function dataMap<Value>(entries?: Iterable<readonly [string, Value]>): Record<string, Value> {
  const map: Record<string, Value> = Object.create(null);
  if (entries)
    for (const [key, value] of entries)
      Object.defineProperty(map, key, { value, writable: true, enumerable: true, configurable: true });
  return map;
}
