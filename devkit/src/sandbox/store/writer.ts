/**
 * The two threads behind a state file's store, each with a connection of its own to the database:
 *
 * - **The writer** runs every transaction. `node:sqlite` is synchronous, so a transaction run on the event loop
 *   holds every request up while SQLite writes its log (measured: 40 to 90 µs a commit, more while the disk is
 *   busy, on every request that writes). Here the event loop only turns the changes into rows and posts them; the
 *   writer runs `BEGIN IMMEDIATE` … `COMMIT` and answers, and the store answers the requests only then.
 * - **The checkpointer** copies the write-ahead log into the database and syncs both, now and then, while the
 *   writer goes on (a passive checkpoint): a sync of megabytes held every request up when it ran in a commit.
 *
 * Both are plain JavaScript evaluated in a worker (no file of their own to find once the devkit is bundled).
 */
import { Worker } from "node:worker_threads";
import type { Synchronous } from "./sqlite-file.ts";

/** A row's change, as the writer takes it: 0 insert (it goes last), 1 update in place, 2 delete. */
export const INSERT = 0;
export const UPDATE = 1;
export const DELETE = 2;

/**
 * One transaction: each row's change as six entries in a row (kind, table, account, id, owner, the record's JSON;
 * a delete's last two null), after a reset of every table when there was one, and the counters when they moved.
 */
export interface Transaction {
  reset: boolean;
  rows: (string | number | null)[];
  settings: [clock: string, nextTaskId: number] | undefined;
}

/** Loads `node:sqlite` in a thread (without Node 22's warning, as sqlite-file.ts does) and opens the database. */
const OPEN_IN_THREAD = `
const { parentPort, workerData } = require("node:worker_threads");
const emitWarning = process.emitWarning;
process.emitWarning = (warning, ...rest) =>
  /^SQLite is an experimental feature/.test(String(warning?.message ?? warning)) ? undefined : emitWarning.call(process, warning, ...rest);
const { DatabaseSync } = process.getBuiltinModule("node:sqlite");
process.emitWarning = emitWarning;
const db = new DatabaseSync(workerData.file);
db.exec("PRAGMA busy_timeout = 2000; PRAGMA wal_autocheckpoint = 0; PRAGMA synchronous = " + workerData.synchronous);
/** Each message but "close" (which closes the connection and ends the thread) to handle, its answer posted back. */
function serve(handle) {
  parentPort.on("message", (message) => {
    if (message === "close") {
      db.close();
      parentPort.close();
      return;
    }
    parentPort.postMessage(handle(message));
  });
}
`;

/**
 * The writer: one transaction per message, answered `{ error }` when it fails (rolled back). An insert is `INSERT
 * OR REPLACE`: a row already there (a record put again after a delete, or moved to another owner) goes and the
 * new one takes the next `seq`, last, as in memory.
 */
const WRITER_THREAD = `${OPEN_IN_THREAD}
const tables = {};
for (const name of workerData.tables)
  tables[name] = {
    insert: db.prepare("INSERT OR REPLACE INTO " + name + " (account, id, owner, record) VALUES (?, ?, ?, ?)"),
    update: db.prepare("UPDATE " + name + " SET owner = ?, record = ? WHERE account = ? AND id = ?"),
    delete: db.prepare("DELETE FROM " + name + " WHERE account = ? AND id = ?"),
    clear: db.prepare("DELETE FROM " + name),
  };
const begin = db.prepare("BEGIN IMMEDIATE");
const commit = db.prepare("COMMIT");
const settings = db.prepare("UPDATE sandbox SET clock = ?, next_task_id = ?");
function write({ reset, rows, settings: counters }) {
  begin.run();
  try {
    if (reset) for (const name of workerData.tables) tables[name].clear.run();
    for (let i = 0; i < rows.length; i += 6) {
      const table = tables[rows[i + 1]];
      if (rows[i] === ${DELETE}) table.delete.run(rows[i + 2], rows[i + 3]);
      else if (rows[i] === ${INSERT} || table.update.run(rows[i + 4], rows[i + 5], rows[i + 2], rows[i + 3]).changes === 0)
        table.insert.run(rows[i + 2], rows[i + 3], rows[i + 4], rows[i + 5]);
    }
    if (counters) settings.run(counters[0], counters[1]);
    commit.run();
  } catch (error) {
    try {
      db.exec("ROLLBACK");
    } catch {
      // SQLite rolled it back already (as it does on some errors).
    }
    throw error;
  }
}
serve((message) => {
  try {
    write(message);
    return null;
  } catch (error) {
    return { error: String(error?.message ?? error) };
  }
});
`;

