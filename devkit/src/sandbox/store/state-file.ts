/**
 * What the stores share about a state file: the refusal that names it, what a sandbox starting on it is told it
 * holds, and the check every record read from disk passes before the sandbox serves it.
 */
import {
  dataMap,
  type Records,
  type Row,
  TABLE_NAMES,
  type TableName,
  type TaskRecord,
  type WalletRecord,
} from "../records.ts";
import type { LoadedRecords } from "./tables.ts";

export class SandboxStateError extends Error {
  override readonly name = "SandboxStateError";
}

/** Another sandbox (another process, or this one) has the state file open. */
export class StateFileInUseError extends SandboxStateError {}

/** A refusal of a state file, naming it; the file is left as it is. */
export function refusal(shownAs: string) {
  return (why: string) =>
    new SandboxStateError(
      `sandbox state file ${shownAs} ${why}; it was left untouched (move it away or pass another --state)`,
    );
}

/** Each table's records as lists. */
export type RecordLists = { [T in TableName]: Records[T][] };

/** What a sandbox starting on a state file is told it holds (undefined: a new file). */
export interface LoadedState {
  seed: number;
  /** The clock's reading at the last commit: a restart carries on from it. */
  clock: string;
  nextTaskId: number;
  /** How many records each table holds. */
  counts: { [T in TableName]: number };
  /** The files of an earlier format the state was migrated from, kept beside it under these names. */
  migratedFrom?: { format: number; keptAs: string[] };
}

export function isRow(value: unknown): value is Row {
  return (
    value !== null &&
    typeof value === "object" &&
    typeof (value as Row).id === "string" &&
    typeof (value as Row).account === "string"
  );
}

/**
 * Checks what a record must hold for the sandbox to serve it, and makes maps keyed by request data (a wallet's
 * addresses by chain) null-prototype ones; throws a TypeError naming what is not right.
 */
export function checkRecord<T extends TableName>(table: T, record: unknown): Records[T] {
  if (!isRow(record)) throw new TypeError(`a record of "${table}" has no id or account`);
  if (table === "tasks") {
    const task = (record as TaskRecord).task as Partial<TaskRecord["task"]> | undefined;
    if (!task || typeof task.id !== "number" || typeof task.dueAt !== "number" || typeof task.kind !== "string")
      throw new TypeError(`the task ${JSON.stringify(record.id).slice(0, 40)} is not a task`);
  }
  if (table === "wallets") {
    const wallet = record as WalletRecord;
    return { ...wallet, addresses: dataMap(Object.entries(wallet.addresses ?? {})) } as Records[T];
  }
  return record as Records[T];
}

/** checkRecord for every record of every table. */
export function checkRecords(records: LoadedRecords): RecordLists {
  return Object.fromEntries(
    TABLE_NAMES.map((name) => [name, [...(records[name] ?? [])].map((record) => checkRecord(name, record))]),
  ) as RecordLists;
}
