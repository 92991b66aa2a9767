/**
 * The store: the sandbox's records in tables (records.ts), read by id or by owner, changed only by `put` and
 * `delete`. What is put is frozen, so a record changed in place is a TypeError where it happens, never a change
 * the state file misses: every change goes through here, and a persistent store (sqlite-store.ts) writes what
 * was put. One commit per call makes the changes durable before the call is answered.
 *
 * A record is kept under its account and id, so an id is looked up within the account that asks (one account
 * never reads or overwrites another's record, whatever its id), and listed per owner in the order first put.
 */
import { OWNERS, type Records, type Row, TABLE_NAMES, type TableName } from "../records.ts";

/** What every store answers and takes: the records, and the sandbox's two counters beside them. */
export interface Store {
  /** The seed the sandbox was started with (a state file keeps its own). */
  readonly seed: number;
  /** The number the next timed task gets (task numbers never repeat, across restarts too). */
  readonly nextTaskId: number;
  /** Counts up at every reset and every reload: what a cache built from the records was built against. */
  readonly epoch: number;
  /** Counts the commits refused and undone: a change made before one and committed after it was undone with it. */
  readonly undone: number;
  /** One of the account's records, by id. */
  get<T extends TableName>(table: T, account: string, id: string): Records[T] | undefined;
  /** The account's records under one owner (the account itself by default), in the order first put. */
  list<T extends TableName>(table: T, account: string, owner?: string): readonly Records[T][];
  /** How many records are under one owner (the account by default). */
  count(table: TableName, account: string, owner?: string): number;
  /** Every record of a table, account by account (in the order each was first put), each in the order first put. */
  all<T extends TableName>(table: T): IterableIterator<Records[T]>;
  /** How many records the table holds, in every account. */
  size(table: TableName): number;
  /** The account whose record has this id, whichever account it is (the first one to take it). */
  accountOf(table: TableName, id: string): string | undefined;
  /** Stores the record (frozen, and returned) in place of the one with its id, or after the owner's others. */
  put<T extends TableName>(table: T, record: Records[T]): Records[T];
  /** Removes a record; nothing when there is none. */
  delete(table: TableName, account: string, id: string): void;
  /** Takes the next task number. */
  takeTaskId(): number;
  /** Drops every record of every table (the counters stay). */
  reset(): void;
  /** Resolves once every change made before the call is durable; rejects (the change undone) when it cannot be. */
  commit(): Promise<void>;
  /** Waits for writes in flight. */
  flush(): Promise<void>;
  /** At a clean stop, once the last write is done. */
  close(): Promise<void>;
  /** Called after the records were read back from the files in place of memory (a write that failed was undone). */
  onReload(listener: () => void): void;
}

/** What a persistent store is told of each change, in the order they are made. */
export interface ChangeRecorder {
  /** `inserted`: the record was not there before (it goes last among its owner's), else it was replaced in place. */
  put(table: TableName, record: Row, inserted: boolean): void;
  delete(table: TableName, account: string, id: string): void;
  reset(): void;
}

/**
 * The key a record is kept under: its account and id, unambiguous whatever the strings hold (the account's
 * length first).
 */
export function recordKey(account: string, id: string): string {
  return `${account.length}\u0000${account}${id}`;
}

/**
 * One owner's records: by id in the order first put, and the same as an array once asked for (with each id's
 * place in it, so a record put in place is replaced there rather than the array made again).
 */
interface OwnerList {
  readonly byId: Map<string, Row>;
  array: Row[] | undefined;
  at: Map<string, number> | undefined;
}

/** Where a record is held: replaced in place by a put, so the table's order stays the order records were first put. */
interface Slot {
  record: Row;
}

/** One account's part of a table. */
interface AccountPart {
  readonly slots: Map<string, Slot>;
  readonly owners: Map<string, OwnerList>;
}

/**
 * Where a table's records are read from when they are not in memory yet (a state file): one account's, or every
 * account's, each in the order first put, checked and ready to freeze.
 */
export interface TableSource {
  account(account: string): Iterable<Row>;
  every(): Iterable<Row>;
}

class Table {
  /** Every record's slot (its size is the table's). */
  private readonly order = new Set<Slot>();
  /** Each account's records by id, and its owners' lists. */
  private readonly accounts = new Map<string, AccountPart>();
  /** Id → the accounts holding it, built on the first cross-account lookup and kept from then on. */
  private byIdAcross: Map<string, string[]> | undefined;
  /** The accounts read from the source so far (each is read on its first use). */
  private readonly read = new Set<string>();
  /** Every account is in memory: the source is read no more. */
  private complete: boolean;