/** The checkpointer: a passive checkpoint (writers go on) when asked. */
const CHECKPOINT_THREAD = `${OPEN_IN_THREAD}
serve(() => {
  try {
    db.exec("PRAGMA wal_checkpoint(PASSIVE)");
  } catch {
    // A full disk, a reader in the way: the next one tries again, and the log keeps what it holds.
  }
  return null;
});
`;

/** A worker thread with one message at a time in flight; held (ref) only while one is, so it never keeps a process up. */
class Thread {
  private readonly worker: Worker;
  private current: { resolve: (answer: unknown) => void; reject: (error: Error) => void } | undefined;
  /** Why it stopped, once it has (every later message is refused with it). */
  private stopped: Error | undefined;
  private readonly exited: Promise<void>;

  constructor(source: string, workerData: unknown) {
    this.worker = new Worker(source, { eval: true, workerData });
    this.worker.unref();
    this.worker.on("message", (answer) => {
      const current = this.current;
      this.current = undefined;
      this.worker.unref();
      current?.resolve(answer);
    });
    this.worker.on("error", (error) => this.stop(error));
    this.exited = new Promise((resolve) =>
      this.worker.once("exit", (code) => {
        this.stop(new Error(`its thread stopped (exit code ${code})`));
        resolve();
      }),
    );
  }

  get busy(): boolean {
    return this.current !== undefined;
  }

  /** Posts a message and resolves with the thread's answer; refused when the thread has stopped. */
  ask(message: unknown): Promise<unknown> {
    if (this.stopped) return Promise.reject(this.stopped);
    if (this.current) return Promise.reject(new Error("a message is in flight already"));
    return new Promise((resolve, reject) => {
      this.current = { resolve, reject };
      this.worker.ref();
      this.worker.postMessage(message);
    });
  }

  private stop(error: Error): void {
    this.stopped ??= error;
    const current = this.current;
    this.current = undefined;
    current?.reject(error);
  }

  async close(): Promise<void> {
    if (!this.stopped) {
      // Held while it closes: an unreferenced thread would leave a process that waits on nothing else to exit
      // with the wait unsettled.
      this.worker.ref();
      this.worker.postMessage("close");
    }
    await this.exited;
  }
}

/** The writer thread of one database. */
export class Writer {
  private thread: Thread;

  private readonly file: string;
  private readonly synchronous: Synchronous;
  private readonly tables: readonly string[];
  constructor(file: string, synchronous: Synchronous, tables: readonly string[]) {
    this.file = file;
    this.synchronous = synchronous;
    this.tables = tables;
    this.thread = this.start();
  }

  private start(): Thread {
    return new Thread(WRITER_THREAD, { file: this.file, synchronous: this.synchronous, tables: this.tables });
  }

  /** Resolves once the transaction has committed; rejects (rolled back) with SQLite's reason when it cannot. */
  async write(transaction: Transaction): Promise<void> {
    let answer: unknown;
    try {
      answer = await this.thread.ask(transaction);
    } catch (error) {
      // The thread is gone (it cannot be, short of a bug in it): the next transaction gets a new one.
      this.thread = this.start();
      throw error;
    }
    if (answer !== null) throw new Error((answer as { error: string }).error);
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}

/** Asks the checkpoint thread for a checkpoint after every CHECKPOINT_EVERY commits, one at a time. */
const CHECKPOINT_EVERY = 200;

export class Checkpointer {
  private readonly thread: Thread;
  private commits = 0;

  constructor(file: string, synchronous: Synchronous) {
    this.thread = new Thread(CHECKPOINT_THREAD, { file, synchronous });
  }

  wrote(): void {
    if (++this.commits < CHECKPOINT_EVERY || this.thread.busy) return;
    this.commits = 0;
    // A checkpoint that cannot run (the thread gone) leaves the log to the next one, and to the last close.
    this.thread.ask("checkpoint").catch(() => undefined);
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}
