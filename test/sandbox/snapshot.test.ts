/**
 * The snapshot's tables in runs (format version 4, store/snapshot.ts): what is written is read back whole, in the
 * table's order, whatever the accounts, owners and ids; what is not a run or a record is refused, named.
 */
import { describe, expect, it } from "vitest";
import { OWNERS, type Row, TABLE_NAMES, type TableName } from "../../devkit/src/sandbox/records.ts";
import { decodeTable, INNER_ID, OWNER_FIELD, tableText } from "../../devkit/src/sandbox/store/snapshot.ts";

/** A record of `table` for the round trip: its inner object carries its id unless `otherInner`. */
function record(table: TableName, account: string, id: string, owner: string, otherInner = false): Row {
  const fields: Record<string, unknown> = { id, account, note: `${table} ${id}`, nested: { list: [1, { deep: id }] } };
  const ownerField = OWNER_FIELD[table];
  if (ownerField) fields[ownerField] = owner;
  const inner = INNER_ID[table];
  if (inner) fields[inner] = { id: otherInner ? `${id}-other` : id, name: "x" };
  return fields as unknown as Row;
}

describe("a snapshot table in runs", () => {
  it("reads back every record as it was, in the table's order, accounts and owners interleaved", () => {
    for (const table of TABLE_NAMES) {
      const records: Row[] = [];
      // Runs that break and start again (an account, another, the first again; owners alternating), a record
      // whose inner id differs, an id shared across accounts, keys that are object members elsewhere.
      const accounts = ["alpha", "__proto__", "alpha", "beta", "beta"];
      accounts.forEach((account, index) => {
        const id = table === "accounts" ? account : `R${index % 3}`;
        records.push(record(table, account, id, index < 2 ? "constructor" : "C1", index === 3));
      });
      const text = tableText(table, records);
      const back = decodeTable(table, JSON.parse(text));
      expect(back, table).toEqual(records);
      // Each record's account (and owner where it is a field) is written once per run, not per record.
      if (table !== "accounts") expect(text.split('"account"').length - 1, table).toBe(4);
    }
  });

  it("groups by the owner the store lists by (OWNER_FIELD names what OWNERS reads)", () => {
    for (const table of TABLE_NAMES) {
      const sample = record(table, "k", "R1", "O1");
      const field = OWNER_FIELD[table];
      const owner = (OWNERS[table] as (record: Row) => string)(sample);
      if (field) expect(owner, table).toBe("O1");
      else expect(owner, table).toBe(table === "accounts" ? "" : "k");
    }
  });

  it("keeps a field named __proto__ as a field", () => {
    const held = JSON.parse('{"id":"C1","account":"k","companyId":"O","card":{"id":"C1"},"__proto__":{"x":1}}');
    const back = decodeTable("cards", JSON.parse(tableText("cards", [held])))[0] as unknown as Record<string, unknown>;
    expect(Object.hasOwn(back, "__proto__")).toBe(true);
    expect(back).toEqual(held);
  });

  it("leaves a record's id out only where its inner object holds the same", () => {
    const same = tableText("cards", [record("cards", "k", "C1", "O")]);
    const other = tableText("cards", [record("cards", "k", "C1", "O", true)]);
    expect(JSON.parse(same)[0].records[0]).not.toHaveProperty("id");
    expect(JSON.parse(other)[0].records[0].id).toBe("C1");
    expect(JSON.parse(tableText("deliveries", [record("deliveries", "k", "t3", "E")]))[0].records[0].id).toBe("t3");
  });

  it("refuses what is not runs of records, naming the table", () => {
    expect(() => decodeTable("cards", {})).toThrow(/its table "cards" is not a list of runs/);
    expect(() => decodeTable("cards", [{ account: "k", records: [] }])).toThrow(
      /its table "cards" holds a run that is not an account, owner and records/,
    );
    expect(() => decodeTable("events", [{ account: 5, records: [] }])).toThrow(
      /holds a run that is not an account and records/,
    );
    expect(() => decodeTable("events", [null])).toThrow(/holds a run/);
    expect(() => decodeTable("events", [{ account: "k", records: [[1]] }])).toThrow(
      /a record of "events" is not an object/,
    );
    expect(() => decodeTable("deliveries", [{ account: "k", owner: "E", records: [{}] }])).toThrow(
      /a record of "deliveries" has no id/,
    );
    expect(decodeTable("events", [])).toEqual([]);
  });
});
