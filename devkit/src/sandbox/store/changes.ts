/**
 * The changes since the last commit, one per record (its last value), in the order the records were first
 * touched: what a persistent store writes in one transaction. A put is an `insert` (the record was not there, or
 * moved to another owner: it goes last in its table's order) or an `update` (it replaced the record in place); a
 * record inserted again after it was deleted moves last, as it does in memory.
 */
import type { Row, TableName } from "../records.ts";
import { type ChangeRecorder, recordKey } from "./tables.ts";

/** One change: a record inserted (it goes last) or updated (in place), or the record of an account with an id deleted. */
export type Change = ["insert", TableName, Row] | ["update", TableName, Row] | ["delete", TableName, string, string];

interface Pending {
  table: TableName;
  account: string;
  id: string;
  /** The record put; undefined: deleted. */
  record: Row | undefined;
  /** The record was not there before this commit's first change of it (or was deleted since): it goes last. */
  inserted: boolean;
}

export class ChangeSet implements ChangeRecorder {
  private pending = new Map<string, Pending>();
  private resetPending = false;

  get size(): number {
    return this.pending.size + (this.resetPending ? 1 : 0);
  }

  put(table: TableName, record: Row, inserted: boolean): void {
    const key = `${table}\u0000${recordKey(record.account, record.id)}`;
    const entry = this.pending.get(key);
    if (entry && !inserted) entry.record = record;
    else {
      this.pending.delete(key);
      this.pending.set(key, { table, account: record.account, id: record.id, record, inserted });
    }
  }

  delete(table: TableName, account: string, id: string): void {
    const key = `${table}\u0000${recordKey(account, id)}`;
    const entry = this.pending.get(key);
    if (entry) {
      entry.record = undefined;
      entry.inserted = false;
    } else this.pending.set(key, { table, account, id, record: undefined, inserted: false });
  }

  /** Everything goes: the changes before it with it. */
  reset(): void {
    this.pending.clear();
    this.resetPending = true;
  }

  /** Forgets every change (they were undone: the records are read back from the file). */
  clear(): void {
    this.pending.clear();
    this.resetPending = false;
  }

  /** The changes, a reset first when there was one, and forgets them. */
  take(): { reset: boolean; changes: Change[] } {
    const changes: Change[] = [];
    for (const { table, account, id, record, inserted } of this.pending.values())
      changes.push(
        record === undefined
          ? ["delete", table, account, id]
          : inserted
            ? ["insert", table, record]
            : ["update", table, record],
      );
    const reset = this.resetPending;
    this.pending = new Map();
    this.resetPending = false;
    return { reset, changes };
  }
}
