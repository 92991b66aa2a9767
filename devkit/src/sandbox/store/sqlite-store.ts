/**
 * The store with a state file: the records in memory (tables.ts), and in one SQLite database (Node's built-in
 * `node:sqlite`) in write-ahead-log mode, one table per kind of record keyed by its account and id. The changes a
 * request made are written in one transaction before it is answered; the commits asked for in one turn of the
 * event loop share it (group commit). A transaction that fails (a full disk: `SQLITE_FULL`) is rolled back, the
 * records are read back from the database in place of memory, and every commit waiting is refused (the request
 * answers 503): nothing is answered that the database does not hold.
 *
 * One process at a time: the database's `holder` row names the process that has it open (pid, host, when it
 * started), and a sandbox that finds a live one there refuses to start, naming the file and that process. A
 * format version 4 state file (the JSON snapshot and journals of the release before) is migrated once, at the
 * first start on it, and kept beside the database.
 */
import {
  closeSync,
  copyFileSync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
} from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { CLOCK_RANGE_TEXT, inClockRange } from "../clock.ts";
import { OWNERS, type Records, type Row, TABLE_NAMES, type TableName } from "../records.ts";
import { ChangeSet } from "./changes.ts";
import { StateNotSavedError } from "./errors.ts";
import { looksLikeFormat4, readFormat4 } from "./format4.ts";
import {
  checkRecord,
  checkRecords,
  type LoadedState,
  type RecordLists,
  refusal,
  SandboxStateError,
  StateFileInUseError,
} from "./state-file.ts";
import { MemoryStore, type Store, type TableSource } from "./tables.ts";

/** The schema's version, in `PRAGMA user_version`: a newer one is refused, an older one migrated. */
export const SCHEMA_VERSION = 1;
/** `PRAGMA application_id`: the database is a sandbox state ("PASB"). */
export const APPLICATION_ID = 0x50415342;
/** Every state file is created readable by its owner only: it holds API keys and webhook signing secrets. */
const STATE_FILE_MODE = 0o600;
const SQLITE_HEADER = "SQLite format 3\u0000";

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

/**
 * `PRAGMA synchronous`: NORMAL (the default) syncs the write-ahead log only at checkpoints, so a power cut may
 * lose the last commits (never corrupt the file; a process crash loses nothing committed); FULL syncs it at every
 * commit, on the event loop (node:sqlite is synchronous), so every request waits for the disk. The persistence
 * benchmark measures both: docs/design/sandbox-store.md.
 */
export type Synchronous = "FULL" | "NORMAL";

export interface SqliteStoreOptions {
  synchronous?: Synchronous;
  /** false: one transaction per commit, written when asked for (to measure group commit against). Default true. */
  groupCommit?: boolean;
}

/** The parts of `node:sqlite` used here (typed here: the devkit builds against Node 20's types too). */
export interface Statement {
  run(...values: (string | number | null)[]): { changes: number | bigint };
  get(...values: (string | number | null)[]): Record<string, unknown> | undefined;
  all(...values: (string | number | null)[]): Record<string, unknown>[];
}
export interface Database {
  exec(sql: string): void;
  prepare(sql: string): Statement;
  close(): void;
}
interface SqliteModule {
  DatabaseSync: new (file: string, options?: { readOnly?: boolean }) => Database;
}

/**
 * Node 22 prints "ExperimentalWarning: SQLite is an experimental feature" when `node:sqlite` is first loaded (24 and
 * later do not): a sandbox that prints a warning on every start reads as broken, so that one warning, and only while
 * the module loads, is not passed on. Every other warning still is. The checkpoint thread does the same (below).
 */
