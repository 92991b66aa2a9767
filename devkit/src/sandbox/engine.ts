/**
 * The sandbox's state machine: accounts seeded on first use, timed transitions and webhook deliveries as
 * tasks on the clock, events and their delivery log. HTTP lives in server.ts; this file knows nothing of it.
 */
import { webhookEventTypes } from "../../../generated/contract.ts";
import { deliverWebhook, RETRY_DELAYS_MS } from "../webhooks/deliver.ts";
import type { SandboxClock } from "./clock.ts";
import { heapify, peekTask, popTask, pushTask } from "./due.ts";
import { randomStateFor, SeededRandom } from "./random.ts";
import type {
  AccountState,
  CardRecord,
  CompanyRecord,
  EndpointRecord,
  EventRecord,
  SandboxState,
  Task,
  WalletRecord,
} from "./state.ts";
import type { StateStore } from "./store.ts";

export interface EngineSettings {
  seed: number;
  /** Clock seconds from createCard until the card is Active. */
  cardIssuingSeconds: number;
  /** Clock seconds from submitKybProfile until company.kyb_status_changed (APPROVED). */
  kybReviewSeconds: number;
  /** A receiver every account gets when it is seeded. */
  webhooks?: { url: string; secret: string };
  /** The sandbox's own base URL, for the hosted pages' links. */
  baseUrl: () => string;
}

/** Chains a wallet of each currency takes, the first being its default (the source shows no list). */
export const WALLET_CHAINS = {
  USDC: ["ETH", "SOL", "ARB", "OP", "MATIC", "AVAX", "BNB"],
  USDT: ["TRX", "ETH", "BNB", "SOL", "TON", "AVAX", "ARB", "OP", "MATIC"],
} as const satisfies Record<string, readonly string[]>;

const HOLDER_NAMES = [
  "Ada Lovelace",
  "Grace Hopper",
  "Alan Turing",
  "Katherine Johnson",
  "Edsger Dijkstra",
  "Barbara Liskov",
];

export const SEEDED_CARD_BINS = [
  {
    bin: "45671234",
    network: "Visa",
    label: "Visa Business USD",
    currencies: ["USD"],
    supportsPhysicalCard: false,
    fee: 0,
  },
  {
    bin: "53987600",
    network: "Mastercard",
    label: "Mastercard Corporate EUR/USD",
    currencies: ["EUR", "USD"],
    supportsPhysicalCard: true,
    fee: 1.5,
  },
];

/** An ISO 8601 UTC time with microseconds, as the source gives transaction times. */
export function microsecondIso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/**
 * Lookups by id over a list the state keeps (and persists) as an array. The map is built from the array on
 * first use (so a state read back from a file is indexed too) and takes in what was appended since; the lists
 * it serves only ever grow, and a shorter or replaced array is indexed again from scratch.
 */
class IdIndex<Owner extends object, Item> {
  private readonly entries = new WeakMap<Owner, { items: Item[]; indexed: number; byId: Map<string, Item> }>();

  constructor(
    private readonly itemsOf: (owner: Owner) => Item[],
    private readonly idOf: (item: Item) => string,
  ) {}

  get(owner: Owner, id: string): Item | undefined {
    const items = this.itemsOf(owner);
    let entry = this.entries.get(owner);
    if (!entry || entry.items !== items || entry.indexed > items.length) {
      entry = { items, indexed: 0, byId: new Map() };
      this.entries.set(owner, entry);
    }
    for (; entry.indexed < items.length; entry.indexed++) {
      const item = items[entry.indexed]!;
      const key = this.idOf(item);
      // The first with an id wins, as a search from the start would find it.
      if (!entry.byId.has(key)) entry.byId.set(key, item);
    }
    return entry.byId.get(id);
  }
}

/** When seeded data was made, as its timestamps say: a fixed instant, so seeded data does not depend on when it was first used. */
const SEEDED_AT = Date.UTC(2026, 0, 1);

