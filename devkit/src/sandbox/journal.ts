/**
 * Persistence whose cost per write does not grow with the state: a snapshot (the state file, the same JSON as
 * ever plus the generation of the journal that follows it) and a journal of changes beside it
 * (`<state>.journal-<generation>`, JSON lines), appended and fsynced before a change is answered.
 *
 * What changed is recorded where it is made: the engine and the flows mark the records they touch by a stable
 * path (`accounts/<key>/companies/{id}/cards/{id}`: array elements by their id, not their position), and a
 * journal line holds, for each path marked since the last one, the value found there when the line is written
 * (or its absence). Applying a line sets those values, so a line applied twice is a line applied once: a snapshot
 * taken while changes go on ("fuzzy", written in slices that give way to requests) plus every line from the
 * generation it names rebuilds the state exactly. When the journal outgrows its bound, and at a clean stop, a
 * new snapshot is written and the journals before it are deleted (compaction).
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
import { heapify } from "./due.ts";
import type { SandboxState, Task } from "./state.ts";

/** A path segment: an object key, an array index, or the element of an array with this id. */
export type Segment = string | number | { id: string };
export type Path = Segment[];

export const JOURNAL_FORMAT = "partner-api-sandbox-journal";
/** Every state file is created readable by its owner only: it holds API keys and webhook signing secrets. */
export const STATE_FILE_MODE = 0o600;

/** How each list's elements are named in a path. */
const ID_OF: Record<string, (item: never) => string> = {
  companies: (r: { company: { id: string } }) => r.company.id,
  cards: (r: { card: { id: string } }) => r.card.id,
  cardHolders: (r: { id: string }) => r.id,
  wallets: (r: { wallet: { id: string } }) => r.wallet.id,
  paymentRoutes: (r: { id: string }) => r.id,
  ledger: (r: { transaction?: { id: string } }) => r.transaction?.id ?? "",
  endpoints: (r: { endpoint: { id: string } }) => r.endpoint.id,
  events: (r: { envelope: { id: string } }) => r.envelope.id,
  tasks: (t: { id: number }) => String(t.id),
};

/** The id a list's element is named by in a path. */
export function idOf(list: string, item: object): string {
  const of = ID_OF[list];
  if (!of) throw new Error(`the sandbox journal names no elements of a list "${list}"`);
  return (of as (item: object) => string)(item);
}

/** Id → position, per array, built on first use and extended as the array grows (arrays named by id only grow). */
const positions = new WeakMap<unknown[], { indexed: number; byId: Map<string, number> }>();

function positionOf(list: string, items: unknown[], id: string): number {
  let entry = positions.get(items);
  if (!entry || entry.indexed > items.length) {
    entry = { indexed: 0, byId: new Map() };
    positions.set(items, entry);
  }
  for (; entry.indexed < items.length; entry.indexed++) {
    const item = items[entry.indexed];
    if (item && typeof item === "object") {
      const key = idOf(list, item);
      if (!entry.byId.has(key)) entry.byId.set(key, entry.indexed);
    }
  }
  const found = entry.byId.get(id);
  // A position taken by another element since (a list replaced in place) is looked for again.
  if (found !== undefined && items[found] && idOf(list, items[found] as object) === id) return found;
  if (found !== undefined) {
    positions.delete(items);
    return items.findIndex((item) => item && typeof item === "object" && idOf(list, item) === id);
  }
  return -1;
}

type Container = Record<string, unknown> | unknown[];

/** The container a path's last segment is in, or undefined when a step on the way is missing. */
function parentOf(root: object, target: Path): Container | undefined {
  let at: unknown = root;
  for (let i = 0; i < target.length - 1; i++) {
    if (!at || typeof at !== "object") return undefined;
    const segment = target[i]!;
    if (typeof segment === "object") {
      if (!Array.isArray(at)) return undefined;
      const position = positionOf(String(target[i - 1]), at, segment.id);
      at = position === -1 ? undefined : at[position];
    } else at = Object.hasOwn(at, segment) ? (at as Record<string, unknown>)[segment] : undefined;
  }
  return at && typeof at === "object" ? (at as Container) : undefined;
}

const MISSING = Symbol("missing");

/** The value at a path: MISSING when it is absent, undefined when a step on the way is missing. */
export function valueAt(root: object, target: Path): unknown {
  const parent = parentOf(root, target);
  if (!parent) return undefined;
  const last = target[target.length - 1]!;
  if (typeof last === "object") {
    const position = positionOf(String(target[target.length - 2]), parent as unknown[], last.id);
    return position === -1 ? MISSING : (parent as unknown[])[position];
  }
  return Object.hasOwn(parent, last) ? (parent as Record<string, unknown>)[last] : MISSING;
}

/** Sets (or, with no value, removes) what is at a path; nothing when a step on the way is missing. */
export function applyChange(root: object, target: Path, present: boolean, value?: unknown): void {
  const parent = parentOf(root, target);
  if (!parent) return;
  const last = target[target.length - 1]!;
  if (typeof last === "object") {
    const items = parent as unknown[];
    const position = positionOf(String(target[target.length - 2]), items, last.id);
    if (present) {
      if (position === -1) items.push(value);
      else items[position] = value;
    } else if (position !== -1) {
      items.splice(position, 1);
      positions.delete(items);
    }
  } else if (present)
    // Defined, not assigned: a key is data (an API key named `__proto__` is an account like any other).
    Object.defineProperty(parent, last, { value, writable: true, enumerable: true, configurable: true });
  else delete (parent as Record<string, unknown>)[last];
}

