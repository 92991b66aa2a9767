/**
 * The sandbox's core: accounts seeded on first use, lookups by id, events, and timed work as tasks on the
 * clock, each run by the task runner its flow registered (flows/). What each operation does lives in its
 * flow; HTTP lives in server.ts, and this file knows nothing of either.
 */
import type { SandboxClock } from "./clock.ts";
import { heapify, peekTask, popTask, pushTask } from "./due.ts";
import type { EventPayload, EventType, TaskRunner } from "./flow.ts";
import { seedAccount } from "./flows/accounts.ts";
import { TASK_RUNNERS } from "./flows/index.ts";
import { scheduleDeliveries } from "./flows/webhooks.ts";
import { idOf, type Path } from "./journal.ts";
import { OwnerIndex } from "./owners.ts";
import { SeededRandom } from "./random.ts";
import type { AccountState, CardRecord, CompanyRecord, EventRecord, SandboxState, Task } from "./state.ts";
import type { StateStore } from "./store.ts";

/** A task as it is asked for: everything but the id it is given when scheduled. */
export type TaskRequest = Task extends infer T ? (T extends Task ? Omit<T, "id"> : never) : never;

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

export class SandboxEngine {
  private timer: NodeJS.Timeout | undefined;
  /** The due time the timer is set for, while one is set. */
  private timerDueAt: number | undefined;
  private queue: Promise<void> = Promise.resolve();
  /** Advances and due-work runs queued or running. */
  private queued = 0;
  private stopped = false;
  /** Set while an account is being seeded: the time its seeded records carry. */
  seedingAt: string | undefined;
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
  /** Each account's API key, for the paths its changes are journalled under. */
  private readonly keys = new WeakMap<AccountState, string>();
  /** The account a transaction or company id belongs to, across accounts. */
  readonly owners = new OwnerIndex(() => this.state.accounts);

  constructor(
    public state: SandboxState,
    readonly clock: SandboxClock,
    readonly store: StateStore,
    readonly settings: EngineSettings,
  ) {
    heapify(state.tasks);
  }

  /** The account's generator; the ids it makes carry the time `now()` reads. */
  random(account: AccountState): SeededRandom {
    const apiKey = this.keys.get(account);
    // An account being seeded is journalled whole once seeded.
    if (apiKey !== undefined) {
      this.store.mark(["accounts", apiKey, "random"]);
      this.store.mark(["accounts", apiKey, "lastId"]);
    }
    return new SeededRandom(account, this.idTime);
  }

  /**
   * Notes a change for the journal (with a state file): what is at the path (relative to the account) is written
   * as it is at the next commit. A record in the path stands for the element of its list with its id, e.g.
   * `changed(account, "companies", company, "cards", card)`.
   */
  changed(owner: AccountState | string, ...segments: (string | object)[]): void {
    const apiKey = typeof owner === "string" ? owner : this.keys.get(owner);
    if (apiKey === undefined) return;
    const target: Path = ["accounts", apiKey];
    segments.forEach((segment, index) => {
      target.push(typeof segment === "string" ? segment : { id: idOf(String(segments[index - 1]), segment) });
    });
    this.store.mark(target);
    const [list] = segments;
    if (segments.length === 2 && (list === "transactions" || list === "companies")) {
      const id = target[3]!;
      this.owners.added(list, typeof id === "object" ? id.id : String(id), apiKey);
    }
  }

  private readonly idTime = () => (this.seedingAt === undefined ? this.clock.now() : Date.parse(this.seedingAt));

  /** The clock's reading as an ISO time (while an account is seeded: the fixed time its seeded data carries). */
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

  /** The account of an API key, seeded on its first use (flows/accounts.ts says with what). */
  account(apiKey: string): AccountState {
    const known = this.state.accounts[apiKey];
    if (known) {
      if (!this.keys.has(known)) this.keys.set(known, apiKey);
      return known;
    }
    const seeded = seedAccount(this, apiKey);
    this.keys.set(seeded, apiKey);
    this.store.mark(["accounts", apiKey]);
    return seeded;
  }

  /** Records an event of the account and schedules its delivery to each of the account's endpoints, due now. */
  fire<E extends EventType>(apiKey: string, type: E, payload: EventPayload<E>): EventRecord {
    const account = this.account(apiKey);
    const envelope = {
      id: `evt_${this.random(account).ulid()}`,
      type,
      payload: payload as EventRecord["envelope"]["payload"],
      createdAt: this.now(),
    };
    const event: EventRecord = { envelope, body: JSON.stringify(envelope), deliveries: [] };
    account.events.push(event);
    this.changed(apiKey, "events", event);
    scheduleDeliveries(this, apiKey, event);
    return event;
  }

  /** Puts a task on the clock; its flow's runner runs it when it falls due. */
  schedule(task: TaskRequest): void {
    const scheduled = { ...task, id: this.state.nextTaskId++ } as Task;
    pushTask(this.state.tasks, scheduled);
    this.store.put(["tasks", { id: String(scheduled.id) }], scheduled);
    // The timer already wakes in time for anything due at or after the time it is set for.
    if (this.timerDueAt === undefined || scheduled.dueAt < this.timerDueAt) this.arm();
  }

  cancel(matches: (task: Task) => boolean): void {
    this.state.tasks = heapify(
      this.state.tasks.filter((task) => {
        if (!matches(task)) return true;
        this.store.put(["tasks", { id: String(task.id) }], undefined);
        return false;
      }),
    );
  }

  /** Back to the seeded state: accounts go (and are seeded again on use), pending tasks with them. */
  reset(): void {
    this.state.accounts = {};
    this.state.tasks = [];
    this.store.clear();
    this.store.mark(["accounts"]);
    this.store.mark(["tasks"]);
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
      this.store.put(["tasks", { id: String(due.id) }], undefined);
      this.clock.advanceTo(due.dueAt);
      // A task of an account that is gone (reset) has nothing left to act on.
      if (!Object.hasOwn(this.state.accounts, due.apiKey)) continue;
      await (TASK_RUNNERS[due.kind] as TaskRunner<Task>)(this, due);
    }
    await this.store.commit();
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
