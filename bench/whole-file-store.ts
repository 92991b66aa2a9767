/**
 * The state file as it was before the journal, for the persistence benchmark to measure beside it: every commit
 * writes the whole state (a snapshot of the records) to a temporary file, fsyncs it and renames it into place.
 * Commits asked for while one is written share the next write. It reads and writes the journal's snapshot format
 * (a snapshot with no journal after it), and is handed to the sandbox through the store interface
 * (`startSandboxWith(options, { storeFor })`): the package has no switch for it.
 */
import { open } from "node:fs/promises";
import { TABLE_NAMES } from "../devkit/src/sandbox/records.ts";
import { putInPlace, STATE_FILE_MODE, temporaryFile } from "../devkit/src/sandbox/store/files.ts";
import type { StoreContext } from "../devkit/src/sandbox/store/journal-store.ts";
import { STATE_FORMAT, STATE_VERSION } from "../devkit/src/sandbox/store/load.ts";
import { encodeTable, snapshotText } from "../devkit/src/sandbox/store/snapshot.ts";
import { MemoryStore } from "../devkit/src/sandbox/store/tables.ts";

export class WholeFileStore extends MemoryStore {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(private readonly context: StoreContext) {
    super(context.loaded?.seed ?? context.seed);
    if (context.loaded) this.load(context.loaded.records, context.loaded.nextTaskId, false);
  }

  /** The whole state as one JSON text: the snapshot format, naming a journal that is never written. */
  private text(): string {
    const iterators = this.tableIterators();
    const tables = TABLE_NAMES.map((name) => [name, encodeTable(name, iterators[name]())] as const);
    const head = { format: STATE_FORMAT, version: STATE_VERSION, seed: this.seed, clock: this.context.clock() };
    return snapshotText({ ...head, nextTaskId: this.nextTaskId, journal: 1 }, tables);
  }

  private async write(): Promise<void> {
    const temporary = temporaryFile(this.context.file);
    const handle = await open(temporary, "w", STATE_FILE_MODE);
    try {
      await handle.writeFile(this.text());
      await handle.sync();
    } finally {
      await handle.close();
    }
    await putInPlace(temporary, this.context.file);
  }

  private start(): Promise<void> {
    const current = this.write().finally(() => {
      if (this.running === current) this.running = undefined;
    });
    this.running = current;
    return current;
  }

  override commit(): Promise<void> {
    if (!this.running) return this.start();
    // A write is under way and may have missed this change: the next one carries it.
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.start();
      });
    return this.queued;
  }

  override async flush(): Promise<void> {
    await this.queued?.catch(() => undefined);
    await this.running?.catch(() => undefined);
  }

  override close(): Promise<void> {
    return this.flush();
  }
}
