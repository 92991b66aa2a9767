/**
 * The sandbox's core: the store's records, accounts seeded on first use, ids, events, and timed work as tasks on
 * the clock. It knows nothing of what the flows do: the composition root (index.ts) hands it the flows' parts
 * (`EngineParts`: the runner of each task, what a new account holds, what follows an event), and the flows see
 * it through the interface they declare (flows/flow.ts `FlowEnv`). HTTP lives in server.ts.
 */

import { ATTEMPT_TIMEOUT_MS } from "../webhooks/deliver.ts";
import { CLOCK_RANGE, type SandboxClock } from "./clock.ts";
import { PendingTasks } from "./due.ts";
import { type RandomHolder, SeededRandom } from "./random.ts";
import type { ReceiverPolicy } from "./receivers.ts";
import type { AccountRecord, EventRecord, TaskBase } from "./records.ts";
import type { Store } from "./store/tables.ts";
import { accountFingerprint } from "./testmode/log.ts";

/** A task as it is asked for: everything but the number it is given when scheduled. */
export type TaskRequestOf<T extends TaskBase> = T extends unknown ? Omit<T, "id"> : never;

export interface EngineSettings {
  /** Clock seconds from createCard until the card is Active. */
  cardIssuingSeconds: number;
  /** Clock seconds from submitKybProfile until company.kyb_status_changed (APPROVED). */
  kybReviewSeconds: number;
  /** A receiver every account gets when it is seeded. */
  webhooks?: { url: string; secret: string } | undefined;
  /** The sandbox's own base URL, for the hosted pages' links. */
  baseUrl: () => string;
  /** Where receivers may be (receivers.ts): not the sandbox itself; private ranges when allowed. */
  receivers?: ReceiverPolicy;
  /** The partner contract served, whose examples every new account holds (default: the one read from files). */
  partnerContract?: Record<string, unknown>;
  /** Real milliseconds one webhook delivery attempt may take, waiting for a free connection included. Default 10 s. */
  webhookTimeoutMs?: number;
}

/** What the flows give the engine. */
export interface EngineParts<T extends TaskBase> {
  /** Runs one due task (its flow's runner), with the clock at its due time. */
  run(task: T): void | Promise<void>;
  /** Puts what a new account holds, its account record first. */
  seed(apiKey: string): void;
  /** An event was recorded: what follows it (its deliveries). */
  fired(apiKey: string, event: EventRecord): void;
}

/** Work a task started off the due loop (a delivery attempt): the loop goes on while it runs. */
interface Background<T> {
  task: T;
  /** The earliest clock time a task its outcome schedules can be due (a retry); none when it schedules none. */
  followUpAt: number | undefined;
}

/** An account's generator as draws leave it, and the account record it was last saved in. */
interface Generator {
  apiKey: string;
  record: AccountRecord;
  holder: RandomHolder;
  /** Drawn from during the call under way (hold): put with the account when the call's synchronous part ends. */
  dirty: boolean;
}

export class SandboxEngine<T extends TaskBase = TaskBase> {
  private timer: NodeJS.Timeout | undefined;
  /** The due time the timer is set for, while one is set. */
  private timerDueAt: number | undefined;
  private queue: Promise<void> = Promise.resolve();
  /** Advances and due-work runs queued or running. */
  private queued = 0;
  private stopped = false;
  /** Aborted by `stop`: work in the background gives up. */
  private readonly stopping = new AbortController();
  /** Background work by the number of the task that started it; its task stays in the store until it settles. */
  private readonly background = new Map<number, Background<T>>();
  /** Resolved (and replaced) each time background work settles. */
  private settled = signal();
  /** The pending tasks, soonest first (a heap: due.ts), as the store holds them less those under way. */
  private readonly tasks = new PendingTasks<T>({
    live: (task) => this.store.get("tasks", task.apiKey, String(task.id))?.task === task,
  });
  /** The store's epoch the caches below were built in (a reset or a reload makes them stale). */
  private epoch = -1;
  private readonly generators = new Map<string, Generator>();
  /** Generators drawn from during the call under way, put when its synchronous part ends (hold). */
  private readonly drawnFrom = new Set<Generator>();
  /** Fingerprint → API key of every account, once asked for. */
  private fingerprints: Map<string, string> | undefined;
  /** Set while seeded data is made: the time it carries. */
  private datedAt: number | undefined;
  /** The clock's reading held for the synchronous part of one call or task (hold), so its ids and times agree. */
  private heldAt: number | undefined;
  private readonly parts: EngineParts<T>;
  /** The last reading `now()` formatted, and its text. */
  private isoOf = { ms: Number.NaN, text: "" };

