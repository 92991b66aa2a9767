/**
 * A snapshot's tables in format version 4: each table a list of runs, a run being records next to each other in
 * the table's order that share an account and an owner (records.ts `OWNERS`), written once for the run rather
 * than in every record: `{"account": key, "owner": id, "records": [...]}` (no `owner` where the owner is the
 * account). A record leaves out what its run says (`account`, and the field naming its owner, e.g. a card's
 * `companyId`) and its `id` where the object it describes carries the same one (a card's `card.id`). The table's
 * order is kept whole, run after run, so reading a snapshot back gives each table's records in the order of
 * version 3 (a list of whole records). At 100,000 cards of one company the state file is a fifth smaller, and
 * reading it back makes the account, owner and id one string each rather than one per record.
 */
import { isAscii } from "node:buffer";
import { closeSync, openSync, readSync } from "node:fs";
import type { Row, TableName } from "../records.ts";

/** Where a record names its owner when that is not its account (records.ts `OWNERS` says the same). */
export const OWNER_FIELD: { readonly [T in TableName]?: string } = {
  cardHolders: "companyId",
  cards: "companyId",
  wallets: "companyId",
  routes: "companyId",
  transactions: "companyId",
  deliveries: "eventId",
};

/** The object inside a record whose `id` is the record's own, when it is the same string. */
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

/** The id a record's inner object carries (INNER_ID), if it is a string. */
function innerId(table: TableName, record: Record<string, unknown>): unknown {
  const field = INNER_ID[table];
  if (field === undefined) return undefined;
  const inner = record[field] as { id?: unknown } | null | undefined;
  return inner !== null && typeof inner === "object" ? inner.id : undefined;
}

/** The owner a record is grouped under: the field OWNER_FIELD names, or none (its account; an account: none). */
function ownerOf(table: TableName, record: Row): string | undefined {
  const field = OWNER_FIELD[table];
  return field === undefined ? undefined : ((record as unknown as Record<string, unknown>)[field] as string);
}

/** A record as a run holds it: without its account, its owner field, and its id where its inner object says it. */
function encodeRecord(table: TableName, record: Row): string {
  // Null-prototype: a key `__proto__` read from a file is an own field, written back as one.
  const rest: Record<string, unknown> = Object.create(null);
  const ownerField = OWNER_FIELD[table];
  const dropId = table === "accounts" ? record.id === record.account : innerId(table, record as never) === record.id;
  for (const key in record) {
    if (key === "account" || key === ownerField || (key === "id" && dropId)) continue;
    rest[key] = (record as unknown as Record<string, unknown>)[key];
  }
  return JSON.stringify(rest);
}

/**
 * One table's runs as JSON text, fragment by fragment (a record each), from a live walk of the table: a writer
 * paces itself between fragments, and the walk may see changes made meanwhile (a fuzzy snapshot). Laid out one
 * line per run head and per record (readSnapshotLines reads that layout a line at a time): `[`, then for each run
 * `{"account":…,"records":[`, its records one a line (a comma before every one but the first), `]}`; a comma
 * before every run but the first; `]` last. An empty table is `[]`.
 */
export function* encodeTable(table: TableName, records: Iterable<Row>): Generator<string> {
  let open = false;
  let account: string | undefined;
  let owner: string | undefined;
  for (const record of records) {
    const recordOwner = ownerOf(table, record);
    if (open && record.account === account && recordOwner === owner) {
      yield `,${encodeRecord(table, record)}\n`;
      continue;
    }
    account = record.account;
    owner = recordOwner;
    const head = owner === undefined ? { account } : { account, owner };
    yield `${open ? "]}\n," : "[\n"}${JSON.stringify(head).slice(0, -1)},"records":[\n${encodeRecord(table, record)}\n`;
    open = true;
  }
  yield open ? "]}\n]" : "[]";
}

/** A table's runs as one JSON text (what encodeTable gives, joined). */
export function tableText(table: TableName, records: Iterable<Row>): string {
  return [...encodeTable(table, records)].join("");
}

/**
 * A whole snapshot as JSON text, fragment by fragment: the head's fields and `"tables":{` on the first line, then
 * each table (its name and encodeTable's fragments) on lines of its own, `}}` last. One JSON document (the line
 * breaks are whitespace), in the layout readSnapshotLines reads.
 */
export function* snapshotFragments(
  head: Record<string, unknown>,
  tables: Iterable<readonly [TableName, Iterable<string>]>,
): Generator<string> {
  yield `${JSON.stringify(head).slice(0, -1)},"tables":{\n`;
  let first = true;
  for (const [name, fragments] of tables) {
    yield `${first ? "" : ","}${JSON.stringify(name)}:`;
    first = false;
    yield* fragments;
    yield "\n";
  }
  yield "}}";
}

/** A snapshot as one JSON text (what snapshotFragments gives, joined). */
export function snapshotText(head: Record<string, unknown>, tables: Iterable<readonly [TableName, Iterable<string>]>) {
  return [...snapshotFragments(head, tables)].join("");
}

/** How much is read at a time; a line longer than this grows the buffer up to LONGEST_LINE. */
const READ_BYTES = 1 << 18;
/** A line longer than this is not the layout snapshotFragments writes (the whole file is parsed as it is). */
const LONGEST_LINE = 1 << 26;
/** The first line (the head) longer than this is not that layout either (a file of version 3 or before is one line). */
const LONGEST_HEAD = 1 << 20;
const TABLES_OPEN = ',"tables":{';
const RECORDS_OPEN = ',"records":[';

