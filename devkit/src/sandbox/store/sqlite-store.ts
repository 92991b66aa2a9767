/**
 * The store with a state file: the records in memory (tables.ts), and in one SQLite database (Node's built-in
 * `node:sqlite`) in write-ahead-log mode, one table per kind of record keyed by its account and id. The changes a
 * request made are written in one transaction before it is answered (writer.ts). Group commit: every commit asked
 * for in one turn of the event loop (the requests read in it) shares one transaction, written at the turn's end
 * (`setImmediate`), and each is answered once it has committed. A transaction that fails (a full disk:
 * `SQLITE_FULL`) is rolled back, the records are read back from the database in place of memory, and every commit
 * it held is refused (the request answers 503): nothing is answered that the database does not hold.
 *
 * One process at a time: the database's `holder` row names the process that has it open (pid, host, when it
 * started), and a sandbox that finds a live one there refuses to start, naming the file and that process. A
 * format version 4 state file (the JSON snapshot and journals of the release before) is migrated once, at the
 * first start on it, and kept beside the database (sqlite-file.ts).
 */
import { TABLE_NAMES } from "../records.ts";
import { ChangeSet } from "./changes.ts";
import { StateNotSavedError } from "./errors.ts";
import { readFormat4 } from "./format4.ts";
import {
  checkSchema,
  chmodNew,
  claim,
  configure,
  type Database,
  EAGER,
  fileKind,
  migrateFormat4,
  readSettings,
  readState,
  release,
  type Synchronous,
  sourceOf,
  sqliteModule,
} from "./sqlite-file.ts";
import { checkRecords, type LoadedState, type RecordLists, refusal, SandboxStateError } from "./state-file.ts";
import { MemoryStore, type Store } from "./tables.ts";
import { Checkpointer, Writer } from "./writer.ts";

export {
  APPLICATION_ID,
  type Database,
  openDatabase,
  SCHEMA_VERSION,
  type Statement,
  type Synchronous,
} from "./sqlite-file.ts";
export { StateNotSavedError };

/** What a store for a state file is made from: the file, how it is named, the clock to stamp commits with. */
export interface StoreContext {
  file: string;
  shownAs: string;
  /** The seed of a new state (a state read back keeps its own). */
  seed: number;
  /** The clock's reading, as each commit records it. */
  clock: () => string;
}

/** A store that read a state file: what it held (undefined: the file is new). */
export interface PersistentStore extends Store {
  readonly loaded: LoadedState | undefined;
}

export interface SqliteStoreOptions {
  synchronous?: Synchronous;
  /** false: one transaction per commit, written when asked for (to measure group commit against). Default true. */
  groupCommit?: boolean;
}

/** A commit asked for: settled once the transaction holding its changes has committed, or failed. */
interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

export class SqliteStore extends MemoryStore implements PersistentStore {
  private readonly changes = new ChangeSet();
  /** The commits asked for in this turn of the event loop: they share the transaction written at its end. */
  private waiting: Waiter[] = [];
  private scheduled = false;
  /** The counters as the last transaction written wrote them. */
  private taken: { clock: string; nextTaskId: number };
  private rollbacks = 0;
  private closed = false;
  private readonly groupCommit: boolean;
  private readonly db: Database;
  private readonly context: StoreContext;
  /** The real path this process's claim is kept under. */
  private readonly held: string;
  readonly loaded: LoadedState | undefined;
  private readonly writer: Writer;
  private readonly checkpointer: Checkpointer;

  private constructor(
    db: Database,
    context: StoreContext,
    held: string,
    loaded: LoadedState | undefined,
    options: SqliteStoreOptions,
  ) {
    super(loaded?.seed ?? context.seed);
    this.db = db;
    this.context = context;
    this.held = held;
    this.loaded = loaded;
    this.recorder = this.changes;
    this.groupCommit = options.groupCommit ?? true;
    if (loaded) this.attach(sourceOf(db, context.shownAs), EAGER, loaded.nextTaskId, false);
    // A new state's seed is this start's (a database made by a start that never committed has another's).
    else db.prepare("UPDATE sandbox SET seed = ?").run(this.seed);
    this.taken = { clock: loaded?.clock ?? "", nextTaskId: this.nextTaskId };
    // This connection writes (and reads records an account at a time, and after a failed commit); the checkpoint
    // thread checkpoints.
    db.exec("PRAGMA wal_autocheckpoint = 0");
    this.writer = new Writer(db, TABLE_NAMES);
    this.checkpointer = new Checkpointer(context.file, options.synchronous ?? "NORMAL", () => this.schedule());
  }

  /** Opens (or creates, or migrates to) the state file's database and claims it for this process. */
  static open(context: StoreContext, options: SqliteStoreOptions = {}): SqliteStore {
    const { file, shownAs } = context;
    const sqlite = sqliteModule(shownAs);
    const refuse = refusal(shownAs);
    const synchronous = options.synchronous ?? "NORMAL";
    let migratedFrom: LoadedState["migratedFrom"];
    const kind = fileKind(file, shownAs);
    if (kind === "other")
      throw refuse("is not a sandbox state file (neither an SQLite database nor a state file of format version 4)");
    if (kind === "format4") migratedFrom = migrateFormat4(sqlite, file, shownAs, synchronous);
    // A new state file is its owner's only; the log files SQLite makes beside it take its mode.
    if (kind === "missing") chmodNew(file);
    let db: Database;
    try {
      db = new sqlite.DatabaseSync(file);
    } catch (error) {
      throw new SandboxStateError(`sandbox state file ${shownAs} cannot be opened: ${(error as Error).message}`);
    }
    let held: string | undefined;
    try {
      db.exec("PRAGMA busy_timeout = 2000");
      // Checked before anything is written: a database that is not a sandbox state is left as it was.
      checkSchema(db, refuse);
      configure(db, synchronous);
      held = claim(db, file, shownAs, refuse, context.seed);
      const read = readSettings(db, refuse);
      const loaded = read ? { ...read, ...(migratedFrom ? { migratedFrom } : {}) } : undefined;
      return new SqliteStore(db, context, held, loaded, options);
    } catch (error) {
      if (held !== undefined) release(db, held);
      db.close();
      if (error instanceof SandboxStateError) throw error;
      throw new SandboxStateError(`sandbox state file ${shownAs} cannot be opened: ${(error as Error).message}`);
    }
  }