export class SandboxEngine {
  /** Set while an account is being seeded: the time its seeded records carry. */
  private seedingAt: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The due time the timer is set for, while one is set. */
  private timerDueAt: number | undefined;
  private queue: Promise<void> = Promise.resolve();
  /** Advances and due-work runs queued or running. */
  private queued = 0;
  private stopped = false;
  private readonly companies = new IdIndex<AccountState, CompanyRecord>(
    (account) => account.companies,
    (record) => record.company.id,
  );
  private readonly cards = new IdIndex<CompanyRecord, CardRecord>(
    (company) => company.cards,
    (record) => record.card.id,
  );
  private readonly events = new IdIndex<AccountState, EventRecord>(
    (account) => account.events,
    (record) => record.envelope.id,
  );

  constructor(
    public state: SandboxState,
    readonly clock: SandboxClock,
    readonly store: StateStore,
    readonly settings: EngineSettings,
  ) {
    heapify(state.tasks);
  }

  random(account: AccountState): SeededRandom {
    return new SeededRandom(account);
  }

  now(): string {
    return this.seedingAt ?? this.clock.iso();
  }

  /** One of the account's companies by id. */
  company(account: AccountState, id: string): CompanyRecord | undefined {
    return this.companies.get(account, id);
  }

  /** One of the company's cards by id. */
  card(company: CompanyRecord, id: string): CardRecord | undefined {
    return this.cards.get(company, id);
  }

  /** One of the account's events by id. */
  event(account: AccountState, id: string): EventRecord | undefined {
    return this.events.get(account, id);
  }

  hasAccount(apiKey: string): boolean {
    return Object.hasOwn(this.state.accounts, apiKey);
  }

  /**
   * The account of an API key, seeded on its first use. What it is seeded with carries fixed times
   * (SEEDED_AT, a minute apart), not the clock's reading at first use, so the same seed gives the same
   * seeded data, timestamps included, run after run.
   */
  account(apiKey: string): AccountState {
    const existing = this.state.accounts[apiKey];
    if (existing) return existing;
    const seededAt = Math.min(SEEDED_AT, this.clock.now());
    try {
      this.seedingAt = new Date(seededAt).toISOString();
      return this.seedAccount(apiKey, seededAt);
    } finally {
      this.seedingAt = undefined;
    }
  }

  private seedAccount(apiKey: string, seededAt: number): AccountState {
    const account: AccountState = {
      random: randomStateFor(this.settings.seed, apiKey),
      companies: [],
      transactions: {},
      endpoints: [],
      events: [],
    };
    this.state.accounts[apiKey] = account;
    if (this.settings.webhooks) this.addEndpoint(account, this.settings.webhooks.url, this.settings.webhooks.secret);
    const demo = this.addCompany(apiKey, {
      name: "Sandbox Demo Company",
      countryCode: "US",
      products: ["Card"],
      status: "Active",
    });
    for (const [type, direction, amount, description] of [
      ["Account", "Credit", 5000, "Top-up"],
      ["Card", "Debit", 42.5, "Office supplies"],
      ["Card", "Debit", 18.99, "Software subscription"],
    ] as const) {
      seededAt += 60_000;
      this.seedingAt = new Date(seededAt).toISOString();
      demo.ledger.push(this.ledgerEntry(account, demo, { type, direction, amount, description }));
    }
    return account;
  }

  addEndpoint(
    account: AccountState,
    url: string,
    secret: string,
    events: EndpointRecord["endpoint"]["events"] = [...webhookEventTypes],
  ) {
    const record = { endpoint: { id: this.random(account).ulid(), url, events, createdAt: this.now() }, secret };
    account.endpoints.push(record);
    return record;
  }

  /** A company with its seeded card BINs, card holder and wallet; fires kyc_link.issued when it has Swap. */
  addCompany(
    apiKey: string,
    input: { name: string; countryCode: string; products: string[]; status: string; redirectUri?: string },
  ): CompanyRecord {
    const account = this.account(apiKey);
    const random = this.random(account);
    const id = random.ulid();
    const base = this.settings.baseUrl();
    const swap = input.products.includes("Swap")
      ? {
          kycUrl: `${base}/_sandbox/hosted/kyc/${id}`,
          kycStatus: "not_started" as const,
          tosUrl: `${base}/_sandbox/hosted/tos/${id}`,
          tosAccepted: false,
        }
      : null;
    const record: CompanyRecord = {
      company: {
        id,
        name: input.name,
        countryCode: input.countryCode,
        status: input.status,
        createdAt: this.now(),
        swap,
      },
      ...(input.redirectUri ? { redirectUri: input.redirectUri } : {}),
      cardBins: structuredClone(SEEDED_CARD_BINS),
      cardHolders: [],
      cards: [],
      wallets: [],
      paymentRoutes: [],
      ledger: [],
    };
    account.companies.push(record);
    const holderName = random.pick(HOLDER_NAMES);
    this.addCardHolder(account, record, holderName, `${holderName.toLowerCase().replace(/\s+/g, ".")}@example.com`);
    this.addWallet(account, record, "USDC");
    if (swap) this.fire(apiKey, "company.kyc_link.issued", { companyId: id, ...swap });
    return record;
  }

