/**
 * Reading the formats before records in tables: version 1 (the whole state in one file) and version 2 (a snapshot
 * of the same nested shape and a journal of changes by path, `accounts/<key>/companies/{id}/cards/{id}`). A state
 * of either is read as that release read it (its journal applied by path) and then made into records, so a state
 * file written by an earlier release loads; the first write after rewrites it as a snapshot of version 3.
 */
import type { components } from "partner-api-client";
import type { components as control } from "../../../../generated/sandbox.js";
import type { RandomState } from "../random.ts";
import type {
  AccountRecord,
  CardHolderRecord,
  CardRecord,
  CompanyRecord,
  DeliveryRecord,
  EndpointRecord,
  EventRecord,
  RouteRecord,
  TaskBase,
  TaskRecord,
  TransactionRecord,
  WalletRecord,
} from "../records.ts";
import type { LoadedRecords } from "./tables.ts";

type Schemas = components["schemas"];

/** The nested state of versions 1 and 2, as their files hold it. */
export interface NestedState {
  seed: number;
  clock: string;
  nextTaskId: number;
  tasks: TaskBase[];
  accounts: Record<string, NestedAccount>;
}

interface NestedAccount {
  random: RandomState;
  lastId?: string;
  companies: {
    company: Schemas["Company"] & { id: string };
    redirectUri?: string;
    cardBins?: Schemas["CardBin"][];
    cardHolders?: (Schemas["CardHolder"] & { id: string })[];
    cards?: {
      card: CardRecord["card"];
      cardHolderId: string;
      bin: string;
      category: string;
      description?: string;
      spendSettings?: Schemas["SpendSettings"];
      frozen?: boolean;
    }[];
    wallets?: { wallet: control["schemas"]["Wallet"]; addresses?: Record<string, string> }[];
    paymentRoutes?: (Schemas["PaymentRoute"] & { id: string })[];
    ledger?: Schemas["LedgerEntry"][];
    kybStatus?: string;
  }[];
  transactions?: Record<string, Schemas["Transaction"] & { id: string }>;
  endpoints?: { endpoint: control["schemas"]["WebhookEndpoint"]; secret: string }[];
  events?: { envelope: EventRecord["envelope"]; body: string; deliveries?: control["schemas"]["WebhookDelivery"][] }[];
}

/** One line of a version 2 journal: each path with its value (none: removed). */
export interface PathLine {
  clock: string;
  nextTaskId: number;
  changes: ([Path] | [Path, unknown])[];
}

/** A path segment: an object key, an array index, or the element of an array with this id. */
type Segment = string | number | { id: string };
type Path = Segment[];

/** Why a parsed line is not a version 2 journal line; undefined when it is. */
export function pathLineProblem(line: unknown): string | undefined {
  const candidate = line as Partial<PathLine> | null;
  if (!candidate || typeof candidate !== "object") return "is not an object";
  if (
    typeof candidate.clock !== "string" ||
    typeof candidate.nextTaskId !== "number" ||
    !Array.isArray(candidate.changes)
  )
    return "has no clock, nextTaskId and changes";
  return undefined;
}

/** How each list's elements are named in a path. */
const ID_OF: Record<string, (item: never) => string> = {
  companies: (r: { company: { id: string } }) => r.company.id,
  cards: (r: { card: { id: string } }) => r.card.id,
  cardHolders: (r: { id: string }) => r.id,
  wallets: (r: { wallet: { id: string } }) => r.wallet.id,
  paymentRoutes: (r: { id: string }) => r.id,
  ledger: (r: { transaction?: { id: string } }) => r.transaction?.id ?? "",
  endpoints: (r: { endpoint: { id: string } }) => r.endpoint.id,
  events: (r: { envelope: { id: string } }) => r.envelope.id,
  tasks: (t: { id: number }) => String(t.id),
};

/** The id a list's element is named by in a path. */
function idOf(list: string, item: object): string {
  const of = ID_OF[list];
  if (!of) throw new Error(`the sandbox journal names no elements of a list "${list}"`);
  return (of as (item: object) => string)(item);
}

/** Id → position, per array, built on first use and extended as the array grows (arrays named by id only grow). */
const positions = new WeakMap<unknown[], { indexed: number; byId: Map<string, number> }>();

