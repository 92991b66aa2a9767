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
 * paces itself between fragments, and the walk may see changes made meanwhile (a fuzzy snapshot).
 */
export function* encodeTable(table: TableName, records: Iterable<Row>): Generator<string> {
  let open = false;
  let account: string | undefined;
  let owner: string | undefined;
  yield "[";
  for (const record of records) {
    const recordOwner = ownerOf(table, record);
    if (open && record.account === account && recordOwner === owner) {
      yield `,${encodeRecord(table, record)}`;
      continue;
    }
    account = record.account;
    owner = recordOwner;
    const head = owner === undefined ? { account } : { account, owner };
    yield `${open ? "]}," : ""}${JSON.stringify(head).slice(0, -1)},"records":[${encodeRecord(table, record)}`;
    open = true;
  }
  yield open ? "]}]" : "]";
}

/** A table's runs as one JSON text (what encodeTable gives, joined). */
export function tableText(table: TableName, records: Iterable<Row>): string {
  return [...encodeTable(table, records)].join("");
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