/** One journal line: the clock and task counter when it was written, and each path with its value (none: removed). */
export interface JournalLine {
  clock: string;
  nextTaskId: number;
  changes: ([Path] | [Path, unknown])[];
}

/**
 * Applies journal lines to a state read from a snapshot. Tasks are gathered by id (the heap's order is not
 * journalled: a task removed is gone wherever it sat) and put back in heap order at the end.
 */
export function replay(state: SandboxState, lines: Iterable<JournalLine>): void {
  let tasks = new Map<string, Task>(state.tasks.map((task) => [String(task.id), task]));
  for (const line of lines) {
    state.clock = line.clock;
    state.nextTaskId = line.nextTaskId;
    for (const change of line.changes) {
      const [target] = change;
      const present = change.length > 1;
      if (target[0] === "tasks") {
        if (target.length === 1) tasks = new Map((change[1] as Task[]).map((task) => [String(task.id), task]));
        else {
          const id = (target[1] as { id: string }).id;
          if (present) tasks.set(id, change[1] as Task);
          else tasks.delete(id);
        }
      } else applyChange(state, target, present, change[1]);
    }
  }
  state.tasks = heapify([...tasks.values()]);
}

/**
 * The paths changed since the last journal line. A path marked holds its value as found when the line is
 * written; `put` gives the value itself (a task, whose place in the heap moves).
 */
export class ChangeSet {
  private marks = new Map<string, { target: Path; value?: unknown; put: boolean }>();

  get size(): number {
    return this.marks.size;
  }

  mark(target: Path): void {
    this.marks.set(JSON.stringify(target), { target, put: false });
  }

  put(target: Path, value: unknown): void {
    this.marks.set(JSON.stringify(target), { target, value, put: true });
  }

  /** Forgets every mark: the whole state is marked after (a reset, a reload). */
  clear(): void {
    this.marks.clear();
  }

  /** The changes as a journal line's `changes`, shortest paths first, and forgets them. */
  take(state: SandboxState): JournalLine["changes"] {
    const marks = [...this.marks.values()].sort((a, b) => a.target.length - b.target.length);
    this.marks = new Map();
    const changes: JournalLine["changes"] = [];
    for (const { target, value, put } of marks) {
      if (put) {
        changes.push(value === undefined ? [target] : [target, value]);
        continue;
      }
      const found = valueAt(state, target);
      // A step on the way is gone (a reset since): the change went with it.
      if (found === undefined) continue;
      changes.push(found === MISSING ? [target] : [target, found]);
    }
    return changes;
  }
}

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
 * The lines of a journal: its header checked, the lines after it parsed. A last line cut short (a `kill -9`
 * during its write) is no line: it is left out, and `intact` says how many bytes precede it.
 */
export function readJournal(
  file: string,
  generation: number,
  refuse: (why: string) => Error,
): { lines: JournalLine[]; intact: number } | undefined {
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
  const lines: JournalLine[] = [];
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
    const line = parsed as Partial<JournalLine> | null;
    if (!line || typeof line.clock !== "string" || typeof line.nextTaskId !== "number" || !Array.isArray(line.changes))
      throw refuse(`is corrupt (line ${index + 1} is not a journal line)`);
    lines.push(line as JournalLine);
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

/** A list or map this long is written element by element, giving way between slices. */
const SPLIT_LENGTH = 32;
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

function splits(value: unknown, depth: number): boolean {
  if (!value || typeof value !== "object") return false;
  if (depth <= 3) return true;
  if (Array.isArray(value)) return value.length > SPLIT_LENGTH;
  // A record holding a long list (a company with its cards) is written field by field.
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (Array.isArray(field) && field.length > SPLIT_LENGTH) return true;
  }
  return false;
}

/** JSON.stringify's text of `value`, written in slices: a long list's elements one by one, giving way between. */
async function emit(value: unknown, sink: SnapshotSink, depth: number): Promise<void> {
  if (!splits(value, depth)) {
    sink.push(JSON.stringify(value) ?? "null");
    await sink.pace();
    return;
  }
  if (Array.isArray(value)) {
    sink.push("[");
    // The length as it is now: elements appended later are in the journal that follows the snapshot.
    const length = value.length;
    for (let i = 0; i < length; i++) {
      if (i > 0) sink.push(",");
      await emit(value[i], sink, depth + 1);
    }
    sink.push("]");
    return;
  }
  sink.push("{");
  let first = true;
  for (const key of Object.keys(value as object)) {
    const field = (value as Record<string, unknown>)[key];
    if (field === undefined || typeof field === "function") continue;
    sink.push(`${first ? "" : ","}${JSON.stringify(key)}:`);
    first = false;
    await emit(field, sink, depth + 1);
  }
  sink.push("}");
}

/**
 * Writes a snapshot atomically (temporary file, fsync, rename, fsync of the folder): `head` as it is now, the
 * accounts as the slices find them. Resolves with its size in bytes; `abandon` returning true (a journal write
 * failed meanwhile) leaves the old snapshot in place.
 */
export async function writeSnapshot(
  file: string,
  head: Omit<SandboxState, "accounts"> & { journal: number },
  accounts: SandboxState["accounts"],
  abandon: () => boolean = () => false,
): Promise<number> {
  const temporary = temporaryFile(file);
  const handle = await open(temporary, "w", STATE_FILE_MODE);
  let size = 0;
  try {
    const sink = new SnapshotSink(handle);
    const headText = JSON.stringify(head);
    sink.push(`${headText.slice(0, -1)},"accounts":`);
    await emit(accounts, sink, 1);
    sink.push("}");
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
