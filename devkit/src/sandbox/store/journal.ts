/**
 * The journal's lines (format version 3): what was put and deleted since the line before, in the order it was
 * done, so a line holds exactly what the store was given. A put names the record whole (its table, account and
 * id are in it): an `insert` (the record was not there: applying it puts the record last, wherever a copy of it
 * was) or an `update` (it replaced the record in place: applying it sets the record where it is).
 *
 * That is what lets a snapshot be written while changes go on ("fuzzy"): the snapshot walks the tables as they
 * change, so it may hold a record inserted after it began (or a record twice, before and after it was deleted
 * and inserted again). Every record inserted after it began is inserted again by the next journal's lines, in
 * the order they were made, after every record the snapshot held from before; every change it caught is made
 * again. So the snapshot and the lines after it give back the tables as memory holds them, order included.
 */
import { type Records, type Row, TABLE_NAMES, type TableName } from "../records.ts";
import { type ChangeRecorder, type LoadedRecords, recordKey } from "./tables.ts";

export const JOURNAL_FORMAT = "partner-api-sandbox-journal";

/** One change: a record inserted (it goes last) or updated (in place), or the record of an account with an id deleted. */
export type JournalOp = ["insert", TableName, Row] | ["update", TableName, Row] | ["delete", TableName, string, string];

/** One journal line: the clock and task counter when it was written, a reset first when there was one, the changes. */
export interface JournalLine {
  clock: string;
  nextTaskId: number;
  reset?: true;
  ops: JournalOp[];
}

const TABLES = new Set<string>(TABLE_NAMES);

/** Why a parsed journal line is not one of this format; undefined when it is. */
export function journalLineProblem(line: unknown): string | undefined {
  const candidate = line as Partial<JournalLine> | null;
  if (!candidate || typeof candidate !== "object") return "is not an object";
  if (typeof candidate.clock !== "string" || typeof candidate.nextTaskId !== "number" || !Array.isArray(candidate.ops))
    return "has no clock, nextTaskId and ops";
  for (const op of candidate.ops) {
    if (!Array.isArray(op) || !TABLES.has(op[1] as string)) return "has a change of no table";
    if (op[0] === "delete") {
      if (typeof op[2] !== "string" || typeof op[3] !== "string") return "has a delete that names no record";
    } else if (op[0] === "insert" || op[0] === "update") {
      if (!isRow(op[2])) return "has a put of something that is not a record";
    } else return `has a change of an unknown kind ${JSON.stringify(op[0])?.slice(0, 20)}`;
  }
  return undefined;
}

export function isRow(value: unknown): value is Row {
  return (
    value !== null &&
    typeof value === "object" &&
    typeof (value as Row).id === "string" &&
    typeof (value as Row).account === "string"
  );
}

/** The key a change is kept under: its table, account and id. */
function keyOf(table: TableName, account: string, id: string): string {
  return `${table}\u0000${recordKey(account, id)}`;
}

interface Pending {
  table: TableName;
  account: string;
  id: string;
  /** The record put; undefined: deleted. */
  record: Row | undefined;
  /** The record was not there before this line's first change of it (or was deleted since): it goes last. */
  inserted: boolean;
}

/**
 * The changes since the last journal line, one per record (its last value), in the order the records were
 * first touched; a record inserted again after it was deleted moves last, as it does in memory.
 */
export class ChangeSet implements ChangeRecorder {
  private pending = new Map<string, Pending>();
  private resetPending = false;

  get size(): number {
    return this.pending.size + (this.resetPending ? 1 : 0);
  }

  put(table: TableName, record: Row, inserted: boolean): void {
    const key = keyOf(table, record.account, record.id);
    const entry = this.pending.get(key);
    if (entry && !inserted) entry.record = record;
    else {
      // Inserted (again, when it was deleted in this line): last, as in memory.
      this.pending.delete(key);
      this.pending.set(key, { table, account: record.account, id: record.id, record, inserted: inserted });
    }
  }