  readonly store: Store;
  readonly clock: SandboxClock;
  readonly settings: EngineSettings;
  constructor(
    store: Store,
    clock: SandboxClock,
    settings: EngineSettings,
    parts: (engine: SandboxEngine<T>) => EngineParts<T>,
  ) {
    this.store = store;
    this.clock = clock;
    this.settings = settings;
    this.parts = parts(this);
    this.fresh();
    store.onReload(() => this.fresh());
    // Every delivery under way listens to it: hundreds at once are expected, not a leak. Node warns past 10
    // listeners on one signal; a browser (partner-api-devkit/msw) has no such warning, nor node:events.
    nodeEvents()?.setMaxListeners(0, this.stopping.signal);
  }

  /** Builds the caches again from the store when it was reset or read back since they were built. */
  private fresh(): void {
    if (this.epoch === this.store.epoch) return;
    this.epoch = this.store.epoch;
    this.generators.clear();
    this.drawnFrom.clear();
    this.fingerprints = undefined;
    const tasks: T[] = [];
    for (const record of this.store.all("tasks"))
      if (!this.background.has(record.task.id)) tasks.push(record.task as T);
    this.tasks.replace(tasks);
    this.arm();
  }

  private readonly idTime = () => this.datedAt ?? this.reading();

  /** The clock's reading, in whole milliseconds as ids and ISO times carry it: the held one during a call. */
  reading(): number {
    return this.heldAt ?? Math.floor(this.clock.now());
  }

  /**
   * Runs `job` with one clock reading for everything it makes synchronously: on a running clock an id and the
   * `createdAt` beside it would otherwise be read a moment apart, and could name two milliseconds.
   */
  hold<R>(job: () => R): R {
    if (this.heldAt !== undefined) return job();
    this.heldAt = Math.floor(this.clock.now());
    try {
      return job();
    } finally {
      this.heldAt = undefined;
      // The generators the call drew from go into their accounts: one put each, however many ids it made.
      for (const generator of this.drawnFrom) this.keep(generator);
      this.drawnFrom.clear();
    }
  }

  /** The clock's reading as an ISO time (while seeded data is made: the fixed time it carries). */
  now(): string {
    const ms = this.datedAt ?? this.reading();
    // A call asks for the same reading several times (each record it makes is dated): formatted once per millisecond.
    if (ms !== this.isoOf.ms) this.isoOf = { ms, text: new Date(ms).toISOString() };
    return this.isoOf.text;
  }

  dated<R>(at: number, job: () => R): R {
    const before = this.datedAt;
    this.datedAt = at;
    try {
      return job();
    } finally {
      this.datedAt = before;
    }
  }

  hasAccount(apiKey: string): boolean {
    return this.store.get("accounts", apiKey, apiKey) !== undefined;
  }

  /** The account of an API key, seeded on its first use (the flows say with what). */
  account(apiKey: string): AccountRecord {
    const known = this.store.get("accounts", apiKey, apiKey);
    if (known) return known;
    this.parts.seed(apiKey);
    const seeded = this.store.get("accounts", apiKey, apiKey);
    if (!seeded) throw new Error(`seeding the account of ${JSON.stringify(apiKey.slice(0, 12))}… put no account`);
    if (this.fingerprints) this.fingerprints.set(accountFingerprint(apiKey), apiKey);
    return seeded;
  }

  /** The API key of the account with this fingerprint; undefined when no account that has called has it. */
  apiKeyOf(fingerprint: string): string | undefined {
    this.fresh();
    if (!this.fingerprints) {
      this.fingerprints = new Map();
      for (const { id } of this.store.all("accounts")) this.fingerprints.set(accountFingerprint(id), id);
    }
    return this.fingerprints.get(fingerprint);
  }

  /** The account's generator; the ids it makes carry the time `now()` reads, and each draw is put with the account. */
  random(apiKey: string): SeededRandom {
    this.fresh();
    const record = this.account(apiKey);
    let generator = this.generators.get(apiKey);
    // A generator drawn from in this call is ahead of its account's record until the call ends.
    if (!generator || (generator.record !== record && !generator.dirty)) {
      generator = {
        apiKey,
        record,
        holder: { random: [...record.random], ...(record.lastId !== undefined ? { lastId: record.lastId } : {}) },
        dirty: false,
      };
      this.generators.set(apiKey, generator);
    }
    const drawn = generator;
    return new SeededRandom(drawn.holder, this.idTime, () => {
      // During a call the account is put once, when it ends (hold); outside one, at once.
      if (this.heldAt === undefined) this.keep(drawn);
      else {
        drawn.dirty = true;
        this.drawnFrom.add(drawn);
      }
    });
  }

  /** Puts the generator's state with its account. */
  private keep(generator: Generator): void {
    generator.dirty = false;
    const current = this.store.get("accounts", generator.apiKey, generator.apiKey);
    // The account went (a reset): its generator with it.
    if (!current) return;
    generator.record = this.store.put("accounts", {
      ...current,
      random: [...generator.holder.random],
      ...(generator.holder.lastId !== undefined ? { lastId: generator.holder.lastId } : {}),
    });
  }