  /** How many commits were refused and rolled back so far: a change made before one was undone by it. */
  override get undone(): number {
    return this.rollbacks;
  }

  override commit(): Promise<void> {
    if (this.closed)
      return Promise.reject(new StateNotSavedError(`the sandbox state file ${this.context.shownAs} is closed`));
    if (!this.groupCommit && !this.checkpointer.holding) {
      // A transaction of its own, of the changes made up to now.
      try {
        this.write();
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(this.failed(error as Error));
      }
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.schedule();
    });
  }

  /**
   * The commits asked for in this turn of the event loop (the requests read in it) go together, at its end; while
   * the checkpointer holds commits, when it lets them go.
   */
  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0 || this.checkpointer.holding) return;
    this.scheduled = true;
    setImmediate(this.writeWaiting);
  }

  /** Writes the changes of the commits waiting, and settles them. */
  private readonly writeWaiting = (): void => {
    this.scheduled = false;
    if (this.checkpointer.holding) return;
    const waiters = this.waiting;
    this.waiting = [];
    try {
      this.write();
    } catch (error) {
      const failure = this.failed(error as Error);
      for (const waiter of waiters) waiter.reject(failure);
      return;
    }
    for (const waiter of waiters) waiter.resolve();
  };

  /** Waits for every commit asked for so far (a failed one is its requester's to report). */
  override async flush(): Promise<void> {
    if (this.waiting.length > 0) await this.commit().catch(() => undefined);
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    // What is left, and the clock's last reading (a restart carries on from it).
    await this.commit().catch(() => undefined);
    this.closed = true;
    release(this.db, this.held);
    await this.checkpointer.close();
    // The last connection's close checkpoints the log into the database and removes it: one file at rest.
    try {
      this.db.close();
    } catch {
      // Closed already.
    }
  }

  /**
   * Writes the changes since the last transaction, and the counters when they moved, in one transaction (nothing
   * when nothing changed); throws, rolled back, when it cannot.
   */
  private write(): void {
    const clock = this.context.clock();
    const nextTaskId = this.nextTaskId;
    const { reset, changes } = this.changes.take();
    const moved = clock !== this.taken.clock || nextTaskId !== this.taken.nextTaskId;
    if (!reset && changes.length === 0 && !moved) return;
    this.writer.write(reset, changes, moved ? [clock, nextTaskId] : undefined);
    this.taken = { clock, nextTaskId };
    this.checkpointer.wrote();
  }

  /**
   * A transaction failed and was rolled back: memory is read back from the database, and the commits it held are
   * refused with the error returned (their changes were made in memory and are gone with it).
   */
  private failed(error: Error): StateNotSavedError {
    this.rollbacks++;
    this.reload();
    return new StateNotSavedError(
      `the change was not saved to the sandbox state file ${this.context.shownAs} (${error.message}), so it was undone; the sandbox holds what the file holds`,
    );
  }

  /** After a failed commit: the records as the database holds them, in place of memory. */
  private reload(): void {
    this.changes.clear();
    try {
      const read = readSettings(this.db, refusal(this.context.shownAs));
      this.attach(sourceOf(this.db, this.context.shownAs), EAGER, read?.nextTaskId ?? 1, true);
      this.taken = { clock: read?.clock ?? "", nextTaskId: this.nextTaskId };
    } catch {
      // Unreadable now: memory keeps what it holds, and the next commit is compared with nothing written.
      this.taken = { clock: "", nextTaskId: -1 };
    }
  }
}

/** What a state file holds, read as a sandbox starting on it would (without claiming it); undefined when there is none. */
export function readStateFile(
  file: string,
  shownAs: string,
): (Omit<LoadedState, "migratedFrom"> & { records: RecordLists }) | undefined {
  const kind = fileKind(file, shownAs);
  if (kind === "missing") return undefined;
  if (kind === "other")
    throw refusal(shownAs)(
      "is not a sandbox state file (neither an SQLite database nor a state file of format version 4)",
    );
  if (kind === "format4") {
    const old = readFormat4(file, shownAs);
    const records = checkRecords(old.records);
    const counts = Object.fromEntries(TABLE_NAMES.map((name) => [name, records[name].length])) as LoadedState["counts"];
    return { seed: old.seed, clock: old.clock, nextTaskId: old.nextTaskId, counts, records };
  }
  const db = new (sqliteModule(shownAs).DatabaseSync)(file, { readOnly: true });
  try {
    db.exec("PRAGMA busy_timeout = 2000");
    const read = readState(db, shownAs);
    return read && { ...read.state, records: read.records };
  } finally {
    db.close();
  }
}

/** The store of a state file the sandbox uses unless told otherwise. */
export async function openSqliteStore(context: StoreContext, options?: SqliteStoreOptions): Promise<SqliteStore> {
  return SqliteStore.open(context, options);
}
