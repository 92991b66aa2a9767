/**
 * Where the state lives: in memory, or (with a state file) on disk before each mutating response is sent.
 * With a file, the state is a snapshot plus a journal of changes (JournalStore; journal.ts says how): each
 * commit appends one line and fsyncs it, so a write costs what changed, not the whole state; a `kill -9` loses
 * nothing answered. Commits asked for while a line is being written share the next one (group commit), so 100
 * parallel calls cost a few writes, not 100. legacyFileStore, the whole-file store of before (every commit a
 * whole JSON snapshot put in place atomically), is kept for the persistence benchmark.
 */
import { readFileSync, statSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import {
  ChangeSet,
  createJournalSync,
  type JournalLine,
  journalFile,
  journalGenerations,
  type Path,
  putInPlace,
  readJournal,
  removeJournalsBefore,
  replay,
  STATE_FILE_MODE,
  temporaryFile,
  truncateJournal,
  writeSnapshot,
} from "./journal.ts";
import { normalizeLoadedState, type SandboxState, STATE_FORMAT, STATE_VERSION } from "./state.ts";

export class SandboxStateError extends Error {
  override readonly name = "SandboxStateError";
}

/** A refusal of a state file (or of its journal), naming it; the files are left as they are. */
function refusal(shownAs: string) {
  return (why: string) =>
    new SandboxStateError(
      `sandbox state file ${shownAs} ${why}; it was left untouched (move it away or pass another --state)`,
    );
}

/** The state as the files hold it, with what the store needs to carry on writing them. */
export interface LoadedState {
  state: SandboxState;
  /** The format version of the snapshot (1: a single whole-state file, from before the journal). */
  version: number;
  /** The journal generation new lines go to (the last one on disk, or the one the snapshot names). */
  generation: number;
  /** The bytes of that journal up to its last whole line (0: there is none yet). */
  journalBytes: number;
  /** The journal lines read after the snapshot. */
  journalLines: number;
  snapshotBytes: number;
}

/**
 * Reads a state file and the journal after it, synchronously; undefined when there is none yet. Refuses a
 * corrupt file or one of a newer format (and a corrupt journal), naming it. A journal's last line cut short by
 * a `kill -9` is left out.
 */
export function loadStateFiles(file: string, shownAs: string): LoadedState | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new SandboxStateError(`sandbox state file ${shownAs} cannot be read: ${(error as Error).message}`);
  }
  const refuse = refusal(shownAs);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw refuse(`is corrupt (not JSON: ${(error as Error).message})`);
  }
  const state = parsed as (Partial<SandboxState> & { journal?: unknown }) | null;
  if (!state || typeof state !== "object" || state.format !== STATE_FORMAT)
    throw refuse(`is corrupt (no "format": "${STATE_FORMAT}")`);
  if (typeof state.version !== "number" || !Number.isInteger(state.version))
    throw refuse(`is corrupt ("version" is not an integer)`);
  if (state.version > STATE_VERSION)
    throw refuse(
      `was written by a newer sandbox (format version ${state.version}; this one reads up to ${STATE_VERSION})`,
    );
  if (
    typeof state.seed !== "number" ||
    typeof state.clock !== "string" ||
    Number.isNaN(Date.parse(state.clock)) ||
    typeof state.nextTaskId !== "number" ||
    !Array.isArray(state.tasks) ||
    !state.accounts ||
    typeof state.accounts !== "object"
  )
    throw refuse("is corrupt (seed, clock, nextTaskId, tasks or accounts missing or of the wrong type)");
  const version = state.version;
  let generation = 0;
  if (version >= 2) {
    if (typeof state.journal !== "number" || !Number.isInteger(state.journal) || state.journal < 0)
      throw refuse(`is corrupt ("journal" is not a generation number)`);
    generation = state.journal;
  }
  delete state.journal;
  // A version 1 file is the whole state: journals beside it are not its own.
  let journalBytes = 0;
  let journalLines = 0;
  if (version >= 2) {
    const lines: JournalLine[] = [];
    for (const next of journalGenerations(file).filter((g) => g >= generation)) {
      // Generations follow each other; one missing ends the journal (the next compaction removes the rest).
      if (next !== generation && next !== generation + 1) break;
      const shown = `${shownAs}.journal-${next}`;
      const read = readJournal(journalFile(file, next), next, refusal(shown));
      if (!read) break;
      lines.push(...read.lines);
      generation = next;
      journalBytes = read.intact;
    }
    replay(state as SandboxState, lines);
    journalLines = lines.length;
  }
  if (version === 1) (state as SandboxState).version = STATE_VERSION;
  // Keys as data (null-prototype maps), and the clock in its range: else the file is refused like a corrupt one.
  try {
    normalizeLoadedState(state as SandboxState);
  } catch (error) {
    throw refuse(`is corrupt (${(error as Error).message})`);
  }
  return {
    state: state as SandboxState,
    version,
    generation,
    journalBytes,
    journalLines,
    snapshotBytes: Buffer.byteLength(text),
  };
}

