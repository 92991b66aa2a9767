/**
 * The store with a state file: the records in memory (tables.ts) and on disk as a snapshot and a journal (files.ts,
 * journal.ts). Each commit appends one line holding what was put and deleted since the last, and fsyncs it, so a
 * write costs what changed, not the whole state, and a `kill -9` loses nothing answered. Commits asked for while a
 * line is being written share the next one (group commit), so 100 parallel calls cost a few writes, not 100. When
 * the journal outgrows its bound, and at a clean stop, a new snapshot is written while requests go on and the
 * journals before it are removed (compaction).
 */
import { statSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { TABLE_NAMES } from "../records.ts";
import { StateNotSavedError } from "./errors.ts";
import {
  createJournalSync,
  journalFile,
  journalGenerations,
  removeJournalsBefore,
  STATE_FILE_MODE,
  truncateJournal,
  writeSnapshot,
} from "./files.ts";
import { ChangeSet, type JournalLine } from "./journal.ts";
import { type LoadedState, loadStateFiles, STATE_FORMAT, STATE_VERSION } from "./load.ts";
import { encodeTable } from "./snapshot.ts";
import { MemoryStore } from "./tables.ts";

export { StateNotSavedError };

/** The file operations the journal appends with (a test hands in ones that fail, as a full disk would). */
export interface JournalIo {
  append(handle: FileHandle, text: string): Promise<void>;
  sync(handle: FileHandle): Promise<void>;
}

export const DEFAULT_JOURNAL_IO: JournalIo = {
  append: (handle, text) => handle.write(text).then(() => undefined),
  sync: (handle) => handle.datasync(),
};

/** What a store for a state file is made from: the file, how it is named, what it held, the clock to stamp lines. */
export interface StoreContext {
  file: string;
  shownAs: string;
  /** What the files held at start (undefined: there were none). */
  loaded: LoadedState | undefined;
  /** The seed of a new state (a state read back keeps its own). */
  seed: number;
  /** The clock's reading, as a journal line and a snapshot carry it. */
  clock: () => string;
}

export interface JournalStoreOptions {
  /** A compaction starts once the journal passes this many bytes or the snapshot's size times snapshotFactor, whichever is more. Default 8 MiB. */
  compactAtBytes?: number;
  /** Default 1. */
  snapshotFactor?: number;
  io?: JournalIo;
}

/**
 * The state file as a snapshot and a journal: each commit appends one line with what was put and deleted since the
 * last, and fsyncs it; commits asked for while one is written share the next (group commit). A write that fails
 * rolls the change back (the records are read back from the files) and rejects every commit waiting, with
 * StateNotSavedError; the next commit writes as usual.
 */
export class JournalStore extends MemoryStore {
  private readonly changes = new ChangeSet();
  private waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];
  /** The write loop, while it runs (it ends, synchronously, once no commit is waiting). */
  private running: Promise<void> | undefined;
  private compacting: Promise<void> | undefined;
  private generation: number;
  private handle: FileHandle | undefined;
  /** The current journal's size up to its last whole line (0: not created yet). */
  private bytes: number;
  private snapshotBytes: number;
  private written: { clock: string; nextTaskId: number };
  /** Failed writes so far: a snapshot begun before one is abandoned. */
  private failures = 0;
  /** Lines were written since the last snapshot began: a clean stop compacts. */
  private unsnapshotted: boolean;
  private readonly compactAtBytes: number;
  private readonly snapshotFactor: number;
  private readonly io: JournalIo;

  constructor(
    private readonly context: StoreContext,
    options: JournalStoreOptions = {},
  ) {
    const { loaded, file } = context;
    super(loaded?.seed ?? context.seed);
    this.recorder = this.changes;
    this.compactAtBytes = options.compactAtBytes ?? 8 << 20;
    this.snapshotFactor = options.snapshotFactor ?? 1;
    this.io = options.io ?? DEFAULT_JOURNAL_IO;
    if (loaded) this.load(loaded.records, loaded.nextTaskId, false);
    this.generation = loaded?.generation ?? 0;
    this.bytes = loaded?.journalBytes ?? 0;
    this.snapshotBytes = loaded?.snapshotBytes ?? 0;
    this.unsnapshotted = (loaded?.journalLines ?? 0) > 0;
    this.written = { clock: loaded?.clock ?? "", nextTaskId: this.nextTaskId };
    // A line cut short by a kill goes, so the next starts on a line of its own.
    if (loaded && loaded.version === STATE_VERSION && this.bytes > 0)
      truncateJournal(journalFile(file, this.generation), this.bytes);
  }

  /** Writes the first snapshot (no file yet), or the first of this format (a file of an earlier one). */
  async start(): Promise<void> {
    const { loaded } = this.context;
    // The new snapshot takes a generation past every journal beside it, and those go once it is in place: a
    // journal of no snapshot (the state file was deleted), or of an earlier format (read into the records already).
    if (!loaded || loaded.version < STATE_VERSION) await this.compact();
  }

  override commit(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.running ??= this.run();
    });
  }

  override async flush(): Promise<void> {
    await this.running;
    await this.compacting?.catch(() => undefined);
  }

  override async close(): Promise<void> {
    await this.flush();
    // Whatever the journal holds goes into the snapshot: the next start reads one file.
    if (this.unsnapshotted || this.changes.size > 0) await this.compact();
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }

  private async run(): Promise<void> {
    // `running` is cleared in the step that finds nothing waiting (no await between): a commit asked for
    // after that starts a new loop, and none waits on a loop that has ended.
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0);
        try {
          await this.write();
          for (const waiter of batch) waiter.resolve();
        } catch (error) {
          this.failures++;
          const failure = new StateNotSavedError(
            `the change was not saved to the sandbox state file ${this.context.shownAs} (${(error as Error).message}), so it was undone; the sandbox holds what the file holds`,
          );
          this.rollback();
          // Changes made while the failed line was written went with the rollback too.
          for (const waiter of [...batch, ...this.waiting.splice(0)]) waiter.reject(failure);
        }
        const bound = Math.max(this.compactAtBytes, this.snapshotBytes * this.snapshotFactor);
        if (!this.compacting && this.bytes > bound) this.compact().catch(() => undefined);
      }
    } finally {
      this.running = undefined;
    }
  }

  private rollback(): void {
    this.changes.clear();
    try {
      const again = loadStateFiles(this.context.file, this.context.shownAs);
      if (again) this.load(again.records, again.nextTaskId, true);
    } catch {
      // The files cannot be read back: memory keeps the change, and the next line writes it again.
    }
    this.written = { clock: this.written.clock, nextTaskId: this.nextTaskId };
  }

  private async write(): Promise<void> {
    const clock = this.context.clock();
    const nextTaskId = this.nextTaskId;
    const { reset, ops } = this.changes.take();
    if (!reset && ops.length === 0 && clock === this.written.clock && nextTaskId === this.written.nextTaskId) return;
    const line: JournalLine = { clock, nextTaskId, ...(reset ? { reset: true as const } : {}), ops };
    const text = `${JSON.stringify(line)}\n`;
    const target = journalFile(this.context.file, this.generation);
    if (this.bytes === 0) {
      createJournalSync(target, this.generation);
      this.bytes = statSync(target).size;
    }
    this.handle ??= await open(target, "a", STATE_FILE_MODE);
    const before = this.bytes;
    try {
      await this.io.append(this.handle, text);
      await this.io.sync(this.handle);
    } catch (error) {
      // What got written of the line goes, so the journal ends on a whole line.
      await this.handle.close().catch(() => undefined);
      this.handle = undefined;
      try {
        truncateJournal(target, before);
      } catch {
        // A torn last line is left out when the journal is read anyway.
      }
      throw error;
    }
    this.bytes += Buffer.byteLength(text);
    this.written = { clock, nextTaskId };
    this.unsnapshotted = true;
  }

  /**
   * A new snapshot: lines from now on go to the next generation's journal, the records are written in slices
   * while requests go on, and once the snapshot is in place the journals before it are removed. Called between
   * writes (or with none running), so no line is being written to the old journal.
   */
  compact(): Promise<void> {
    this.compacting ??= (async () => {
      const { file } = this.context;
      const failures = this.failures;
      const generation = Math.max(this.generation, ...journalGenerations(file)) + 1;
      const old = this.handle;
      this.unsnapshotted = false;
      this.generation = generation;
      this.handle = undefined;
      this.bytes = 0;
      await old?.close().catch(() => undefined);
      const head = {
        format: STATE_FORMAT,
        version: STATE_VERSION,
        seed: this.seed,
        clock: this.context.clock(),
        nextTaskId: this.nextTaskId,
        journal: generation,
      };
      const iterators = this.tableIterators();
      const tables = TABLE_NAMES.map(
        (name) => [name, { [Symbol.iterator]: () => encodeTable(name, iterators[name]()) }] as const,
      );
      const size = await writeSnapshot(file, head, tables, () => this.failures !== failures).catch((error: unknown) => {
        this.unsnapshotted = true;
        throw error;
      });
      // Abandoned (a write failed meanwhile): the journals before stay, and are read as before.
      if (size < 0) {
        this.unsnapshotted = true;
        return;
      }
      this.snapshotBytes = size;
      removeJournalsBefore(file, generation);
    })().finally(() => {
      this.compacting = undefined;
    });
    return this.compacting;
  }
}

/** The store of a state file the sandbox uses unless told otherwise: a JournalStore, its first snapshot written. */
export async function openJournalStore(context: StoreContext, options?: JournalStoreOptions): Promise<JournalStore> {
  const store = new JournalStore(context, options);
  await store.start();
  return store;
}
