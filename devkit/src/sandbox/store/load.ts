/**
 * Reading a state file and the journals after it, in any format the sandbox has written: version 4 (records in
 * tables, each table in runs of one account and owner: snapshot.ts), version 3 (each table a list of whole
 * records; both with a journal of puts and deletes), and versions 1 and 2 (one nested state; version 2 with a journal of
 * changes by path), which migrate.ts makes into records. A corrupt file, one of a newer format, or a corrupt
 * journal line before the last is refused naming it, and the files are left as they are.
 */
import { isAscii } from "node:buffer";
import { readFileSync } from "node:fs";
import { CLOCK_RANGE_TEXT, inClockRange } from "../clock.ts";
import {
  dataMap,
  type Records,
  type Row,
  TABLE_NAMES,
  type TableName,
  type TaskRecord,
  type WalletRecord,
} from "../records.ts";
import { journalFile, journalGenerations, readJournal } from "./files.ts";
import { isRow, type JournalLine, journalLineProblem, RecordSet } from "./journal.ts";
import { type NestedState, type PathLine, pathLineProblem, recordsOf, replayPaths } from "./migrate.ts";
import { decodeTable, readSnapshotLines } from "./snapshot.ts";
import type { LoadedRecords } from "./tables.ts";

export const STATE_FORMAT = "partner-api-sandbox-state";
/** Bumped when a state file written by this version could not be read by an older one. */
export const STATE_VERSION = 4;

export class SandboxStateError extends Error {
  override readonly name = "SandboxStateError";
}

/** A refusal of a state file (or of its journal), naming it; the files are left as they are. */
export function refusal(shownAs: string) {
  return (why: string) =>
    new SandboxStateError(
      `sandbox state file ${shownAs} ${why}; it was left untouched (move it away or pass another --state)`,
    );
}

/** Each table's records as lists. */
export type RecordLists = { [T in TableName]: Records[T][] };

/** The state as the files hold it, with what a store needs to carry on writing them. */
export interface LoadedState {
  /** The format version of the snapshot (below STATE_VERSION: written by an earlier release, and migrated). */
  version: number;
  seed: number;
  /** The clock's reading when the last line (or the snapshot) was written: a restart carries on from it. */
  clock: string;
  nextTaskId: number;
  /** Each table's records, in the order they were first put. */
  records: RecordLists;
  /** The journal generation new lines go to (the last one on disk, or the one the snapshot names). */
  generation: number;
  /** The bytes of that journal up to its last whole line (0: there is none yet). */
  journalBytes: number;
  /** The journal lines read after the snapshot. */
  journalLines: number;
  snapshotBytes: number;
}

/**
 * Reads a state file and the journal after it, synchronously; undefined when there is none yet. A journal's last
 * line cut short by a `kill -9` is left out.
 */