function positionOf(list: string, items: unknown[], id: string): number {
  let entry = positions.get(items);
  if (!entry || entry.indexed > items.length) {
    entry = { indexed: 0, byId: new Map() };
    positions.set(items, entry);
  }
  for (; entry.indexed < items.length; entry.indexed++) {
    const item = items[entry.indexed];
    if (item && typeof item === "object") {
      const key = idOf(list, item);
      if (!entry.byId.has(key)) entry.byId.set(key, entry.indexed);
    }
  }
  const found = entry.byId.get(id);
  // A position taken by another element since (a list replaced in place) is looked for again.
  if (found !== undefined && items[found] && idOf(list, items[found] as object) === id) return found;
  if (found !== undefined) {
    positions.delete(items);
    return items.findIndex((item) => item && typeof item === "object" && idOf(list, item) === id);
  }
  return -1;
}

type Container = Record<string, unknown> | unknown[];

/** The container a path's last segment is in, or undefined when a step on the way is missing. */
function parentOf(root: object, target: Path): Container | undefined {
  let at: unknown = root;
  for (let i = 0; i < target.length - 1; i++) {
    if (!at || typeof at !== "object") return undefined;
    const segment = target[i]!;
    if (typeof segment === "object") {
      if (!Array.isArray(at)) return undefined;
      const position = positionOf(String(target[i - 1]), at, segment.id);
      at = position === -1 ? undefined : at[position];
    } else at = Object.hasOwn(at, segment) ? (at as Record<string, unknown>)[segment] : undefined;
  }
  return at && typeof at === "object" ? (at as Container) : undefined;
}

/** Sets (or, with no value, removes) what is at a path; nothing when a step on the way is missing. */
function applyChange(root: object, target: Path, present: boolean, value?: unknown): void {
  const parent = parentOf(root, target);
  if (!parent) return;
  const last = target[target.length - 1]!;
  if (typeof last === "object") {
    const items = parent as unknown[];
    const position = positionOf(String(target[target.length - 2]), items, last.id);
    if (present) {
      if (position === -1) items.push(value);
      else items[position] = value;
    } else if (position !== -1) {
      items.splice(position, 1);
      positions.delete(items);
    }
  } else if (present)
    // Defined, not assigned: a key is data (an API key named `__proto__` is an account like any other).
    Object.defineProperty(parent, last, { value, writable: true, enumerable: true, configurable: true });
  else delete (parent as Record<string, unknown>)[last];
}

/**
 * Applies version 2 journal lines to a nested state read from its snapshot, as that release did. Tasks are
 * gathered by id (a task removed is gone wherever it sat).
 */
export function replayPaths(state: NestedState, lines: Iterable<PathLine>): void {
  let tasks = new Map<string, TaskBase>(state.tasks.map((task) => [String(task.id), task]));
  for (const line of lines) {
    state.clock = line.clock;
    state.nextTaskId = line.nextTaskId;
    for (const change of line.changes) {
      const [target] = change;
      const present = change.length > 1;
      if (target[0] === "tasks") {
        if (target.length === 1) tasks = new Map((change[1] as TaskBase[]).map((task) => [String(task.id), task]));
        else {
          const id = (target[1] as { id: string }).id;
          if (present) tasks.set(id, change[1] as TaskBase);
          else tasks.delete(id);
        }
      } else applyChange(state, target, present, change[1]);
    }
  }
  state.tasks = [...tasks.values()];
}

/**
 * The records a nested state holds. Records of one account keep their order; an id met twice in one account's
 * list is read once, the first (as that release's lookups found the first). A transaction is its company's: a
 * ledger entry's by the company whose ledger holds it, a deposit's by the route its event (or its description)
 * names; one whose company cannot be found is kept under no company (getTransaction still reads it). A delivery
 * attempt is named after its event and its place in the event's log.
 */