  addCardHolder(account: AccountState, company: CompanyRecord, name: string, email: string) {
    const holder = { id: this.random(account).ulid(), name, email, status: "ACTIVE", createdAt: this.now() };
    company.cardHolders.push(holder);
    return holder;
  }

  addWallet(account: AccountState, company: CompanyRecord, currency: keyof typeof WALLET_CHAINS): WalletRecord {
    const chains = [...WALLET_CHAINS[currency]];
    const record: WalletRecord = {
      wallet: { id: this.random(account).ulid(), currency, defaultChain: chains[0]!, chains, createdAt: this.now() },
      addresses: {},
    };
    company.wallets.push(record);
    return record;
  }

  ledgerEntry(
    account: AccountState,
    company: CompanyRecord,
    input: {
      type: "Card" | "PaymentAcceptance" | "Account";
      direction: "Credit" | "Debit";
      amount: number;
      description?: string;
    },
  ): CompanyRecord["ledger"][number] {
    const random = this.random(account);
    const signed = input.direction === "Debit" ? -input.amount : input.amount;
    const transaction = {
      id: random.ulid(),
      direction: input.direction,
      amount: signed.toFixed(2),
      currency: "USD",
      description: input.description ?? (input.type === "Account" ? "Top-up" : "Card payment"),
      counterpartyName: input.type === "Account" ? company.company.name : "Sandbox Merchant",
      createdAt: this.now(),
    };
    if (input.type === "Card") {
      const card = company.cards[0]?.card;
      return {
        type: "Card",
        transaction,
        data: {
          status: "Closed",
          ...(card ? { card: { id: card.id, name: card.name, last4: card.last4 } } : {}),
          merchant: { name: "Sandbox Merchant", code: "5999", city: "San Francisco", country: "US" },
          isFx: false,
        },
      };
    }
    if (input.type === "PaymentAcceptance")
      return {
        type: "PaymentAcceptance",
        transaction,
        data: { status: "Completed", paymentMethod: "card", paymentDetails: {} },
      };
    return { type: "Account", transaction, data: { status: "Completed" } };
  }

  /** Records an event and schedules its first delivery to each of the account's endpoints, due now. */
  fire(apiKey: string, type: string, payload: Record<string, unknown>): EventRecord {
    const account = this.account(apiKey);
    const envelope = { id: `evt_${this.random(account).ulid()}`, type, payload, createdAt: this.now() };
    const event: EventRecord = { envelope, body: JSON.stringify(envelope), deliveries: [] };
    account.events.push(event);
    this.scheduleDeliveries(apiKey, event);
    return event;
  }

  scheduleDeliveries(apiKey: string, event: EventRecord): void {
    const now = this.clock.now();
    for (const { endpoint } of this.state.accounts[apiKey]?.endpoints ?? [])
      this.schedule({
        kind: "deliverEvent",
        apiKey,
        dueAt: now,
        eventId: event.envelope.id,
        endpointId: endpoint.id,
        attempt: 1,
      });
  }

  schedule(task: Task extends infer T ? (T extends Task ? Omit<T, "id"> : never) : never): void {
    const scheduled = { ...task, id: this.state.nextTaskId++ } as Task;
    pushTask(this.state.tasks, scheduled);
    // The timer already wakes in time for anything due at or after the time it is set for.
    if (this.timerDueAt === undefined || scheduled.dueAt < this.timerDueAt) this.arm();
  }

  cancel(matches: (task: Task) => boolean): void {
    this.state.tasks = heapify(this.state.tasks.filter((task) => !matches(task)));
  }

