/**
 * How a state file's store writes its database:
 *
 * - **The writer** runs every transaction, on the event loop's own connection: `BEGIN IMMEDIATE`, the changes of
 *   the commits asked for in one turn of the event loop, `COMMIT` (about 15 µs of CPU a request at 3 to 4
 *   requests a transaction). Not on a thread of its own: the hand-over (a `postMessage`, waking the thread, its
 *   answer waking the event loop) costs more CPU than the transaction it hands over, on two cores that the load
 *   generator shares (measured: docs/design/sandbox-store.md).
 * - **The checkpointer** copies the write-ahead log into the database and syncs both, now and then, on a thread of
 *   its own while the writer goes on (a passive checkpoint): a sync of megabytes held every request up when it
 *   ran in a commit. It is plain JavaScript evaluated in a worker (no file of its own to find once the devkit is
 *   bundled).
 */
import { Worker } from "node:worker_threads";
import { OWNERS, type Row, type TableName } from "../records.ts";
import type { Change } from "./changes.ts";
import type { Database, Statement, Synchronous } from "./sqlite-file.ts";

/**
 * The writer: one transaction per commit asked for, on the event loop's own connection. An insert is `INSERT OR
 * REPLACE`: a row already there (a record put again after a delete, or moved to another owner) goes and the new one
 * takes the next `seq`, last, as in memory; an update is an `UPDATE` in place.
 */
export class Writer {
  private readonly db: Database;
  private readonly tables: Record<
    string,
    { insert: Statement; update: Statement; delete: Statement; clear: Statement }
  >;
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly settings: Statement;

  constructor(db: Database, tables: readonly TableName[]) {
    this.db = db;
    this.tables = Object.create(null);
    for (const name of tables)
      this.tables[name] = {
        insert: db.prepare(`INSERT OR REPLACE INTO ${name} (account, id, owner, record) VALUES (?, ?, ?, ?)`),
        update: db.prepare(`UPDATE ${name} SET owner = ?, record = ? WHERE account = ? AND id = ?`),
        delete: db.prepare(`DELETE FROM ${name} WHERE account = ? AND id = ?`),
        clear: db.prepare(`DELETE FROM ${name}`),
      };
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.settings = db.prepare("UPDATE sandbox SET clock = ?, next_task_id = ?");
  }

  /**
   * Writes the changes (after a reset of every table when there was one, and the counters when they moved) in one
   * transaction; throws SQLite's reason, rolled back, when it cannot.
   */
  write(reset: boolean, changes: readonly Change[], settings: [clock: string, nextTaskId: number] | undefined): void {
    this.begin.run();
    try {
      if (reset) for (const name in this.tables) this.tables[name]!.clear.run();
      for (const change of changes) {
        const table = this.tables[change[1]]!;
        if (change[0] === "delete") {
          table.delete.run(change[2], change[3]);
          continue;
        }
        const record = change[2];
        const owner = (OWNERS[change[1]] as (record: Row) => string)(record);
        const text = JSON.stringify(record);
        if (change[0] === "insert" || table.update.run(owner, text, record.account, record.id).changes === 0)
          table.insert.run(record.account, record.id, owner, text);
      }
      if (settings) this.settings.run(settings[0], settings[1]);
      this.commit.run();
    } catch (error) {
      try {
        this.db.exec("ROLLBACK");
      } catch {
        // SQLite rolled it back already (as it does on some errors).
      }
      throw error;
    }
  }
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

/** Commits between two checkpoints. */
const CHECKPOINT_EVERY = 200;

/**
 * Asks the checkpoint thread for a checkpoint after every CHECKPOINT_EVERY commits, while commits go on. SQLite
 * writes its log from the beginning again only when a transaction begins with every frame of it checkpointed, which
 * under steady writes never happened: the commits made while a checkpoint ran were always left, and the log grew by
 * hundreds of megabytes a minute (every commit then extending the file). So once a checkpoint is done, a second one
 * catches up with the commits made meanwhile, and the store holds its commits until it is (`holding`; requests wait,
 * the event loop does not); the next transaction then writes the log from its beginning.
 */
export class Checkpointer {
  private readonly thread: Thread;
  private commits = 0;
  private catchingUp = false;
  private readonly released: () => void;

  /** `released`: called when the commits held are to be written. */
  constructor(file: string, synchronous: Synchronous, released: () => void) {
    this.thread = new Thread(CHECKPOINT_THREAD, { file, synchronous });
    this.released = released;
  }

  /** Whether commits wait: the log's last frames are being checkpointed. */
  get holding(): boolean {
    return this.catchingUp;
  }

  wrote(): void {
    if (++this.commits < CHECKPOINT_EVERY || this.thread.busy) return;
    this.commits = 0;
    this.thread
      .ask("checkpoint")
      .then(() => {
        this.catchingUp = true;
        return this.thread.ask("checkpoint");
      })
      // A checkpoint that cannot run (the thread gone) leaves the log to the next one, and to the last close.
      .catch(() => undefined)
      .finally(() => {
        if (!this.catchingUp) return;
        this.catchingUp = false;
        this.released();
      });
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}