/** Reads a state file (and its journal); undefined when there is none yet. Refuses a corrupt file or one of a newer format. */
export async function readStateFile(file: string, shownAs: string): Promise<SandboxState | undefined> {
  return loadStateFiles(file, shownAs)?.state;
}

/** A change could not be made durable: it was rolled back in memory (the state is as the files hold it). */
export class StateNotSavedError extends Error {
  override readonly name = "StateNotSavedError";
}

export interface StateStore {
  /** Resolves once every change made before the call is durable; rejects with StateNotSavedError when it is not. */
  commit(): Promise<void>;
  /** Waits for writes in flight. */
  flush(): Promise<void>;
  /** Notes that what is at `target` changed (the journal writes its value as it is at the next commit). */
  mark(target: Path): void;
  /** Notes that `target` now holds `value` (undefined: removed). */
  put(target: Path, value: unknown): void;
  /** Forgets the changes noted: what they touched is marked as a whole after (a reset). */
  clear(): void;
  /** At a clean stop, once the last write is done: compacts the files. */
  close?(): Promise<void>;
}

export const memoryStore: StateStore = {
  commit: () => Promise.resolve(),
  flush: () => Promise.resolve(),
  mark: () => undefined,
  put: () => undefined,
  clear: () => undefined,
};

/**
 * The store of before the journal: every commit rewrites the whole state (kept for the persistence benchmark,
 * which measures it side by side with the journal).
 */
export function legacyFileStore(file: string, snapshot: () => SandboxState): StateStore {
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const temporary = temporaryFile(file);

  async function write(): Promise<void> {
    // The whole-file format: version 1, which the journal store reads and migrates.
    const text = JSON.stringify({ ...snapshot(), version: 1 });
    const handle = await open(temporary, "w", STATE_FILE_MODE);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await putInPlace(temporary, file);
  }

  function start(): Promise<void> {
    const current = write().finally(() => {
      if (running === current) running = undefined;
    });
    running = current;
    return current;
  }

  return {
    mark: () => undefined,
    put: () => undefined,
    clear: () => undefined,
    commit() {
      if (!running) return start();
      // A snapshot taken now could miss nothing, but one is being written: the next write carries this change.
      if (!queued) {
        queued = running
          .catch(() => undefined)
          .then(() => {
            queued = undefined;
            return start();
          });
      }
      return queued;
    },
    async flush() {
      await queued?.catch(() => undefined);
      await running?.catch(() => undefined);
    },
  };
}

/**
 * A compaction starts once the journal passes compactAtBytes or the snapshot's size times snapshotFactor,
 * whichever is more (the persistence benchmark sets both to 0: compactions back to back).
 */
export const journalSettings = { compactAtBytes: 8 << 20, snapshotFactor: 1 };

/** The file operations the journal store appends with (a test makes them fail, as a full disk would). */
export const journalIo = {
  append: (handle: FileHandle, text: string) => handle.write(text).then(() => undefined),
  sync: (handle: FileHandle) => handle.datasync(),
};

export interface JournalStoreOptions {
  file: string;
  shownAs: string;
  /** The live state (the same object for the store's life: a rollback replaces what it holds). */
  state: SandboxState;
  /** The clock's reading, as a journal line and a snapshot carry it. */
  clock: () => string;
  loaded: LoadedState | undefined;
  /** Puts the state as the files hold it in place of the one in memory (after a write failed). */
  reload: () => void;
  /** The pending tasks a snapshot holds (default: the state's); the engine adds those whose work is under way. */
  snapshotTasks?: () => SandboxState["tasks"];
}

/**
 * The state file as a snapshot and a journal (journal.ts): each commit appends one line with what was marked
 * changed since the last, and fsyncs it; commits asked for while one is written share the next (group commit).
 * A write that fails rolls the change back (the state is read back from the files) and rejects every commit
 * waiting, with StateNotSavedError; the next commit writes as usual.
 */