  /** Back to the seeded state: accounts go (and are seeded again on use), pending tasks with them. */
  reset(): void {
    this.state.accounts = {};
    this.state.tasks = [];
    this.arm();
  }

  /**
   * Moves the clock `ms` forward, running every task that falls due on the way in due order, each with the
   * clock at its own due time; resolves when all have run.
   */
  advance(ms: number): Promise<void> {
    return this.serialized(async () => {
      const target = this.clock.now() + ms;
      await this.runDue(target);
      this.clock.advanceTo(target);
    });
  }

  /** Runs what is due by the clock's current reading (the real-time path). */
  runDueNow(): Promise<void> {
    return this.serialized(() => this.runDue(this.clock.now()));
  }

  /** True while an advance or a run of due work is queued or running. */
  get busy(): boolean {
    return this.queued > 0;
  }

  private serialized(job: () => Promise<void>): Promise<void> {
    this.queued++;
    const run = this.queue.then(job).finally(() => this.queued--);
    this.queue = run.catch(() => undefined);
    return run.finally(() => this.arm());
  }

  private async runDue(until: number): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const next = peekTask(this.state.tasks);
      if (!next || next.dueAt > until) break;
      const due = popTask(this.state.tasks)!;
      this.clock.advanceTo(due.dueAt);
      await this.execute(due);
    }
    await this.store.commit();
  }

  private async execute(task: Task): Promise<void> {
    const account = this.state.accounts[task.apiKey];
    if (!account) return;
    if (task.kind === "activateCard") {
      const company = this.company(account, task.companyId);
      const card = company && this.card(company, task.cardId);
      if (card && card.card.status === "Creating") card.card.status = "Active";
    } else if (task.kind === "finishKybReview") {
      const company = this.company(account, task.companyId);
      if (!company) return;
      company.kybStatus = "APPROVED";
      this.fire(task.apiKey, "company.kyb_status_changed", { companyId: company.company.id, status: "APPROVED" });
    } else {
      const event = this.event(account, task.eventId);
      const endpoint = account.endpoints.find((e) => e.endpoint.id === task.endpointId);
      if (!event || !endpoint) return;
      const delivery = await attemptDelivery(endpoint.endpoint.url, event.body, endpoint.secret);
      event.deliveries.push({
        endpointId: task.endpointId,
        attempt: task.attempt,
        at: new Date(task.dueAt).toISOString(),
        ...delivery,
      });
      const ok = delivery.statusCode !== undefined && delivery.statusCode >= 200 && delivery.statusCode < 300;
      const wait = RETRY_DELAYS_MS[task.attempt - 1];
      if (!ok && wait !== undefined)
        this.schedule({ ...task, attempt: task.attempt + 1, dueAt: task.dueAt + wait } as Omit<Task, "id"> as never);
    }
  }

  /** Sets one real-time timer for the earliest task; `advance` runs them sooner. */
  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDueAt = undefined;
    const earliest = peekTask(this.state.tasks);
    if (this.stopped || !earliest) return;
    const until = this.clock.realDelayUntil(earliest.dueAt);
    // A frozen clock reaches nothing ahead of it on its own.
    if (until === Number.POSITIVE_INFINITY) return;
    const delay = Math.min(until, 2 ** 31 - 1);
    this.timerDueAt = earliest.dueAt;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerDueAt = undefined;
      this.runDueNow().catch(() => undefined);
    }, delay);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.queue;
    await this.store.flush();
  }
}

/**
 * One attempt, by the webhook kit's sender (`deliverWebhook` with no retries: the sandbox schedules the retries
 * itself, on its clock): the signed POST of the event's exact body; a status code or why there was none.
 */
async function attemptDelivery(
  url: string,
  body: string,
  secret: string,
): Promise<{ statusCode?: number; error?: string; durationMs?: number }> {
  const [attempt] = (await deliverWebhook({ url, body, secret, delaysMs: [] })).attempts;
  // Real milliseconds, to a tenth: what the receiver took, for the dashboard and the events list.
  const durationMs = attempt === undefined ? undefined : Math.round(attempt.ms * 10) / 10;
  const timing = durationMs === undefined ? {} : { durationMs };
  if (attempt?.status !== undefined) return { statusCode: attempt.status, ...timing };
  return { error: attempt?.error ?? "not sent", ...timing };
}
