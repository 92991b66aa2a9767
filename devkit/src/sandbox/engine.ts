/**
 * The sandbox's core: accounts seeded on first use, lookups by id, events, and timed work as tasks on the
 * clock, each run by the task runner its flow registered (flows/). What each operation does lives in its
 * flow; HTTP lives in server.ts, and this file knows nothing of either.
 */

import { setMaxListeners } from "node:events";
import { ATTEMPT_TIMEOUT_MS } from "../webhooks/deliver.ts";
import { CLOCK_RANGE, type SandboxClock } from "./clock.ts";
import { heapify, peekTask, popTask, pushTask } from "./due.ts";
import type { EventPayload, EventType, TaskRunner } from "./flow.ts";
import { seedAccount } from "./flows/accounts.ts";
import { TASK_RUNNERS } from "./flows/index.ts";
import { scheduleDeliveries } from "./flows/webhooks.ts";
import { idOf, type Path } from "./journal.ts";
import { OwnerIndex } from "./owners.ts";
import { SeededRandom } from "./random.ts";
import {
  type AccountState,
  type CardRecord,
  type CompanyRecord,
  dataMap,
  type EventRecord,
  type SandboxState,
  type Task,
} from "./state.ts";
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
  /** Real milliseconds one webhook delivery attempt may take, waiting for a free connection included. Default 10 s. */
  webhookTimeoutMs?: number;
}

/** Work a task started off the due loop (a delivery attempt): the loop goes on while it runs. */
interface Background {
  task: Task;
  /** The earliest clock time a task its outcome schedules can be due (a retry); none when it schedules none. */
  followUpAt: number | undefined;
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
  /** Aborted by `stop`: work in the background gives up. */
  private readonly stopping = new AbortController();
  /** Background work by the id of the task that started it; its task is saved with the state until it settles. */
  private readonly background = new Map<number, Background>();
  /** Resolved (and replaced) each time background work settles. */
  private settled = signal();
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
    // Every delivery under way listens to it: hundreds at once are expected, not a leak.
    setMaxListeners(0, this.stopping.signal);
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

  private readonly idTime = () => (this.seedingAt === undefined ? this.reading() : Date.parse(this.seedingAt));

  /** The clock's reading held for the synchronous part of one call or task (hold), so its ids and times agree. */
  private heldAt: number | undefined;

  /** The clock's reading, in whole milliseconds as ids and ISO times carry it: the held one during a call. */
  private reading(): number {
    return this.heldAt ?? Math.floor(this.clock.now());
  }

  /**
   * Runs `job` with one clock reading for everything it makes synchronously: on a running clock an id and the
   * `createdAt` beside it would otherwise be read a moment apart, and could name two milliseconds.
   */
  hold<T>(job: () => T): T {
    if (this.heldAt !== undefined) return job();
    this.heldAt = Math.floor(this.clock.now());
    try {
      return job();
    } finally {
      this.heldAt = undefined;
    }
  }