export function recordsOf(state: NestedState): LoadedRecords {
  const accounts: AccountRecord[] = [];
  const companies: CompanyRecord[] = [];
  const cardHolders: CardHolderRecord[] = [];
  const cards: CardRecord[] = [];
  const wallets: WalletRecord[] = [];
  const routes: RouteRecord[] = [];
  const transactions: TransactionRecord[] = [];
  const endpoints: EndpointRecord[] = [];
  const events: EventRecord[] = [];
  const deliveries: DeliveryRecord[] = [];
  for (const [account, nested] of Object.entries(state.accounts)) {
    const seen = new Set<string>();
    /** True the first time a table's id is met in this account. */
    const first = (table: string, id: string) => {
      const key = `${table}\u0000${id}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    };
    accounts.push({
      id: account,
      account,
      random: nested.random,
      ...(nested.lastId !== undefined ? { lastId: nested.lastId } : {}),
    });
    const routeCompany = new Map<string, string>();
    const ledgerOf = new Map<string, { companyId: string; entry: Schemas["LedgerEntry"] }>();
    for (const record of nested.companies ?? []) {
      const companyId = record.company.id;
      if (!first("companies", companyId)) continue;
      companies.push({
        id: companyId,
        account,
        company: record.company,
        ...(record.redirectUri !== undefined ? { redirectUri: record.redirectUri } : {}),
        cardBins: record.cardBins ?? [],
        ...(record.kybStatus !== undefined ? { kybStatus: record.kybStatus } : {}),
      });
      for (const cardHolder of record.cardHolders ?? [])
        if (first("cardHolders", cardHolder.id))
          cardHolders.push({ id: cardHolder.id, account, companyId, cardHolder });
      for (const card of record.cards ?? [])
        if (first("cards", card.card.id))
          cards.push({
            id: card.card.id,
            account,
            companyId,
            card: card.card,
            cardHolderId: card.cardHolderId,
            bin: card.bin,
            category: card.category,
            ...(card.description !== undefined ? { description: card.description } : {}),
            ...(card.spendSettings !== undefined ? { spendSettings: card.spendSettings } : {}),
            frozen: card.frozen ?? false,
          });
      for (const wallet of record.wallets ?? [])
        if (first("wallets", wallet.wallet.id))
          wallets.push({
            id: wallet.wallet.id,
            account,
            companyId,
            wallet: wallet.wallet,
            addresses: wallet.addresses ?? {},
          });
      for (const route of record.paymentRoutes ?? []) {
        if (!first("routes", route.id)) continue;
        routes.push({ id: route.id, account, companyId, route });
        routeCompany.set(route.id, companyId);
      }
      for (const entry of record.ledger ?? []) {
        const id = entry.transaction?.id;
        if (id !== undefined && !ledgerOf.has(id)) ledgerOf.set(id, { companyId, entry });
      }
    }
    const depositRoute = new Map<string, string>();
    for (const event of nested.events ?? []) {
      const payload = event.envelope.payload as { transaction?: { id?: string }; data?: { routeId?: string } };
      if (
        event.envelope.type === "payment_route.transaction.created" &&
        payload.transaction?.id &&
        payload.data?.routeId
      )
        depositRoute.set(payload.transaction.id, payload.data.routeId);
    }
    for (const [id, transaction] of Object.entries(nested.transactions ?? {})) {
      if (!first("transactions", id)) continue;
      const ledger = ledgerOf.get(id);
      if (ledger) {
        transactions.push({ id, account, companyId: ledger.companyId, transaction, entry: ledger.entry });
        continue;
      }
      const routeId =
        depositRoute.get(id) ?? /^Deposit on payment route (\S+)$/.exec(transaction.description ?? "")?.[1];
      const companyId = routeId === undefined ? undefined : routeCompany.get(routeId);
      transactions.push({
        id,
        account,
        companyId: companyId ?? "",
        transaction,
        ...(routeId !== undefined && companyId !== undefined ? { routeId } : {}),
      });
    }
    for (const endpoint of nested.endpoints ?? [])
      if (first("endpoints", endpoint.endpoint.id))
        endpoints.push({ id: endpoint.endpoint.id, account, endpoint: endpoint.endpoint, secret: endpoint.secret });
    for (const event of nested.events ?? []) {
      const eventId = event.envelope.id;
      if (!first("events", eventId)) continue;
      events.push({ id: eventId, account, envelope: event.envelope, body: event.body });
      (event.deliveries ?? []).forEach((delivery, index) => {
        deliveries.push({ id: `${eventId}/${index}`, account, eventId, delivery });
      });
    }
  }
  const tasks: TaskRecord[] = state.tasks.map((task) => ({ id: String(task.id), account: task.apiKey, task }));
  return {
    accounts,
    companies,
    cardHolders,
    cards,
    wallets,
    routes,
    transactions,
    endpoints,
    events,
    deliveries,
    tasks,
  };
}
