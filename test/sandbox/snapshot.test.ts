/**
 * The snapshot's tables in runs (format version 4, store/snapshot.ts): what is written is read back whole, in the
 * table's order, whatever the accounts, owners and ids; what is not a run or a record is refused, named.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { OWNERS, type Row, TABLE_NAMES, type TableName } from "../../devkit/src/sandbox/records.ts";
import {
  decodeTable,
  encodeTable,
  INNER_ID,
  OWNER_FIELD,
  readSnapshotLines,
  snapshotText,
  tableText,
} from "../../devkit/src/sandbox/store/snapshot.ts";
import { seededRandom } from "../helpers/random.ts";

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

describe("a snapshot read a line at a time (readSnapshotLines)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "snapshot-lines-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let files = 0;
  const fileOf = (text: string | Buffer) => {
    const file = path.join(dir, `s${files++}.json`);
    writeFileSync(file, text);
    return file;
  };
  const head = { format: "partner-api-sandbox-state", version: 4, seed: 7, clock: "2030-01-01T00:00:00Z", journal: 2 };
  /** A snapshot of every table: some empty, runs of several accounts and owners, text that is not ASCII. */
  const sample = (recordsPerTable: number, note = "é ✓ 😀 \u2028 \\n") =>
    snapshotText(
      head,
      TABLE_NAMES.map((table, t) => {
        const records: Row[] = [];
        if (t % 3 !== 1)
          for (let i = 0; i < recordsPerTable; i++)
            records.push({
              ...record(table, i % 5 < 3 ? "alpha" : "beta", table === "accounts" ? `A${i}` : `R${i}`, `O${i % 2}`),
              note: `${note} ${i}`,
            } as Row);
        return [table, encodeTable(table, records)] as const;
      }),
    );

  it("gives what JSON.parse of the whole text gives, and its size in bytes", () => {
    for (const text of [sample(0), sample(1), sample(7)]) {
      const read = readSnapshotLines(fileOf(text));
      expect(read).toBeDefined();
      expect(read!.value).toEqual(JSON.parse(text));
      expect(read!.bytes).toBe(Buffer.byteLength(text));
    }
  });

  it("reads lines that cross its reads and a line longer than one read (a record of 600 KB), UTF-8 split anywhere", () => {
    const long = "€".repeat(200_000);
    const text = sample(500, `ü${long.slice(0, 100)}`).replace('"note":"ü', `"long":"${long}","note":"ü`);
    expect(Buffer.byteLength(text)).toBeGreaterThan(2 * (1 << 18));
    const read = readSnapshotLines(fileOf(text));
    expect(read?.value).toEqual(JSON.parse(text));
  });

  it("reads nothing it does not know the layout of: earlier versions' one line, pretty-printed JSON, a file cut short", () => {
    const text = sample(4);
    const parsed = JSON.parse(text);
    expect(readSnapshotLines(fileOf(JSON.stringify(parsed)))).toBeUndefined();
    expect(readSnapshotLines(fileOf(JSON.stringify(parsed, null, 2)))).toBeUndefined();
    expect(readSnapshotLines(fileOf(text.slice(0, -1)))).toBeUndefined();
    expect(readSnapshotLines(fileOf(""))).toBeUndefined();
    // A comma missing before a table, a run or a record, or one too many before the first.
    for (const [from, to] of [
      ['\n,"companies":', '\n"companies":'],
      ['\n,{"account":"beta"', '\n{"account":"beta"'],
      ["\n,{", "\n{"],
      ['"tables":{\n"', '"tables":{\n,"'],
      ['"records":[\n{', '"records":[\n,{'],
      // Nothing before the comma: `{}` closed alone is JSON, the line in the file is not.
      ['{"account":"alpha","records":[', '{,"records":['],
      [
        '{"format":"partner-api-sandbox-state","version":4,"seed":7,"clock":"2030-01-01T00:00:00Z","journal":2,"tables"',
        '{ ,"tables"',
      ],
    ]) {
      expect(text.includes(from!), from).toBe(true);
      expect(readSnapshotLines(fileOf(text.replace(from!, to!))), from).toBeUndefined();
    }
    expect(readSnapshotLines(fileOf(text.replace(',"companies":[', ',"accounts":[')))).toBeUndefined();
    expect(() => readSnapshotLines(path.join(dir, "none.json"))).toThrow(/ENOENT/);
  });

  it("never gives other than JSON.parse: 400 texts changed at random (a character cut, added or changed, lines swapped)", () => {
    const random = seededRandom(29);
    const text = sample(3);
    const alphabet = ['"', ",", "{", "}", "[", "]", "\n", ":", "x", " ", "\\", "0"];
    let read = 0;
    for (let round = 0; round < 400; round++) {
      let changed = text;
      const at = random.int(text.length);
      const kind = random.int(4);
      if (kind === 0) changed = text.slice(0, at) + text.slice(at + 1);
      else if (kind === 1) changed = text.slice(0, at) + random.pick(alphabet) + text.slice(at);
      else if (kind === 2) changed = text.slice(0, at) + random.pick(alphabet) + text.slice(at + 1);
      else {
        const lines = text.split("\n");
        const a = random.int(lines.length);
        const b = random.int(lines.length);
        [lines[a], lines[b]] = [lines[b]!, lines[a]!];
        changed = lines.join("\n");
      }
      // As the file holds it: a cut surrogate pair is written as U+FFFD.
      const bytes = Buffer.from(changed);
      let expected: unknown;
      try {
        expected = JSON.parse(bytes.toString("utf8"));
      } catch {
        expected = undefined;
      }
      const lines = readSnapshotLines(fileOf(bytes));
      if (lines === undefined) continue;
      read++;
      expect(expected, `round ${round}: read a text JSON.parse refuses`).toBeDefined();
      expect(lines.value, `round ${round}`).toEqual(expected);
    }
    // Most changes inside a record's strings keep the layout: the line reader did read them.
    expect(read).toBeGreaterThan(50);
  });
});