  /** The clock's reading as an ISO time (while an account is seeded: the fixed time its seeded data carries). */
  now(): string {
    return this.seedingAt ?? new Date(this.reading()).toISOString();
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
    const known = Object.hasOwn(this.state.accounts, apiKey) ? this.state.accounts[apiKey] : undefined;
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

  /** Puts a task on the clock; its flow's runner runs it when it falls due (at the latest, at the clock's end). */
  schedule(task: TaskRequest): void {
    const dueAt = Math.min(task.dueAt, CLOCK_RANGE.max);
    const scheduled = { ...task, dueAt, id: this.state.nextTaskId++ } as Task;
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
    this.state.accounts = dataMap();
    this.state.tasks = [];
    this.store.clear();
    this.store.mark(["accounts"]);
    this.store.mark(["tasks"]);
    this.arm();
  }

  /**
   * Moves the clock `ms` forward, running every task that falls due on the way in due order, each with the
   * clock at its own due time; resolves when all have run and the outcomes of the deliveries they started are
   * recorded, but waits on deliveries about one attempt's time limit at most in all (runDue says how).
   */
  advance(ms: number): Promise<void> {
    return this.serialized(async () => {
      const target = this.clock.now() + ms;
      const limit = this.webhookTimeoutMs;
      await this.runDue(target, performance.now() + limit + Math.min(limit / 4, 1_000));
      this.clock.advanceTo(target);
    });
  }

  /** Runs what is due by the clock's current reading (the real-time path); waits on no delivery. */
  runDueNow(): Promise<void> {
    return this.serialized(() => this.runDue(this.clock.now(), 0));
  }

  /** Real milliseconds one delivery attempt may take. */
  get webhookTimeoutMs(): number {
    return Math.max(1, Math.ceil(this.settings.webhookTimeoutMs ?? ATTEMPT_TIMEOUT_MS));
  }

  /** True while an advance or a run of due work is queued or running, or a delivery attempt is under way. */
  get busy(): boolean {
    return this.queued > 0 || this.background.size > 0;
  }

  /**
   * Runs `work` for a task off the due loop (a delivery attempt: network I/O), so the loop goes on at once.
   * Until it settles, the task is saved with the state (a restart runs it again) and an advance waits for it
   * before running tasks of the same account due after `followUpAt` (runDue). `work` records its own outcome;
   * the state is committed when it settles.
   */
  inBackground(task: Task, followUpAt: number | undefined, work: (signal: AbortSignal) => Promise<void>): void {
    this.background.set(task.id, { task, followUpAt });
    // Saved as still due until it settles: a restart makes the attempt again.
    this.store.put(["tasks", { id: String(task.id) }], task);
    work(this.stopping.signal)
      .catch(() => undefined)
      .finally(() => {
        // A stopped sandbox keeps the task: its state was last written with it, to run again at the next start.
        if (this.stopped) return;
        this.background.delete(task.id);
        this.store.put(["tasks", { id: String(task.id) }], undefined);
        this.settled.resolve();
        this.settled = signal();
        this.store.commit().catch(() => undefined);
      });
  }

  /** The state as it is saved: the pending tasks with those whose background work has not settled. */
  snapshot(): SandboxState {
    if (this.background.size === 0) return this.state;
    return { ...this.state, tasks: [...this.state.tasks, ...[...this.background.values()].map((b) => b.task)] };
  }

  private serialized(job: () => Promise<void>): Promise<void> {
    this.queued++;
    const run = this.queue.then(job).finally(() => this.queued--);
    this.queue = run.catch(() => undefined);
    return run.finally(() => this.arm());
  }

  /**
   * Runs the tasks due by `until` in due order. A task's runner never waits on the network: a delivery attempt
   * runs in the background (inBackground) and records its outcome, and schedules its retry from its own due
   * time, when it completes. So that a retry still runs in its place on the clock, the loop waits, until the
   * real time `waitUntil` at the latest, for an attempt whose retry could fall due before the next task of the
   * same account (tasks of other accounts go on), and at the end for every attempt under way (a retry due by
   * `until` then runs too). Past `waitUntil` it waits on nothing: an attempt that completes later schedules its
   * retry at its own time on the clock, already due, and the real-time timer runs it.
   */
  private async runDue(until: number, waitUntil: number): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const next = peekTask(this.state.tasks);
      const due = next !== undefined && next.dueAt <= until ? next : undefined;
      const waiting = performance.now() < waitUntil && this.background.size > 0;
      if (waiting && (due === undefined || this.followUpBefore(due))) {
        await this.nextSettled(waitUntil);
        continue;
      }
      if (due === undefined) break;
      popTask(this.state.tasks);
      // Gone from the saved tasks, unless its work goes on in the background (inBackground saves it again).
      this.store.put(["tasks", { id: String(due.id) }], undefined);
      this.clock.advanceTo(due.dueAt);
      // A task of an account that is gone (reset) has nothing left to act on.
      if (!Object.hasOwn(this.state.accounts, due.apiKey)) continue;
      await this.hold(() => (TASK_RUNNERS[due.kind] as TaskRunner<Task>)(this, due));
    }
    await this.store.commit();
  }

  /** Whether an attempt of `due`'s account under way could schedule a task due before it (a retry). */
  private followUpBefore(due: Task): boolean {
    for (const { task, followUpAt } of this.background.values())
      if (task.apiKey === due.apiKey && followUpAt !== undefined && followUpAt < due.dueAt) return true;
    return false;
  }

  /** Resolves when background work settles next, or at the real time `deadline`. */
  private async nextSettled(deadline: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.settled.promise,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadline - performance.now()));
      }),
    ]);
    clearTimeout(timer);
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
    this.stopping.abort();
    if (this.timer) clearTimeout(this.timer);
    await this.queue;
    await this.store.flush();
  }
}

/** A promise with its resolve function. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