  delete(table: TableName, account: string, id: string): void {
    const key = keyOf(table, account, id);
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

  /** Forgets every change (they were undone: the records are read back from the files). */
  clear(): void {
    this.pending.clear();
    this.resetPending = false;
  }

  /** The changes as a line's `reset` and `ops`, and forgets them. */
  take(): { reset: boolean; ops: JournalOp[] } {
    const ops: JournalOp[] = [];
    for (const { table, account, id, record, inserted } of this.pending.values())
      ops.push(
        record === undefined
          ? ["delete", table, account, id]
          : inserted
            ? ["insert", table, record]
            : ["update", table, record],
      );
    const reset = this.resetPending;
    this.pending = new Map();
    this.resetPending = false;
    return { reset, ops };
  }
}

/**
 * Records being read back: each table's in the order first put, a snapshot's lists with the journal's lines
 * applied in order (replay), as if each table were one map from key to record (an insert deletes and sets, an
 * update sets in place, or last when the record is not there).
 *
 * Only the records the lines touch are looked up by key: the snapshot's lists (100,000 records and more) are not
 * indexed, and a table no line touches is given back as the snapshot listed it (a store's `put` keeps a record
 * listed twice, as a fuzzy snapshot may, in its first place with its last value, as the map would).
 */
export class RecordSet {
  private base: LoadedRecords;
  private ops: JournalOp[] = [];

  /** A snapshot's (or a migration's) records, in their order. */
  constructor(records: LoadedRecords = {}) {
    this.base = records;
  }

  apply(line: { reset?: boolean | undefined; ops: readonly JournalOp[] }): void {
    if (line.reset) {
      this.base = {};
      this.ops = [];
    }
    for (const op of line.ops) this.ops.push(op);
  }

  get records(): LoadedRecords {
    const byTable = new Map<TableName, JournalOp[]>();
    for (const op of this.ops) {
      const list = byTable.get(op[1]);
      if (list) list.push(op);
      else byTable.set(op[1], [op]);
    }
    return Object.fromEntries(
      TABLE_NAMES.map((name) => [name, replayed(this.base[name] ?? [], byTable.get(name) ?? [])]),
    ) as { [T in TableName]: Records[T][] };
  }
}

/** A record as replay holds it: its last value, and whether it is still in the place the snapshot gave it. */
interface Replayed {
  record: Row;
  inPlace: boolean;
}

/** One table's snapshot records with its ops applied (RecordSet). */
function replayed(base: Iterable<Row>, ops: readonly JournalOp[]): Row[] {
  if (ops.length === 0) return Array.isArray(base) ? base : [...base];
  const touchedIds = new Set<string>();
  for (const op of ops) touchedIds.add(op[0] === "delete" ? op[3] : op[2].id);
  // The touched records the snapshot holds, in their first place with their last value.
  const state = new Map<string, Replayed>();
  for (const record of base)
    if (touchedIds.has(record.id)) {
      const key = recordKey(record.account, record.id);
      const held = state.get(key);
      if (held) held.record = record;
      else state.set(key, { record, inPlace: true });
    }
  for (const op of ops) {
    if (op[0] === "delete") {
      state.delete(recordKey(op[2], op[3]));
      continue;
    }
    const key = recordKey(op[2].account, op[2].id);
    const held = state.get(key);
    if (op[0] === "update" && held) held.record = op[2];
    else {
      state.delete(key);
      state.set(key, { record: op[2], inPlace: false });
    }
  }
  const records: Row[] = [];
  const placed = new Set<string>();
  for (const record of base) {
    if (!touchedIds.has(record.id)) {
      records.push(record);
      continue;
    }
    const key = recordKey(record.account, record.id);
    const held = state.get(key);
    if (held?.inPlace && !placed.has(key)) {
      placed.add(key);
      records.push(held.record);
    }
  }
  for (const held of state.values()) if (!held.inPlace) records.push(held.record);
  return records;
}