function withoutSqliteWarning<T>(load: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: typeof process, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === "string" ? warning : warning.message;
    if (/^SQLite is an experimental feature/.test(text)) return;
    return Reflect.apply(emitWarning, this, [warning, ...rest]);
  } as typeof process.emitWarning;
  try {
    return load();
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** `node:sqlite`, or a refusal naming what the runtime lacks. */
function sqliteModule(shownAs: string): SqliteModule {
  let module: SqliteModule | undefined;
  try {
    module = withoutSqliteWarning(
      () => process.getBuiltinModule?.("node:sqlite") as unknown as SqliteModule | undefined,
    );
  } catch {
    module = undefined;
  }
  if (!module?.DatabaseSync)
    throw new SandboxStateError(
      `--state ${shownAs} needs node:sqlite (Node 22.13 or later), which this runtime (${process.release?.name ?? "unknown"} ${process.version}) lacks; run the sandbox on Node 24, or without --state (the state then lives in memory)`,
    );
  return module;
}

/** A connection to an SQLite file (`node:sqlite`'s DatabaseSync): for tests and tools that look at a state file. */
export function openDatabase(file: string, options: { readOnly?: boolean } = {}): Database {
  return new (sqliteModule(file).DatabaseSync)(file, options);
}

/** The state files this process has open (by real path): a second open is refused as another process's is. */
const OPEN_HERE = new Set<string>();

interface TableStatements {
  insert: Statement;
  update: Statement;
  delete: Statement;
  clear: Statement;
}

export class SqliteStore extends MemoryStore implements PersistentStore {
  private readonly changes = new ChangeSet();
  private waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];
  private scheduled = false;
  private readonly statements: { [T in TableName]: TableStatements };
  private readonly setClock: Statement;
  private readonly setNextTaskId: Statement;
  private readonly begin: Statement;
  private readonly end: Statement;
  private written: { clock: string; nextTaskId: number };
  private rollbacks = 0;
  private closed = false;
  private readonly groupCommit: boolean;
  private readonly db: Database;
  private readonly context: StoreContext;
  /** The real path this process's claim is kept under. */
  private readonly held: string;
  readonly loaded: LoadedState | undefined;
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
    this.written = { clock: loaded?.clock ?? "", nextTaskId: this.nextTaskId };
    this.statements = Object.fromEntries(
      TABLE_NAMES.map((name) => [
        name,
        {
          insert: db.prepare(`INSERT INTO ${name} (account, id, owner, record) VALUES (?, ?, ?, ?)`),
          update: db.prepare(`UPDATE ${name} SET owner = ?, record = ? WHERE account = ? AND id = ?`),
          delete: db.prepare(`DELETE FROM ${name} WHERE account = ? AND id = ?`),
          clear: db.prepare(`DELETE FROM ${name}`),
        },
      ]),
    ) as { [T in TableName]: TableStatements };
    this.setClock = db.prepare("UPDATE sandbox SET clock = ?");
    this.setNextTaskId = db.prepare("UPDATE sandbox SET next_task_id = ?");
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.end = db.prepare("COMMIT");
    // Checkpoints (the log copied into the database, and both synced) run on a connection of their own in a
    // worker thread, not in a commit on the event loop: a sync of megabytes there held every request up.
    db.exec("PRAGMA wal_autocheckpoint = 0");
    this.checkpointer = new Checkpointer(context.file, options.synchronous ?? "NORMAL");
  }

  /** Opens (or creates, or migrates to) the state file's database and claims it for this process. */
  static open(context: StoreContext, options: SqliteStoreOptions = {}): SqliteStore {
    const { file, shownAs } = context;
    const sqlite = sqliteModule(shownAs);
    const refuse = refusal(shownAs);
    let migratedFrom: LoadedState["migratedFrom"];
    const kind = fileKind(file, shownAs);
    if (kind === "other")
      throw refuse("is not a sandbox state file (neither an SQLite database nor a state file of format version 4)");
    if (kind === "format4") migratedFrom = migrateFormat4(sqlite, context, options);
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
      configure(db, options.synchronous ?? "NORMAL");
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
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.groupCommit) this.writeWaiting();
      else if (!this.scheduled) {
        this.scheduled = true;
        // The commits asked for in this turn of the event loop (the requests read in it) share one transaction.
        setImmediate(() => this.writeWaiting());
      }
    });
  }

  override async flush(): Promise<void> {
    if (this.waiting.length > 0) this.writeWaiting();
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    this.writeWaiting();
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

  private writeWaiting(): void {
    this.scheduled = false;
    const batch = this.waiting.splice(0);
    if (batch.length === 0) return;
    try {
      this.write();
      for (const waiter of batch) waiter.resolve();
    } catch (error) {
      this.rollbacks++;
      const failure = new StateNotSavedError(
        `the change was not saved to the sandbox state file ${this.context.shownAs} (${(error as Error).message}), so it was undone; the sandbox holds what the file holds`,
      );
      this.reload();
      for (const waiter of batch) waiter.reject(failure);
    }
  }

  /** The changes since the last commit, in one transaction. */
  private write(): void {
    const clock = this.context.clock();
    const nextTaskId = this.nextTaskId;
    const { reset, changes } = this.changes.take();
    if (!reset && changes.length === 0 && clock === this.written.clock && nextTaskId === this.written.nextTaskId)
      return;
    this.begin.run();
    try {
      if (reset) for (const name of TABLE_NAMES) this.statements[name].clear.run();
      for (const change of changes) {
        const statements = this.statements[change[1]];
        if (change[0] === "delete") {
          statements.delete.run(change[2], change[3]);
          continue;
        }
        const record = change[2];
        const owner = (OWNERS[change[1]] as (record: Row) => string)(record);
        const text = JSON.stringify(record);
        if (change[0] === "update" && statements.update.run(owner, text, record.account, record.id).changes !== 0)
          continue;
        // An insert goes last (a new seq): one that moved to another owner leaves its old place.
        statements.delete.run(record.account, record.id);
        statements.insert.run(record.account, record.id, owner, text);
      }
      if (clock !== this.written.clock) this.setClock.run(clock);
      if (nextTaskId !== this.written.nextTaskId) this.setNextTaskId.run(nextTaskId);
      this.end.run();
    } catch (error) {
      try {
        this.db.exec("ROLLBACK");
      } catch {
        // SQLite rolled it back already (as it does on some errors).
      }
      throw error;
    }
    this.written = { clock, nextTaskId };
    this.checkpointer.wrote();
  }

  /** After a failed commit: the records as the database holds them, in place of memory. */
  private reload(): void {
    this.changes.clear();
    try {
      const read = readSettings(this.db, refusal(this.context.shownAs));
      this.attach(sourceOf(this.db, this.context.shownAs), EAGER, read?.nextTaskId ?? 1, true);
      this.written = { clock: read?.clock ?? "", nextTaskId: this.nextTaskId };
    } catch {
      // Unreadable now: memory keeps what it holds, and the next commit is compared with nothing written.
      this.written = { clock: "", nextTaskId: -1 };
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

/** What the checkpoint thread runs: a connection of its own, a passive checkpoint (writers go on) when asked. */
const CHECKPOINT_THREAD = `
const { parentPort, workerData } = require("node:worker_threads");
const emitWarning = process.emitWarning;
process.emitWarning = (warning, ...rest) =>
  /^SQLite is an experimental feature/.test(String(warning?.message ?? warning)) ? undefined : emitWarning.call(process, warning, ...rest);
const { DatabaseSync } = process.getBuiltinModule("node:sqlite");
process.emitWarning = emitWarning;
const db = new DatabaseSync(workerData.file);
db.exec("PRAGMA busy_timeout = 1000; PRAGMA synchronous = " + workerData.synchronous);
parentPort.on("message", (message) => {
  if (message === "close") {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.exec("PRAGMA wal_checkpoint(PASSIVE)");
  } catch {
    // A full disk, a reader in the way: the next one tries again, and the log keeps what it holds.
  }
  parentPort.postMessage("done");
});
`;

/** Asks the checkpoint thread for a checkpoint after every CHECKPOINT_EVERY commits, one at a time. */
const CHECKPOINT_EVERY = 200;

class Checkpointer {
  private readonly worker: Worker;
  private commits = 0;
  private running = false;
  private readonly exited: Promise<void>;

  constructor(file: string, synchronous: Synchronous) {
    this.worker = new Worker(CHECKPOINT_THREAD, { eval: true, workerData: { file, synchronous } });
    this.worker.unref();
    this.worker.on("message", () => {
      this.running = false;
    });
    this.worker.on("error", () => {
      this.running = true;
    });
    this.exited = new Promise((resolve) => this.worker.once("exit", () => resolve()));
  }

  wrote(): void {
    if (++this.commits < CHECKPOINT_EVERY || this.running) return;
    this.commits = 0;
    this.running = true;
    this.worker.postMessage("checkpoint");
  }

  async close(): Promise<void> {
    // Held while it closes: an unreferenced thread would leave a process that waits on nothing else to exit
    // with the wait unsettled.
    this.worker.ref();
    this.worker.postMessage("close");
    await this.exited;
  }
}

/** The store of a state file the sandbox uses unless told otherwise. */
export async function openSqliteStore(context: StoreContext, options?: SqliteStoreOptions): Promise<SqliteStore> {
  return SqliteStore.open(context, options);
}

function fileKind(file: string, shownAs: string): "missing" | "sqlite" | "format4" | "other" {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "missing";
    throw new SandboxStateError(`sandbox state file ${shownAs} cannot be read: ${(error as Error).message}`);
  }
  try {
    const start = Buffer.alloc(256);
    const length = readSync(fd, start, 0, start.length, 0);
    // SQLite makes an empty file a database.
    if (length === 0) return "sqlite";
    if (start.subarray(0, length).toString("latin1").startsWith(SQLITE_HEADER)) return "sqlite";
    return looksLikeFormat4(start.subarray(0, length)) ? "format4" : "other";
  } finally {
    closeSync(fd);
  }
}

/** A new state file is its owner's only; the log and index files SQLite makes take the database's mode. */
function chmodNew(file: string): void {
  try {
    closeSync(openSync(file, "a", STATE_FILE_MODE));
  } catch {
    // SQLite made it already; it reports what is wrong on its own.
  }
}

function configure(db: Database, synchronous: Synchronous): void {
  // A reader (the sqlite3 command) or a sandbox starting alongside holds a lock for a moment: wait for it.
  db.exec("PRAGMA busy_timeout = 2000");
  const mode = db.prepare("PRAGMA journal_mode = WAL").get()?.journal_mode;
  if (mode !== "wal") throw new Error(`its write-ahead log could not be turned on (journal mode ${String(mode)})`);
  db.exec(`PRAGMA synchronous = ${synchronous}`);
}

/** Whether the database is a sandbox state of a schema this version reads, or new (empty); else a refusal. */
function checkSchema(db: Database, refuse: (why: string) => SandboxStateError): "new" | "state" {
  const version = Number(db.prepare("PRAGMA user_version").get()?.user_version);
  const applicationId = Number(db.prepare("PRAGMA application_id").get()?.application_id);
  const tables = Number(db.prepare("SELECT count(*) AS n FROM sqlite_schema").get()?.n);
  if (version === 0 && applicationId === 0 && tables === 0) return "new";
  if (applicationId !== APPLICATION_ID)
    throw refuse("is an SQLite database, but not a sandbox state (its application_id is not the sandbox's)");
  if (version > SCHEMA_VERSION)
    throw refuse(
      `was written by a newer sandbox (schema version ${version} in PRAGMA user_version; this one reads up to ${SCHEMA_VERSION})`,
    );
  if (version < 1) throw refuse(`is corrupt (schema version ${version} in PRAGMA user_version)`);
  return "state";
}

/** The tables of a new database, in one transaction with the counters. */
function createSchema(db: Database, seed: number, clock: string, nextTaskId: number): void {
  for (const name of TABLE_NAMES)
    db.exec(
      `CREATE TABLE ${name} (seq INTEGER PRIMARY KEY, account TEXT NOT NULL, id TEXT NOT NULL, owner TEXT NOT NULL, record TEXT NOT NULL, UNIQUE (account, id)) STRICT`,
    );
  db.exec(
    "CREATE TABLE sandbox (only INTEGER PRIMARY KEY CHECK (only = 1), seed INTEGER NOT NULL, clock TEXT NOT NULL, next_task_id INTEGER NOT NULL) STRICT",
  );
  db.exec(
    "CREATE TABLE holder (only INTEGER PRIMARY KEY CHECK (only = 1), pid INTEGER NOT NULL, host TEXT NOT NULL, since TEXT NOT NULL, process_start TEXT) STRICT",
  );
  db.prepare("INSERT INTO sandbox (only, seed, clock, next_task_id) VALUES (1, ?, ?, ?)").run(seed, clock, nextTaskId);
  db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
  db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
}

/**
 * Checks the schema (creating it in a new database) and claims the file for this process in one write
 * transaction, so of two sandboxes starting at once one claims it and the other finds the claim. A claim whose
 * process is gone (a `kill -9`) is taken over. Returns the real path the claim is kept under in this process.
 */
function claim(
  db: Database,
  file: string,
  shownAs: string,
  refuse: (why: string) => SandboxStateError,
  seed: number,
): string {
  db.exec("BEGIN IMMEDIATE");
  let real: string | undefined;
  try {
    if (checkSchema(db, refuse) === "new") createSchema(db, seed, new Date(0).toISOString(), 1);
    real = realpathSync(file);
    const holder = db.prepare("SELECT pid, host, since, process_start FROM holder").get() as
      | { pid: number; host: string; since: string; process_start: string | null }
      | undefined;
    if (holder && (OPEN_HERE.has(real) || holder.pid !== process.pid) && holderAlive(holder))
      throw new StateFileInUseError(
        `sandbox state file ${shownAs} is in use by process ${holder.pid} on ${holder.host} (a sandbox started on it at ${holder.since}); stop that sandbox first, or pass another --state` +
          (holder.host !== hostname()
            ? ` (if that process is gone, remove its claim: sqlite3 ${shownAs} "DELETE FROM holder")`
            : ""),
      );
    if (OPEN_HERE.has(real))
      throw new StateFileInUseError(
        `sandbox state file ${shownAs} is in use by another sandbox of this process (${process.pid}); stop it first, or pass another --state`,
      );
    db.prepare("INSERT OR REPLACE INTO holder (only, pid, host, since, process_start) VALUES (1, ?, ?, ?, ?)").run(
      process.pid,
      hostname(),
      new Date().toISOString(),
      processStart(process.pid) ?? null,
    );
    db.exec("COMMIT");
  } catch (error) {
    try {
      db.exec("ROLLBACK");
    } catch {
      // Rolled back already.
    }
    throw error;
  }
  OPEN_HERE.add(real);
  return real;
}

/** At a clean stop: the claim goes, so the next sandbox starts without looking for this process. */
function release(db: Database, real: string): void {
  OPEN_HERE.delete(real);
  try {
    db.prepare("DELETE FROM holder WHERE pid = ?").run(process.pid);
  } catch {
    // A full disk: the claim stays, and the next start finds this process gone.
  }
}

/** Whether the process a claim names is still running (another host's: assumed so, as it cannot be asked). */
function holderAlive(holder: { pid: number; host: string; process_start: string | null }): boolean {
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  // A pid taken again by another process since: its start time differs.
  const start = processStart(holder.pid);
  return !(start !== undefined && holder.process_start !== null && start !== holder.process_start);
}

/** When a process started (Linux: /proc/<pid>/stat's start time, in clock ticks since boot); undefined elsewhere. */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** The tables read whole at start (the engine schedules every task, and counts and names every account). */
const EAGER: readonly TableName[] = ["accounts", "tasks"];

/** Each table's records, read from the database an account at a time (or whole), checked. */
function sourceOf(db: Database, shownAs: string): (table: TableName) => TableSource {
  const refuse = refusal(shownAs);
  return (table) => {
    const byAccount = db.prepare(`SELECT record FROM ${table} WHERE account = ? ORDER BY seq`);
    const every = db.prepare(`SELECT record FROM ${table} ORDER BY seq`);
    const parsed = (rows: Record<string, unknown>[]) =>
      rows.map((row) => {
        try {
          return checkRecord(table, JSON.parse(row.record as string)) as Row;
        } catch (error) {
          throw refuse(
            `is corrupt (${error instanceof SyntaxError ? `a record of "${table}" is not JSON` : (error as Error).message})`,
          );
        }
      });
    return { account: (account) => parsed(byAccount.all(account)), every: () => parsed(every.all()) };
  };
}

/** The counters and how many records each table holds; undefined for a database with no commit yet. */
function readSettings(
  db: Database,
  refuse: (why: string) => SandboxStateError,
): Omit<LoadedState, "migratedFrom"> | undefined {
  const row = db.prepare("SELECT seed, clock, next_task_id FROM sandbox").get() ?? {};
  const { seed, clock, next_task_id: nextTaskId } = row;
  if (typeof seed !== "number" || typeof clock !== "string" || typeof nextTaskId !== "number")
    throw refuse("is corrupt (its seed, clock or nextTaskId is missing or of the wrong type)");
  // A database made by a start that never committed holds no state yet.
  if (Date.parse(clock) === 0) return undefined;
  if (!inClockRange(Date.parse(clock)))
    throw refuse(`is corrupt (its clock ${clock} is outside the sandbox clock's range, ${CLOCK_RANGE_TEXT})`);
  const counts = Object.fromEntries(
    TABLE_NAMES.map((name) => [name, Number(db.prepare(`SELECT count(*) AS n FROM ${name}`).get()?.n)]),
  ) as LoadedState["counts"];
  return { seed, clock, nextTaskId, counts };
}

/** The counters and every table's records, in the order first put; undefined for a database with no commit yet. */
function readState(
  db: Database,
  shownAs: string,
): { state: Omit<LoadedState, "migratedFrom">; records: RecordLists } | undefined {
  const state = readSettings(db, refusal(shownAs));
  if (!state) return undefined;
  const source = sourceOf(db, shownAs);
  const records = Object.fromEntries(TABLE_NAMES.map((name) => [name, [...source(name).every()]])) as RecordLists;
  return { state, records };
}

/**
 * The one-time migration of a format version 4 state file: its records are written into a new database beside
 * it, which is then renamed into its place; the old snapshot and journals are kept beside it
 * (`<state>.format-4`, `<state>.format-4.journal-<n>`). A kill at any step leaves either the old files (the next
 * start migrates again) or the database.
 */
function migrateFormat4(sqlite: SqliteModule, context: StoreContext, options: SqliteStoreOptions) {
  const { file, shownAs } = context;
  const old = readFormat4(file, shownAs);
  let records: RecordLists;
  try {
    records = checkRecords(old.records);
  } catch (error) {
    throw refusal(shownAs)(`is corrupt (${(error as Error).message})`);
  }
  if (!inClockRange(Date.parse(old.clock)))
    throw refusal(shownAs)(
      `is corrupt (its clock ${old.clock} is outside the sandbox clock's range, ${CLOCK_RANGE_TEXT})`,
    );
  const temporary = `${file}.migrating`;
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${temporary}${suffix}`, { force: true });
  chmodNew(temporary);
  const db = new sqlite.DatabaseSync(temporary);
  try {
    configure(db, options.synchronous ?? "NORMAL");
    db.exec("BEGIN IMMEDIATE");
    createSchema(db, old.seed, old.clock, old.nextTaskId);
    for (const name of TABLE_NAMES) {
      const insert = db.prepare(`INSERT INTO ${name} (account, id, owner, record) VALUES (?, ?, ?, ?)`);
      const owner = OWNERS[name] as (record: Row) => string;
      for (const record of records[name] as Records[TableName][])
        insert.run(record.account, record.id, owner(record), JSON.stringify(record));
    }
    db.exec("COMMIT");
  } finally {
    db.close();
  }
  const keptAs = `${file}.format-4`;
  copyFileSync(file, keptAs);
  syncFile(keptAs);
  renameSync(temporary, file);
  syncFile(path.dirname(file));
  const kept = [keptAs];
  for (const journal of old.journals) {
    const to = `${keptAs}${journal.slice(file.length)}`;
    renameSync(journal, to);
    kept.push(to);
  }
  return { format: 4, keptAs: kept.map((name) => path.basename(name)) };
}

function syncFile(name: string): void {
  const fd = openSync(name, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
