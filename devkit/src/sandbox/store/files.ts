/**
 * The state file's files on disk, whatever their format: the snapshot (written to a temporary file, fsynced and
 * renamed into place, in slices that give way to requests), the journals beside it (`<state>.journal-<n>`, JSON
 * lines after a header line naming the generation), and the temporary files a killed process leaves.
 */
import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { type FileHandle, open, rename, unlink } from "node:fs/promises";
import path from "node:path";
import type { TableName } from "../records.ts";
import { JOURNAL_FORMAT } from "./journal.ts";
import { snapshotFragments } from "./snapshot.ts";

/** Every state file is created readable by its owner only: it holds API keys and webhook signing secrets. */
export const STATE_FILE_MODE = 0o600;

/** The journal of a generation, beside the state file. */
export function journalFile(file: string, generation: number): string {
  return `${file}.journal-${generation}`;
}

/** The generations of the journals beside the state file, in order. */
export function journalGenerations(file: string): number[] {
  const base = `${path.basename(file)}.journal-`;
  let names: string[];
  try {
    names = readdirSync(path.dirname(file));
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith(base) && /^\d+$/.test(name.slice(base.length)))
    .map((name) => Number(name.slice(base.length)))
    .sort((a, b) => a - b);
}

/**
 * The lines of a journal: its header checked, the lines after it parsed and each checked by `problem` (why a
 * line is not one of the format read, or undefined). A last line cut short (a `kill -9` during its write) is no
 * line: it is left out, and `intact` says how many bytes precede it.
 */
export function readJournal<Line>(
  file: string,
  generation: number,
  refuse: (why: string) => Error,
  problem: (line: unknown) => string | undefined,
): { lines: Line[]; intact: number } | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw refuse(`cannot be read: ${(error as Error).message}`);
  }
  const end = text.lastIndexOf("\n") + 1;
  const intact = Buffer.byteLength(text.slice(0, end));
  const rows = text.slice(0, end).split("\n");
  rows.pop();
  const lines: Line[] = [];
  for (const [index, row] of rows.entries()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(row);
    } catch (error) {
      throw refuse(`is corrupt (line ${index + 1} is not JSON: ${(error as Error).message})`);
    }
    if (index === 0) {
      const header = parsed as { format?: unknown; generation?: unknown } | null;
      if (!header || header.format !== JOURNAL_FORMAT || header.generation !== generation)
        throw refuse(`is corrupt (no "format": "${JOURNAL_FORMAT}" with generation ${generation} on line 1)`);
      continue;
    }
    const why = problem(parsed);
    if (why !== undefined) throw refuse(`is corrupt (line ${index + 1} is not a journal line: it ${why})`);
    lines.push(parsed as Line);
  }
  return { lines, intact };
}

/** Cuts a journal back to its intact lines (a torn last line goes), so the next line starts on a line of its own. */
export function truncateJournal(file: string, intact: number): void {
  const fd = openSync(file, "r+");
  try {
    if (fstatSync(fd).size > intact) {
      ftruncateSync(fd, intact);
      fsyncSync(fd);
    }
  } finally {
    closeSync(fd);
  }
}

/** Writes a journal's header line, durably (the file and its folder entry). */
export function createJournalSync(file: string, generation: number): void {
  const fd = openSync(file, "w", STATE_FILE_MODE);
  try {
    writeSync(fd, `${JSON.stringify({ format: JOURNAL_FORMAT, generation })}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  syncFolderSync(file);
}

export function syncFolderSync(file: string): void {
  let fd: number;
  try {
    fd = openSync(path.dirname(file), "r");
  } catch (error) {
    // Windows cannot open a folder (EISDIR, EPERM); there the rename itself is what NTFS journals.
    if (process.platform === "win32") return;
    throw error;
  }
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export async function syncFolder(file: string): Promise<void> {
  const folder = await open(path.dirname(file), "r").catch((error: NodeJS.ErrnoException) => {
    if (process.platform === "win32") return undefined;
    throw error;
  });
  try {
    await folder?.sync();
  } finally {
    await folder?.close();
  }
}

/** Removes the journals of generations before `generation` (a compaction has made them obsolete). */
export function removeJournalsBefore(file: string, generation: number): void {
  for (const older of journalGenerations(file))
    if (older < generation) {
      try {
        unlinkSync(journalFile(file, older));
      } catch {
        // Gone already, or removed at the next compaction.
      }
    }
}

/** The temporary file a snapshot is written to before it is renamed into place. */
export function temporaryFile(file: string, pid = process.pid): string {
  return `${file}.${pid}.tmp`;
}

/** Removes the temporary files (`<state>.<pid>.tmp`) left by processes that are gone (killed while writing). */
export function removeStrayTemporaries(file: string): string[] {
  const base = path.basename(file);
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(path.dirname(file));
  } catch {
    return removed;
  }
  for (const name of names) {
    const match = name.startsWith(`${base}.`) ? /^\.(\d+)\.tmp$/.exec(name.slice(base.length)) : null;
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid !== process.pid && alive(pid)) continue;
    try {
      unlinkSync(path.join(path.dirname(file), name));
      removed.push(name);
    } catch {
      // Removed by someone else meanwhile.
    }
  }
  return removed;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Gives way to waiting I/O and timers (a request) between slices of a long job. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** How long a slice of a snapshot may hold the event loop. */
const SLICE_MS = 4;

class SnapshotSink {
  private parts: string[] = [];
  private buffered = 0;
  private sliceStarted = performance.now();
  written = 0;

  constructor(private readonly handle: FileHandle) {}

  push(text: string): void {
    this.parts.push(text);
    this.buffered += text.length;
  }

  async pace(): Promise<void> {
    if (this.buffered > 1 << 20) await this.drain();
    if (performance.now() - this.sliceStarted > SLICE_MS) {
      await yieldToLoop();
      this.sliceStarted = performance.now();
    }
  }

  async drain(): Promise<void> {
    if (this.parts.length === 0) return;
    const text = this.parts.join("");
    this.parts = [];
    this.buffered = 0;
    await this.handle.write(text);
    this.written += Buffer.byteLength(text);
  }
}

/**
 * Writes a snapshot atomically (temporary file, fsync, rename, fsync of the folder): `head` as it is now, then
 * each table as the JSON text fragments its walk gives (snapshot.ts `encodeTable` over a live iterator: a record
 * put meanwhile may or may not be caught, and the journal after the snapshot sets it again), giving way to
 * requests between fragments. Resolves with its size in bytes; `abandon` returning true (a journal write failed
 * meanwhile) leaves the old snapshot in place and resolves with -1.
 */
export async function writeSnapshot(
  file: string,
  head: Record<string, unknown>,
  tables: Iterable<readonly [TableName, Iterable<string>]>,
  abandon: () => boolean = () => false,
): Promise<number> {
  const temporary = temporaryFile(file);
  const handle = await open(temporary, "w", STATE_FILE_MODE);
  let size = 0;
  try {
    const sink = new SnapshotSink(handle);
    for (const fragment of snapshotFragments(head, tables)) {
      sink.push(fragment);
      await sink.pace();
    }
    await sink.drain();
    size = sink.written;
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await handle.close();
  if (abandon()) {
    await unlink(temporary).catch(() => undefined);
    return -1;
  }
  await putInPlace(temporary, file);
  return size;
}

/**
 * Puts a written and fsynced temporary file in place of `file` (rename), durably (fsync of the folder); on
 * failure the temporary file goes and `file` is as it was.
 */
export async function putInPlace(temporary: string, file: string): Promise<void> {
  try {
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncFolder(file);
}