export function loadStateFiles(file: string, shownAs: string): LoadedState | undefined {
  const refuse = refusal(shownAs);
  let parsed: unknown;
  let size: number;
  try {
    // A snapshot this version wrote is read a line at a time (snapshot.ts); anything else is parsed whole.
    const lines = readSnapshotLines(file);
    if (lines) {
      parsed = lines.value;
      size = lines.bytes;
    } else {
      const bytes = readFileSync(file);
      size = bytes.length;
      try {
        // Text that is all ASCII (as a state file usually is) is the same read as Latin-1, which is a copy:
        // decoding tens of megabytes as UTF-8 costs more.
        parsed = JSON.parse(bytes.toString(isAscii(bytes) ? "latin1" : "utf8"));
      } catch (error) {
        throw refuse(`is corrupt (not JSON: ${(error as Error).message})`);
      }
    }
  } catch (error) {
    if (error instanceof SandboxStateError) throw error;
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new SandboxStateError(`sandbox state file ${shownAs} cannot be read: ${(error as Error).message}`);
  }
  const head = parsed as Record<string, unknown> | null;
  if (!head || typeof head !== "object" || head.format !== STATE_FORMAT)
    throw refuse(`is corrupt (no "format": "${STATE_FORMAT}")`);
  const version = head.version;
  if (typeof version !== "number" || !Number.isInteger(version))
    throw refuse(`is corrupt ("version" is not an integer)`);
  if (version > STATE_VERSION)
    throw refuse(`was written by a newer sandbox (format version ${version}; this one reads up to ${STATE_VERSION})`);
  if (
    typeof head.seed !== "number" ||
    typeof head.clock !== "string" ||
    Number.isNaN(Date.parse(head.clock)) ||
    typeof head.nextTaskId !== "number"
  )
    throw refuse("is corrupt (seed, clock or nextTaskId missing or of the wrong type)");
  let generation = 0;
  if (version >= 2) {
    if (typeof head.journal !== "number" || !Number.isInteger(head.journal) || head.journal < 0)
      throw refuse(`is corrupt ("journal" is not a generation number)`);
    generation = head.journal;
  }
  const journal = <Line>(problem: (line: unknown) => string | undefined) => {
    const lines: Line[] = [];
    let bytes = 0;
    // A version 1 file is the whole state: journals beside it are not its own.
    if (version < 2) return { lines, bytes };
    for (const next of journalGenerations(file).filter((g) => g >= generation)) {
      // Generations follow each other; one missing ends the journal (the next compaction removes the rest).
      if (next !== generation && next !== generation + 1) break;
      const read = readJournal<Line>(journalFile(file, next), next, refusal(`${shownAs}.journal-${next}`), problem);
      if (!read) break;
      lines.push(...read.lines);
      generation = next;
      bytes = read.intact;
    }
    return { lines, bytes };
  };
  let clock = head.clock as string;
  let nextTaskId = head.nextTaskId as number;
  let records: LoadedRecords;
  let read: { lines: unknown[]; bytes: number };
  let lists: RecordLists;
  try {
    if (version >= 3) {
      const tables = head.tables as Record<string, unknown> | null;
      if (!tables || typeof tables !== "object") throw new TypeError(`"tables" is not an object`);
      for (const name of Object.keys(tables))
        if (!(TABLE_NAMES as string[]).includes(name)) throw new TypeError(`it holds a table "${name.slice(0, 40)}"`);
      const lists: LoadedRecords = {};
      for (const name of TABLE_NAMES) {
        if (version >= 4) {
          (lists as Record<TableName, Row[]>)[name] = decodeTable(name, tables[name] ?? []);
          continue;
        }
        const list = tables[name] ?? [];
        if (!Array.isArray(list) || !list.every(isRow))
          throw new TypeError(`its table "${name}" is not a list of records`);
        (lists as Record<TableName, Row[]>)[name] = list;
      }
      const set = new RecordSet(lists);
      const lines = journal<JournalLine>(journalLineProblem);
      for (const line of lines.lines) {
        set.apply(line);
        clock = line.clock;
        nextTaskId = line.nextTaskId;
      }
      read = lines;
      records = set.records;
    } else {
      if (!Array.isArray(head.tasks) || !head.accounts || typeof head.accounts !== "object")
        throw new TypeError("its tasks or accounts are missing or of the wrong type");
      const nested = head as unknown as NestedState;
      const lines = journal<PathLine>(pathLineProblem);
      replayPaths(nested, lines.lines);
      for (const [apiKey, account] of Object.entries(nested.accounts))
        if (!account || typeof account !== "object" || !Array.isArray(account.companies))
          throw new TypeError(`the account ${JSON.stringify(apiKey.slice(0, 40))} is not an account object`);
      ({ clock, nextTaskId } = nested);
      read = lines;
      records = recordsOf(nested);
    }
    lists = checkRecords(records);
  } catch (error) {
    if (error instanceof TypeError) throw refuse(`is corrupt (${error.message})`);
    throw error;
  }
  if (!inClockRange(Date.parse(clock)))
    throw refuse(`is corrupt (its clock ${clock} is outside the sandbox clock's range, ${CLOCK_RANGE_TEXT})`);
  return {
    version,
    seed: head.seed as number,
    clock,
    nextTaskId,
    records: lists,
    generation,
    journalBytes: read.bytes,
    journalLines: read.lines.length,
    snapshotBytes: size,
  };
}

/**
 * Checks what every record must hold for the sandbox to serve it, and makes maps keyed by request data (a
 * wallet's addresses by chain) null-prototype ones; throws a TypeError naming the first that is not right.
 */
function checkRecords(records: LoadedRecords): RecordLists {
  const lists = Object.fromEntries(TABLE_NAMES.map((name) => [name, [...(records[name] ?? [])]])) as RecordLists;
  const tasks = lists.tasks as TaskRecord[];
  for (const record of tasks) {
    const task = record.task as Partial<TaskRecord["task"]> | undefined;
    if (!task || typeof task.id !== "number" || typeof task.dueAt !== "number" || typeof task.kind !== "string")
      throw new TypeError(`the task ${JSON.stringify(record.id).slice(0, 40)} is not a task`);
  }
  lists.wallets = (lists.wallets as WalletRecord[]).map((record) => ({
    ...record,
    addresses: dataMap(Object.entries(record.addresses ?? {})),
  }));
  for (const name of TABLE_NAMES)
    for (const record of lists[name] as Row[])
      if (!isRow(record)) throw new TypeError(`a record of "${name}" has no id or account`);
  return lists;
}

/** The state a state file holds, read as a sandbox starting on it would; undefined when there is none yet. */
export async function readStateFile(file: string, shownAs: string): Promise<LoadedState | undefined> {
  return loadStateFiles(file, shownAs);
}
