/**
 * The state file's database: loading `node:sqlite`, what kind of file a `--state` is, the schema (created, or
 * checked before anything is written), the claim that keeps a second process off the file, the records read back
 * from it, and the one-time migration from format version 4. The store that writes it is sqlite-store.ts.
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
import { CLOCK_RANGE_TEXT, inClockRange } from "../clock.ts";
import { OWNERS, type Records, type Row, TABLE_NAMES, type TableName } from "../records.ts";
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
import type { TableSource } from "./tables.ts";

/** The schema's version, in `PRAGMA user_version`: a newer one is refused, an older one migrated. */
export const SCHEMA_VERSION = 1;
/** `PRAGMA application_id`: the database is a sandbox state ("PASB"). */
export const APPLICATION_ID = 0x50415342;
/** Every state file is created readable by its owner only: it holds API keys and webhook signing secrets. */
const STATE_FILE_MODE = 0o600;
const SQLITE_HEADER = "SQLite format 3\u0000";

/**
 * `PRAGMA synchronous`: NORMAL (the default) syncs the write-ahead log only at checkpoints, so a power cut may
 * lose the last commits (never corrupt the file; a process crash loses nothing committed); FULL syncs it at every
 * commit (on the event loop, as every commit is: the sandbox waits for the disk at every commit). The persistence
 * benchmark measures both: docs/design/sandbox-store.md.
 */
export type Synchronous = "FULL" | "NORMAL";

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
export interface SqliteModule {
  DatabaseSync: new (file: string, options?: { readOnly?: boolean }) => Database;
}

/**
 * Node 22 prints "ExperimentalWarning: SQLite is an experimental feature" when `node:sqlite` is first loaded (24 and
 * later do not): a sandbox that prints a warning on every start reads as broken, so that one warning, and only while
 * the module loads, is not passed on. Every other warning still is. The checkpoint thread does the same (writer.ts).
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
export function sqliteModule(shownAs: string): SqliteModule {
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

export function fileKind(file: string, shownAs: string): "missing" | "sqlite" | "format4" | "other" {
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
export function chmodNew(file: string): void {
  try {
    closeSync(openSync(file, "a", STATE_FILE_MODE));
  } catch {
    // SQLite made it already; it reports what is wrong on its own.
  }
}

export function configure(db: Database, synchronous: Synchronous): void {
  // A reader (the sqlite3 command) or a sandbox starting alongside holds a lock for a moment: wait for it.
  db.exec("PRAGMA busy_timeout = 2000");
  const mode = db.prepare("PRAGMA journal_mode = WAL").get()?.journal_mode;
  if (mode !== "wal") throw new Error(`its write-ahead log could not be turned on (journal mode ${String(mode)})`);
  db.exec(`PRAGMA synchronous = ${synchronous}`);
}

/** Whether the database is a sandbox state of a schema this version reads, or new (empty); else a refusal. */
export function checkSchema(db: Database, refuse: (why: string) => SandboxStateError): "new" | "state" {
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
export function createSchema(db: Database, seed: number, clock: string, nextTaskId: number): void {
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
export function claim(
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
export function release(db: Database, real: string): void {
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
export const EAGER: readonly TableName[] = ["accounts", "tasks"];

/** Each table's records, read from the database an account at a time (or whole), checked. */
export function sourceOf(db: Database, shownAs: string): (table: TableName) => TableSource {
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
export function readSettings(
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
export function readState(
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
export function migrateFormat4(
  sqlite: SqliteModule,
  file: string,
  shownAs: string,
  synchronous: Synchronous,
): LoadedState["migratedFrom"] {
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
    configure(db, synchronous);
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