/**
 * Reads a snapshot in the layout snapshotFragments writes, a line at a time, parsing each run head and each record
 * on its own: the file's text is never held whole (a 35 MB snapshot read whole took a buffer and a string of its
 * size, both memory touched for the first time, which on a virtual machine costs more than the parse). Gives what
 * JSON.parse of the whole text gives, and its size in bytes; undefined when the file is laid out otherwise (an
 * earlier version, an edit by hand, a file cut short or corrupt): the caller then parses the whole file, which
 * reads any JSON and names what is wrong. Throws what reading the file throws (ENOENT when there is none).
 */
export function readSnapshotLines(file: string): { value: Record<string, unknown>; bytes: number } | undefined {
  const fd = openSync(file, "r");
  try {
    const layout = new LayoutReader();
    let buffer = Buffer.allocUnsafe(READ_BYTES);
    let filled = 0;
    let bytes = 0;
    for (;;) {
      if (filled === buffer.length) {
        if (buffer.length >= LONGEST_LINE || (layout.atHead() && buffer.length >= LONGEST_HEAD)) return undefined;
        const larger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(larger, 0, 0, filled);
        buffer = larger;
      }
      const read = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (read === 0) return layout.line(text(buffer, filled)) ? layout.finish(bytes) : undefined;
      bytes += read;
      filled += read;
      // A line feed byte is never part of a longer UTF-8 sequence: text up to the last one decodes on its own.
      const last = buffer.lastIndexOf(10, filled - 1);
      if (last === -1) continue;
      for (const line of text(buffer, last).split("\n")) if (!layout.line(line)) return undefined;
      buffer.copy(buffer, 0, last + 1, filled);
      filled -= last + 1;
    }
  } finally {
    closeSync(fd);
  }
}

/** Bytes as text: Latin-1 when all ASCII (the same text, decoded faster), UTF-8 otherwise. */
function text(buffer: Buffer, end: number): string {
  const bytes = buffer.subarray(0, end);
  return bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
}

/** An object JSON text gives, or undefined when the text is not JSON or not an object. */
function parseObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The fields of an object whose text goes on past the line (`{"account":"k","records":[`): the line up to `suffix`
 * (`,"records":[`) closed and parsed. Undefined unless the line ends so, at least one field comes before the comma
 * (`{,"records":[` is not JSON, though `{}` is), and the suffix's key is not among them.
 */
function objectBefore(line: string, suffix: string): Record<string, unknown> | undefined {
  if (!line.endsWith(suffix)) return undefined;
  const fields = line.slice(0, -suffix.length);
  if (/\{\s*$/.test(fields)) return undefined;
  const value = parseObject(`${fields}}`);
  const key = suffix.slice(2, suffix.indexOf('"', 2));
  return value && !Object.hasOwn(value, key) ? value : undefined;
}

/** The layout snapshotFragments writes, followed a line at a time; a line it does not expect ends the reading. */
class LayoutReader {
  private state: "head" | "tables" | "runs" | "records" | "end" = "head";
  /** Whether the next table, run or record is the first of its list (no comma before it). */
  private first = true;
  private value: Record<string, unknown> | undefined;
  private readonly tables: Record<string, unknown[]> = {};
  private runs: unknown[] = [];
  private records: unknown[] = [];

  atHead(): boolean {
    return this.state === "head";
  }

  /** Takes the next line; false when it is not what the layout has there. */
  line(line: string): boolean {
    switch (this.state) {
      case "head": {
        this.value = objectBefore(line, TABLES_OPEN);
        if (!this.value) return false;
        this.value.tables = this.tables;
        this.state = "tables";
        this.first = true;
        return true;
      }
      case "tables": {
        if (line === "}}") {
          this.state = "end";
          return true;
        }
        const table = /^(,?)"([A-Za-z]+)":\[(\]?)$/.exec(line);
        if (!table || (table[1] === "") !== this.first || Object.hasOwn(this.tables, table[2]!)) return false;
        this.runs = [];
        this.tables[table[2]!] = this.runs;
        // An empty table (`[]`) is whole on its line; another has its runs on the lines after.
        const empty = table[3] === "]";
        this.state = empty ? "tables" : "runs";
        this.first = !empty;
        return true;
      }
      case "runs": {
        if (line === "]") {
          this.state = "tables";
          this.first = false;
          return true;
        }
        const body = this.unlisted(line);
        const run = body === undefined ? undefined : objectBefore(body, RECORDS_OPEN);
        if (!run) return false;
        this.records = [];
        run.records = this.records;
        this.runs.push(run);
        this.state = "records";
        this.first = true;
        return true;
      }
      case "records": {
        if (line === "]}") {
          this.state = "runs";
          this.first = false;
          return true;
        }
        const body = this.unlisted(line);
        if (body === undefined || !body.endsWith("}")) return false;
        const record = parseObject(body);
        if (!record) return false;
        this.records.push(record);
        this.first = false;
        return true;
      }
      case "end":
        return line.trim() === "";
    }
  }

  /** A list member's line without the comma before it (none before the first); undefined when that is wrong. */
  private unlisted(line: string): string | undefined {
    if (this.first) return line.startsWith("{") ? line : undefined;
    return line.startsWith(",{") ? line.slice(1) : undefined;
  }

  finish(bytes: number): { value: Record<string, unknown>; bytes: number } | undefined {
    return this.state === "end" && this.value ? { value: this.value, bytes } : undefined;
  }
}

/**
 * One table's records read back from its runs, each record given its account, owner and id again (in place: the
 * objects are the parse's own, not copied). Throws a TypeError naming what is not a run or a record.
 */
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