  private readonly ownerOf: (record: Row) => string;
  private readonly source?: TableSource;
  constructor(ownerOf: (record: Row) => string, source?: TableSource) {
    this.ownerOf = ownerOf;
    this.source = source;
    this.complete = source === undefined;
  }

  /** The account's records, read from the source on its first use. */
  private ensure(account: string): void {
    if (this.complete || this.read.has(account)) return;
    this.read.add(account);
    for (const record of this.source!.account(account)) this.put(deepFreeze(record));
  }

  /** Every account's records in memory (the accounts read already keep what memory holds). */
  ensureAll(): void {
    if (this.complete) return;
    this.complete = true;
    for (const record of this.source!.every()) if (!this.read.has(record.account)) this.put(deepFreeze(record));
  }

  get size(): number {
    this.ensureAll();
    return this.order.size;
  }

  get(account: string, id: string): Row | undefined {
    this.ensure(account);
    return this.accounts.get(account)?.slots.get(id)?.record;
  }

  list(account: string, owner: string): readonly Row[] {
    this.ensure(account);
    const list = this.accounts.get(account)?.owners.get(owner);
    if (!list) return EMPTY;
    if (!list.array) {
      list.array = [...list.byId.values()];
      list.at = new Map(list.array.map((record, index) => [record.id, index]));
    }
    return list.array;
  }

  count(account: string, owner: string): number {
    this.ensure(account);
    return this.accounts.get(account)?.owners.get(owner)?.byId.size ?? 0;
  }

  accountOf(id: string): string | undefined {
    if (!this.byIdAcross) {
      this.ensureAll();
      this.byIdAcross = new Map();
      for (const { record } of this.order) this.across(record.id, record.account);
    }
    return this.byIdAcross.get(id)?.[0];
  }

  private across(id: string, account: string): void {
    const accounts = this.byIdAcross!.get(id);
    if (!accounts) this.byIdAcross!.set(id, [account]);
    else if (!accounts.includes(account)) accounts.push(account);
  }

  /** Puts the record; true when it was not there before (it goes last), false when it replaced one in place. */
  put(record: Row): boolean {
    this.ensure(record.account);
    const owner = this.ownerOf(record);
    let part = this.accounts.get(record.account);
    let slot = part?.slots.get(record.id);
    // A record that moves to another owner is put as new: last in both orders.
    if (slot && this.ownerOf(slot.record) !== owner) {
      this.delete(record.account, record.id);
      part = this.accounts.get(record.account);
      slot = undefined;
    }
    if (!part) {
      part = { slots: new Map(), owners: new Map() };
      this.accounts.set(record.account, part);
    }
    let list = part.owners.get(owner);
    if (!list) {
      list = { byId: new Map(), array: undefined, at: undefined };
      part.owners.set(owner, list);
    }
    list.byId.set(record.id, record);
    if (slot) {
      slot.record = record;
      if (list.array) list.array[list.at!.get(record.id)!] = record;
      return false;
    }
    slot = { record };
    part.slots.set(record.id, slot);
    this.order.add(slot);
    if (list.array) {
      list.at!.set(record.id, list.array.length);
      list.array.push(record);
    }
    if (this.byIdAcross) this.across(record.id, record.account);
    return true;
  }

  delete(account: string, id: string): boolean {
    this.ensure(account);
    const part = this.accounts.get(account);
    const slot = part?.slots.get(id);
    if (!part || !slot) return false;
    part.slots.delete(id);
    this.order.delete(slot);
    const owner = this.ownerOf(slot.record);
    const list = part.owners.get(owner)!;
    list.byId.delete(id);
    list.array = undefined;
    list.at = undefined;
    if (list.byId.size === 0) part.owners.delete(owner);
    if (part.slots.size === 0) this.accounts.delete(account);
    const accounts = this.byIdAcross?.get(id);
    if (accounts) {
      const rest = accounts.filter((holder) => holder !== account);
      if (rest.length > 0) this.byIdAcross!.set(id, rest);
      else this.byIdAcross!.delete(id);
    }
    return true;
  }

  /** Account by account (in the order each was first put), each account's records in the order first put. */
  *all(): IterableIterator<Row> {
    this.ensureAll();
    for (const part of this.accounts.values()) for (const slot of part.slots.values()) yield slot.record;
  }
}