export class JournalStore implements StateStore {
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

  constructor(private readonly options: JournalStoreOptions) {
    const { loaded, state, file } = options;
    this.generation = loaded?.generation ?? 0;
    this.bytes = loaded?.journalBytes ?? 0;
    this.snapshotBytes = loaded?.snapshotBytes ?? 0;
    this.unsnapshotted = (loaded?.journalLines ?? 0) > 0;
    this.written = { clock: state.clock, nextTaskId: state.nextTaskId };
    // A line cut short by a kill goes, so the next starts on a line of its own.
    if (loaded && loaded.version >= 2 && this.bytes > 0)
      truncateJournal(journalFile(file, this.generation), this.bytes);
  }

  /** Writes the first snapshot (no file yet), or the first of the journal's format (a version 1 file). */
  async start(): Promise<void> {
    const { loaded, file } = this.options;
    if (!loaded || loaded.version < 2) {
      // Journals beside a file that has none (its snapshot deleted, or a version 1 file) are no one's: they go.
      removeJournalsBefore(file, Number.POSITIVE_INFINITY);
      await this.compact();
    }
  }

  mark(target: Path): void {
    this.changes.mark(target);
  }

  put(target: Path, value: unknown): void {
    this.changes.put(target, value);
  }

  clear(): void {
    this.changes.clear();
  }

  commit(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.running ??= this.run();
    });
  }

  async flush(): Promise<void> {
    await this.running;
    await this.compacting?.catch(() => undefined);
  }

  async close(): Promise<void> {
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
            `the change was not saved to the sandbox state file ${this.options.shownAs} (${(error as Error).message}), so it was undone; the sandbox holds what the file holds`,
          );
          this.rollback();
          // Changes made while the failed line was written went with the rollback too.
          for (const waiter of [...batch, ...this.waiting.splice(0)]) waiter.reject(failure);
        }
        const bound = Math.max(journalSettings.compactAtBytes, this.snapshotBytes * journalSettings.snapshotFactor);
        if (!this.compacting && this.bytes > bound) this.compact().catch(() => undefined);
      }
    } finally {
      this.running = undefined;
    }
  }

  private rollback(): void {
    this.changes.clear();
    try {
      this.options.reload();
    } catch {
      // The files cannot be read back: memory keeps the change, and the next line writes it again.
    }
    this.written = { clock: this.options.state.clock, nextTaskId: this.options.state.nextTaskId };
  }

  private async write(): Promise<void> {
    const { state, file } = this.options;
    const clock = this.options.clock();
    state.clock = clock;
    const changes = this.changes.take(state);
    if (changes.length === 0 && clock === this.written.clock && state.nextTaskId === this.written.nextTaskId) return;
    const line: JournalLine = { clock, nextTaskId: state.nextTaskId, changes };
    const text = `${JSON.stringify(line)}\n`;
    const target = journalFile(file, this.generation);
    if (this.bytes === 0) {
      createJournalSync(target, this.generation);
      this.bytes = statSync(target).size;
    }
    this.handle ??= await open(target, "a");
    const before = this.bytes;
    try {
      await journalIo.append(this.handle, text);
      await journalIo.sync(this.handle);
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
    this.written = { clock, nextTaskId: state.nextTaskId };
    this.unsnapshotted = true;
  }

  /**
   * A new snapshot: lines from now on go to the next generation's journal, the accounts are written in slices
   * while requests go on, and once the snapshot is in place the journals before it are removed. Called between
   * writes (or with none running), so no line is being written to the old journal.
   */
  compact(): Promise<void> {
    this.compacting ??= (async () => {
      const { state, file } = this.options;
      const failures = this.failures;
      const generation = this.generation + 1;
      const old = this.handle;
      this.unsnapshotted = false;
      this.generation = generation;
      this.handle = undefined;
      this.bytes = 0;
      await old?.close().catch(() => undefined);
      const { accounts: _, ...rest } = state;
      const head = {
        ...rest,
        clock: this.options.clock(),
        tasks: this.options.snapshotTasks?.() ?? state.tasks.slice(),
        journal: generation,
      };
      head.version = STATE_VERSION;
      const size = await writeSnapshot(file, head, state.accounts, () => this.failures !== failures).catch(
        (error: unknown) => {
          this.unsnapshotted = true;
          throw error;
        },
      );
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
