/**
 * The one-time migration's reader: a state file of format version 4, as the sandbox wrote it before its state
 * moved to SQLite. A snapshot (one JSON document: `{format, version: 4, seed, clock, nextTaskId, journal, tables}`,
 * each table a list of runs of records sharing an account and an owner) and the journals beside it
 * (`<state>.journal-<n>`: a header line, then one line per commit of `insert`, `update` and `delete` changes).
 * The journals are applied to the snapshot's records in order, as that release did at start; a last line cut
 * short by a `kill -9` is left out. Anything else is refused naming the file.
 */
import { isAscii } from "node:buffer";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { type Records, type Row, TABLE_NAMES, type TableName } from "../records.ts";
import type { Change } from "./changes.ts";
import { isRow, type RecordLists, refusal, type SandboxStateError } from "./state-file.ts";
import { type LoadedRecords, recordKey } from "./tables.ts";

export const FORMAT_4 = "partner-api-sandbox-state";
const JOURNAL_FORMAT = "partner-api-sandbox-journal";

/** What a format 4 state file and its journals held. */
export interface Format4State {
  seed: number;
  clock: string;
  nextTaskId: number;
  records: LoadedRecords;
  /** The journals read (to be kept beside the old snapshot once the state is in SQLite). */
  journals: string[];
}

/** Whether the text a file starts with is a state file of the JSON formats (any version). */
export function looksLikeFormat4(start: Buffer): boolean {
  return /^\s*\{\s*"format"\s*:\s*"partner-api-sandbox-state"/.test(start.toString("latin1"));
}

/** Reads a format 4 state file and its journals; refuses any other version, or a corrupt file, by name. */
export function readFormat4(file: string, shownAs: string): Format4State {
  const refuse = refusal(shownAs);
  let head: Record<string, unknown> | null;
  try {
    const bytes = readFileSync(file);
    head = JSON.parse(bytes.toString(isAscii(bytes) ? "latin1" : "utf8"));
  } catch (error) {
    throw refuse(`is corrupt (not JSON: ${(error as Error).message})`);
  }
  if (!head || typeof head !== "object" || head.format !== FORMAT_4)
    throw refuse(`is corrupt (no "format": "${FORMAT_4}")`);
  if (head.version !== 4)
    throw refuse(
      `is of format version ${JSON.stringify(head.version)?.slice(0, 20)}, written by an earlier release of the sandbox; this one migrates format version 4 only (start it once with a devkit from before the state moved to SQLite, which rewrites it as version 4)`,
    );
  if (
    typeof head.seed !== "number" ||
    typeof head.clock !== "string" ||
    Number.isNaN(Date.parse(head.clock)) ||
    typeof head.nextTaskId !== "number" ||
    typeof head.journal !== "number" ||
    !Number.isInteger(head.journal)
  )
    throw refuse("is corrupt (seed, clock, nextTaskId or journal missing or of the wrong type)");
  let clock = head.clock;
  let nextTaskId = head.nextTaskId;
  const journals: string[] = [];
  let records: LoadedRecords;
  try {
    const tables = head.tables as Record<string, unknown> | null;
    if (!tables || typeof tables !== "object") throw new TypeError(`"tables" is not an object`);
    for (const name of Object.keys(tables))
      if (!(TABLE_NAMES as string[]).includes(name)) throw new TypeError(`it holds a table "${name.slice(0, 40)}"`);
    const lists: LoadedRecords = {};
    for (const name of TABLE_NAMES) (lists as Record<TableName, Row[]>)[name] = decodeTable(name, tables[name] ?? []);
    const changes: Change[] = [];
    let base = lists;
    let generation = head.journal;
    for (const next of journalGenerations(file).filter((g) => g >= generation)) {
      // Generations follow each other; one missing ends the journal.
      if (next !== generation && next !== generation + 1) break;
      const journal = `${file}.journal-${next}`;
      const lines = readJournal(journal, next, refusal(`${shownAs}.journal-${next}`));
      journals.push(journal);
      for (const line of lines) {
        if (line.reset) {
          base = {};
          changes.length = 0;
        }
        for (const op of line.ops) changes.push(op);
        clock = line.clock;
        nextTaskId = line.nextTaskId;
      }
      generation = next;
    }
    records = replay(base, changes);
  } catch (error) {
    if (error instanceof TypeError) throw refuse(`is corrupt (${error.message})`);
    throw error;
  }
  return { seed: head.seed, clock, nextTaskId, records, journals };
}

/** Where a record named its owner in format 4 when that is not its account (records.ts `OWNERS` says the same). */
export const OWNER_FIELD: { readonly [T in TableName]?: string } = {
  cardHolders: "companyId",
  cards: "companyId",
  wallets: "companyId",
  routes: "companyId",
  transactions: "companyId",
  deliveries: "eventId",
};

/** The object inside a record whose `id` was left out of the record where it was the same string. */
export const INNER_ID: { readonly [T in TableName]?: string } = {
  companies: "company",
  cardHolders: "cardHolder",
  cards: "card",
  wallets: "wallet",
  routes: "route",
  transactions: "transaction",
  endpoints: "endpoint",
  events: "envelope",
};

/** A table's runs (`{account, owner?, records}`) as whole records, in the table's order. */
export function decodeTable(table: TableName, runs: unknown): Row[] {
  if (!Array.isArray(runs)) throw new TypeError(`its table "${table}" is not a list of runs`);
  const ownerField = OWNER_FIELD[table];
  const records: Row[] = [];
  for (const run of runs as unknown[]) {
    const { account, owner, records: list } = (run ?? {}) as { account?: unknown; owner?: unknown; records?: unknown };
    if (
      run === null ||
      typeof run !== "object" ||
      typeof account !== "string" ||
      !Array.isArray(list) ||
      (ownerField !== undefined && typeof owner !== "string")
    )
      throw new TypeError(
        `its table "${table}" holds a run that is not an account${ownerField ? ", owner" : ""} and records`,
      );
    for (const record of list as unknown[]) {
      if (record === null || typeof record !== "object" || Array.isArray(record))
        throw new TypeError(`a record of "${table}" is not an object`);
      const fields = record as Record<string, unknown>;
      if (fields.id === undefined) fields.id = table === "accounts" ? account : innerId(table, fields);
      if (typeof fields.id !== "string") throw new TypeError(`a record of "${table}" has no id`);
      fields.account = account;
      if (ownerField !== undefined) fields[ownerField] = owner;
      records.push(record as Row);
    }
  }
  return records;
}

function innerId(table: TableName, record: Record<string, unknown>): unknown {
  const field = INNER_ID[table];
  if (field === undefined) return undefined;
  const inner = record[field] as { id?: unknown } | null | undefined;
  return inner !== null && typeof inner === "object" ? inner.id : undefined;
}

/** The generations of the journals beside the state file, in order. */
function journalGenerations(file: string): number[] {
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

interface JournalLine {
  clock: string;
  nextTaskId: number;
  reset?: true;
  ops: Change[];
}

const TABLES = new Set<string>(TABLE_NAMES);

/** A journal's lines after its header, each checked; a last line cut short (a `kill -9` while it was written) is left out. */
function readJournal(file: string, generation: number, refuse: (why: string) => SandboxStateError): JournalLine[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw refuse(`cannot be read: ${(error as Error).message}`);
  }
  const rows = text.slice(0, text.lastIndexOf("\n") + 1).split("\n");
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
    const why = lineProblem(parsed);
    if (why !== undefined) throw refuse(`is corrupt (line ${index + 1} is not a journal line: it ${why})`);
    lines.push(parsed as JournalLine);
  }
  return lines;
}