const EMPTY: readonly Row[] = Object.freeze([]);

/**
 * Freezes a record and everything in it (what is frozen already was frozen whole, so it is not walked again). An
 * object's keys are taken with `Object.keys`, not `for…in`: on a record made by spreading a frozen one (an
 * account put again with its generator's state) `for…in` took V8's slow path, 15 to 20 µs a record against 2.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) for (let index = 0; index < value.length; index++) deepFreeze(value[index]);
  else {
    const keys = Object.keys(value);
    for (let index = 0; index < keys.length; index++) deepFreeze((value as Record<string, unknown>)[keys[index]!]);
  }
  return Object.freeze(value);
}

/** The records in memory: the store a sandbox without a state file has, and what the persistent stores build on. */
export class MemoryStore implements Store {
  private tables = newTables();
  private taskCounter: number;
  private epochCount = 0;
  private readonly reloadListeners: (() => void)[] = [];
  /** Told of every change (a persistent store's change set). */
  protected recorder: ChangeRecorder | undefined;

  readonly seed: number;
  constructor(seed: number, nextTaskId = 1) {
    this.seed = seed;
    this.taskCounter = nextTaskId;
  }

  get nextTaskId(): number {
    return this.taskCounter;
  }

  get epoch(): number {
    return this.epochCount;
  }

  get undone(): number {
    return 0;
  }

  get<T extends TableName>(table: T, account: string, id: string): Records[T] | undefined {
    return this.tables[table].get(account, id) as Records[T] | undefined;
  }

  list<T extends TableName>(table: T, account: string, owner = account): readonly Records[T][] {
    return this.tables[table].list(account, owner) as readonly Records[T][];
  }

  count(table: TableName, account: string, owner = account): number {
    return this.tables[table].count(account, owner);
  }

  all<T extends TableName>(table: T): IterableIterator<Records[T]> {
    return this.tables[table].all() as IterableIterator<Records[T]>;
  }

  size(table: TableName): number {
    return this.tables[table].size;
  }

  accountOf(table: TableName, id: string): string | undefined {
    return this.tables[table].accountOf(id);
  }

  put<T extends TableName>(table: T, record: Records[T]): Records[T] {
    deepFreeze(record);
    const inserted = this.tables[table].put(record);
    this.recorder?.put(table, record, inserted);
    return record;
  }

  delete(table: TableName, account: string, id: string): void {
    if (this.tables[table].delete(account, id)) this.recorder?.delete(table, account, id);
  }

  takeTaskId(): number {
    return this.taskCounter++;
  }

  reset(): void {
    this.tables = newTables();
    this.epochCount++;
    this.recorder?.reset();
  }

  commit(): Promise<void> {
    return Promise.resolve();
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  onReload(listener: () => void): void {
    this.reloadListeners.push(listener);
  }

  /**
   * Puts records read back (from a state file) in place of those in memory, without telling the
   * recorder: they are what the files hold already.
   */
  protected load(records: LoadedRecords, nextTaskId: number, reloaded: boolean): void {
    const tables = newTables();
    for (const name of TABLE_NAMES)
      for (const record of records[name] ?? []) tables[name].put(deepFreeze(record) as Row);
    this.tables = tables;
    this.taskCounter = nextTaskId;
    this.epochCount++;
    if (reloaded) for (const listener of this.reloadListeners) listener();
  }

  /**
   * Reads records from a state file in place of those in memory, without telling the recorder: each table's
   * `eager` ones now, the others an account at a time on its first use (a large state starts without reading
   * what no call asks for yet).
   */
  protected attach(
    source: (table: TableName) => TableSource,
    eager: readonly TableName[],
    nextTaskId: number,
    reloaded: boolean,
  ): void {
    const tables = newTables(source);
    for (const name of eager) tables[name].ensureAll();
    this.tables = tables;
    this.taskCounter = nextTaskId;
    this.epochCount++;
    if (reloaded) for (const listener of this.reloadListeners) listener();
  }
}

/** Records as a state file or a migration gives them: each table's in the order they were first put. */
export type LoadedRecords = { [T in TableName]?: Iterable<Records[T]> };

function newTables(source?: (table: TableName) => TableSource): { [T in TableName]: Table } {
  return Object.fromEntries(
    TABLE_NAMES.map((name) => [name, new Table(OWNERS[name] as (record: Row) => string, source?.(name))]),
  ) as { [T in TableName]: Table };
}