  /** Records an event of the account and schedules what follows it (its deliveries), due now. */
  fire(apiKey: string, type: string, payload: unknown): EventRecord {
    this.account(apiKey);
    const envelope = {
      id: `evt_${this.random(apiKey).ulid()}`,
      type,
      payload: payload as Record<string, unknown>,
      createdAt: this.now(),
    };
    const event = this.store.put("events", {
      id: envelope.id,
      account: apiKey,
      envelope,
      body: JSON.stringify(envelope),
    });
    this.parts.fired(apiKey, event);
    return event;
  }

  /** Puts a task on the clock; its flow's runner runs it when it falls due (at the latest, at the clock's end). */
  schedule(request: TaskRequestOf<T>): void {
    this.fresh();
    // Copied with Object.assign, not spread: V8 (Node 20) makes `{ ...fresh, id }` of an object literal and
    // then freezes it (the store does) some 30 times slower than this (docs/design/sandbox-throughput.md).
    const task = Object.assign({}, request, {
      dueAt: Math.min(request.dueAt, CLOCK_RANGE.max),
      id: this.store.takeTaskId(),
    }) as unknown as T;
    this.tasks.push(task);
    this.store.put("tasks", { id: String(task.id), account: task.apiKey, task });
    // The timer already wakes in time for anything due at or after the time it is set for.
    if (this.timerDueAt === undefined || task.dueAt < this.timerDueAt) this.arm();
  }

  /**
   * Takes the account's pending tasks that match off the clock (not those whose work is under way). They go from
   * the store at once; the heap drops them when they reach its top, or all at once when they are half of it.
   */
  cancel(apiKey: string, matches: (task: T) => boolean): void {
    this.fresh();
    let cancelled = 0;
    for (const record of this.store.list("tasks", apiKey)) {
      const task = record.task as T;
      if (this.background.has(task.id) || !matches(task)) continue;
      this.store.delete("tasks", apiKey, record.id);
      cancelled++;
    }
    this.tasks.cancelled(cancelled);
  }

  /** The tasks waiting on the clock, in no particular order (not those whose work is under way). */
  pending(): readonly T[] {
    this.fresh();
    return this.tasks.all();
  }

  /** Back to no accounts: they are seeded again on use; pending tasks go with them. */
  reset(): void {
    this.store.reset();
    this.fresh();
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
   * Until it settles, the task stays in the store (a restart runs it again) and an advance waits for it before
   * running tasks of the same account due after `followUpAt` (runDue). `work` records its own outcome; the work
   * settles once that outcome is committed, so a caller that sees the sandbox idle (`busy` false) sees it saved.
   */
  inBackground(task: T, followUpAt: number | undefined, work: (signal: AbortSignal) => Promise<void>): void {
    this.background.set(task.id, { task, followUpAt });
    work(this.stopping.signal)
      .catch(() => undefined)
      .then(() => {
        // A stopped sandbox keeps the task: its state was last written with it, to run again at the next start.
        if (this.stopped) return;
        this.store.delete("tasks", task.apiKey, String(task.id));
        return this.store.commit().catch(() => undefined);
      })
      .finally(() => {
        if (this.stopped) return;
        this.background.delete(task.id);
        // The commit failed and was undone: the task is saved as due again, so it runs again.
        if (this.store.get("tasks", task.apiKey, String(task.id)) && !this.tasks.has(task)) {
          this.tasks.push(task);
          this.arm();
        }
        this.settled.resolve();
        this.settled = signal();
      });
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
      this.fresh();
      const next = this.tasks.top();
      const due = next !== undefined && next.dueAt <= until ? next : undefined;
      const waiting = performance.now() < waitUntil && this.background.size > 0;
      if (waiting && (due === undefined || this.followUpBefore(due))) {
        await this.nextSettled(waitUntil);
        continue;
      }
      if (due === undefined) break;
      this.tasks.pop();
      this.clock.advanceTo(due.dueAt);
      try {
        // A task of an account that is gone has nothing left to act on.
        if (this.hasAccount(due.apiKey)) await this.hold(() => this.parts.run(due));
      } finally {
        // Gone from the store once run, unless its work goes on in the background.
        if (!this.background.has(due.id)) this.store.delete("tasks", due.apiKey, String(due.id));
      }
    }
    await this.store.commit();
  }

  /** Whether an attempt of `due`'s account under way could schedule a task due before it (a retry). */
  private followUpBefore(due: T): boolean {
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
    const earliest = this.tasks.top();
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
    // Node only: a browser's timers have no unref (partner-api-devkit/msw).
    this.timer.unref?.();
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

/** node:events where the engine runs in Node, without importing it (the engine runs in a browser too). */
function nodeEvents(): typeof import("node:events") | undefined {
  const nodeProcess = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return nodeProcess?.getBuiltinModule?.("node:events") as typeof import("node:events") | undefined;
}