function lineProblem(line: unknown): string | undefined {
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

/**
 * The snapshot's records with the journals' changes applied in order, as if each table were one map from key to
 * record: an insert deletes and sets (last), an update sets in place (or last when the record is not there). A
 * snapshot written while changes went on may list a record twice: it is kept in its first place with its last value.
 */
function replay(base: LoadedRecords, changes: readonly Change[]): RecordLists {
  const byTable = new Map<TableName, Change[]>();
  for (const change of changes) {
    const list = byTable.get(change[1]);
    if (list) list.push(change);
    else byTable.set(change[1], [change]);
  }
  return Object.fromEntries(TABLE_NAMES.map((name) => [name, replayed(base[name] ?? [], byTable.get(name) ?? [])])) as {
    [T in TableName]: Records[T][];
  };
}

function replayed(base: Iterable<Row>, changes: readonly Change[]): Row[] {
  const state = new Map<string, { record: Row; inPlace: boolean }>();
  for (const record of base) {
    const key = recordKey(record.account, record.id);
    const held = state.get(key);
    if (held) held.record = record;
    else state.set(key, { record, inPlace: true });
  }
  for (const change of changes) {
    if (change[0] === "delete") {
      state.delete(recordKey(change[2], change[3]));
      continue;
    }
    const key = recordKey(change[2].account, change[2].id);
    const held = state.get(key);
    if (change[0] === "update" && held) held.record = change[2];
    else {
      state.delete(key);
      state.set(key, { record: change[2], inPlace: false });
    }
  }
  return [...state.values()].map((held) => held.record);
}
