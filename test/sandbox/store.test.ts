/**
 * The store on its own: records kept per account and listed per owner in the order first put, frozen once put
 * (a change made in place throws), and the SQLite store's commits giving back exactly the tables memory holds,
 * whatever mix of puts, deletes, puts again and resets they hold.
 */
import { statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CardHolderRecord, CompanyRecord, Row, TableName } from "../../devkit/src/sandbox/records.ts";
import {
  openSqliteStore,
  readStateFile,
  type SqliteStore,
  StateNotSavedError,
} from "../../devkit/src/sandbox/store/sqlite-store.ts";
import { deepFreeze, MemoryStore, recordKey } from "../../devkit/src/sandbox/store/tables.ts";
import { seededRandom } from "../helpers/random.ts";

function company(account: string, id: string, name = id): CompanyRecord {
  return { id, account, company: { id, name }, cardBins: [] };
}

function holder(account: string, companyId: string, id: string): CardHolderRecord {
  return { id, account, companyId, cardHolder: { id, name: id } };
}

const TESTED: TableName[] = ["companies", "cardHolders"];

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "sandbox-store-unit-"));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

/** A new SQLite store on a file of its own. */
async function sqliteStore(name: string): Promise<SqliteStore> {
  const file = path.join(folder, `${name}.db`);
  return openSqliteStore({ file, shownAs: name, seed: 1, clock: () => "2030-01-01T00:00:00.000Z" });
}

/** The tables tested here, each account's records in their order: in memory, and as the database holds them. */
function held(store: SqliteStore) {
  return Object.fromEntries(TESTED.map((name) => [name, byAccount([...store.all(name)])]));
}
function inFile(name: string) {
  const { records } = readStateFile(path.join(folder, `${name}.db`), name)!;
  return Object.fromEntries(TESTED.map((table) => [table, byAccount(records[table])]));
}
function byAccount(records: readonly Row[]) {
  const accounts = new Map<string, Row[]>();
  for (const record of records) accounts.set(record.account, [...(accounts.get(record.account) ?? []), record]);
  return [...accounts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

describe("the memory store", () => {
  it("keeps each account's records apart, whatever their ids", () => {
    const store = new MemoryStore(1);
    store.put("companies", company("alice", "C1", "Alice's"));
    store.put("companies", company("bob", "C1", "Bob's"));
    expect(store.get("companies", "alice", "C1")?.company.name).toBe("Alice's");
    expect(store.get("companies", "bob", "C1")?.company.name).toBe("Bob's");
    expect(store.get("companies", "carol", "C1")).toBeUndefined();
    // The first account to take an id is the one a lookup across accounts finds.
    expect(store.accountOf("companies", "C1")).toBe("alice");
    store.delete("companies", "alice", "C1");
    expect(store.accountOf("companies", "C1")).toBe("bob");
    expect(store.size("companies")).toBe(1);
  });

  it("lists an owner's records in the order first put: a put in place keeps its place, one put again after a delete goes last", () => {
    const store = new MemoryStore(1);
    for (const id of ["H1", "H2", "H3"]) store.put("cardHolders", holder("k", "C", id));
    store.put("cardHolders", holder("k", "other", "H9"));
    const ids = () => store.list("cardHolders", "k", "C").map((record) => record.id);
    expect(ids()).toEqual(["H1", "H2", "H3"]);
    store.put("cardHolders", { ...holder("k", "C", "H1"), cardHolder: { id: "H1", name: "renamed" } });
    expect(ids()).toEqual(["H1", "H2", "H3"]);
    expect(store.list("cardHolders", "k", "C")[0]!.cardHolder.name).toBe("renamed");
    store.delete("cardHolders", "k", "H2");
    store.put("cardHolders", holder("k", "C", "H2"));
    expect(ids()).toEqual(["H1", "H3", "H2"]);
    expect(store.count("cardHolders", "k", "C")).toBe(3);
    expect(store.list("cardHolders", "k", "other").map((record) => record.id)).toEqual(["H9"]);
  });

  it("freezes what is put, nested objects too: a record changed in place throws", () => {
    const store = new MemoryStore(1);
    const put = store.put("companies", company("k", "C1"));
    expect(() => {
      (put as { kybStatus?: string }).kybStatus = "SUBMITTED";
    }).toThrow(TypeError);
    expect(() => {
      (put.company as { name?: string }).name = "changed";
    }).toThrow(TypeError);
    expect(() => {
      (put.cardBins as unknown[]).push({});
    }).toThrow(TypeError);
    expect(store.get("companies", "k", "C1")?.company.name).toBe("C1");
    expect(Object.isFrozen(deepFreeze({ a: [{ b: 1 }] }).a[0])).toBe(true);
  });

  it("a reset drops every record and moves the epoch; the task counter stays", () => {
    const store = new MemoryStore(1);
    store.put("companies", company("k", "C1"));
    const epoch = store.epoch;
    expect(store.takeTaskId()).toBe(1);
    store.reset();
    expect(store.size("companies")).toBe(0);
    expect(store.epoch).toBeGreaterThan(epoch);
    expect(store.nextTaskId).toBe(2);
  });

  it.each([1, 2, 3, 4])(
    "records read back (load) make the same tables as putting them one by one: order, owners, lookups, frozen (seed %i)",
    (seed) => {
      const random = seededRandom(seed);
      // Runs of one account and owner, interleaved with others, and ids taken again (in place, or moving owner).
      const records: CardHolderRecord[] = [];
      for (let step = 0; step < 400; step++) {
        const account = random.pick(["a", "b", "__proto__"]);
        const owner = random.pick(["C1", "C2", "__proto__"]);
        for (let run = random.int(4); run >= 0; run--)
          records.push({ ...holder(account, owner, `H${random.int(60)}`), cardHolder: { id: "x", name: `v${step}` } });
      }
      class Loaded extends MemoryStore {
        constructor() {
          super(1);
          this.load({ cardHolders: records.map((record) => structuredClone(record)) }, 7, false);
        }
      }
      const loaded = new Loaded();
      const putOneByOne = new MemoryStore(1);
      for (const record of records) putOneByOne.put("cardHolders", structuredClone(record));
      expect([...loaded.all("cardHolders")]).toEqual([...putOneByOne.all("cardHolders")]);
      expect(loaded.size("cardHolders")).toBe(putOneByOne.size("cardHolders"));
      expect(loaded.nextTaskId).toBe(7);
      for (const account of ["a", "b", "__proto__", "none"]) {
        for (const owner of ["C1", "C2", "__proto__"]) {
          expect(loaded.list("cardHolders", account, owner)).toEqual(putOneByOne.list("cardHolders", account, owner));
          expect(loaded.count("cardHolders", account, owner)).toBe(putOneByOne.count("cardHolders", account, owner));
        }
        for (let id = 0; id < 60; id++)
          expect(loaded.get("cardHolders", account, `H${id}`)).toEqual(
            putOneByOne.get("cardHolders", account, `H${id}`),
          );
      }
      for (let id = 0; id < 60; id++)
        expect(loaded.accountOf("cardHolders", `H${id}`)).toBe(putOneByOne.accountOf("cardHolders", `H${id}`));
      for (const record of loaded.all("cardHolders")) expect(Object.isFrozen(record.cardHolder)).toBe(true);
      // Filled tables go on as put ones do.
      loaded.put("cardHolders", holder("a", "C1", "new"));
      putOneByOne.put("cardHolders", holder("a", "C1", "new"));
      expect(loaded.list("cardHolders", "a", "C1")).toEqual(putOneByOne.list("cardHolders", "a", "C1"));
    },
  );

  it("record keys cannot be confused, whatever an account or an id holds", () => {
    expect(recordKey("a", "bc")).not.toBe(recordKey("ab", "c"));
    expect(recordKey("a\u00001", "x")).not.toBe(recordKey("a", "\u00001x"));
  });
});

describe("the SQLite store's commits", () => {
  it("a put again after a delete between two commits goes last, in memory and in the database", async () => {
    const store = await sqliteStore("again");
    store.put("cardHolders", holder("k", "C", "H1"));
    store.put("cardHolders", holder("k", "C", "H2"));
    await store.commit();
    store.delete("cardHolders", "k", "H1");
    store.put("cardHolders", holder("k", "C", "H1"));
    await store.commit();
    expect([...store.all("cardHolders")].map((record) => record.id)).toEqual(["H2", "H1"]);
    expect(inFile("again")).toEqual(held(store));
    await store.close();
  });

  it("the commits asked for in one turn share a transaction: when it fails, each is refused and memory is read back from the file", async () => {
    const store = await sqliteStore("refused");
    store.put("companies", company("k", "kept"));
    await store.commit();
    store.put("companies", company("k", "first"));
    const first = store.commit();
    // A record SQLite is never handed (its JSON cannot be made): the transaction fails after it began.
    store.put("companies", { ...company("k", "second"), unwritable: 1n } as unknown as CompanyRecord);
    const second = store.commit();
    await expect(first).rejects.toThrow(StateNotSavedError);
    await expect(second).rejects.toThrow(/was not saved to the sandbox state file refused \(.*BigInt/);
    expect(store.undone).toBe(1);
    expect([...store.all("companies")].map((record) => record.id)).toEqual(["kept"]);
    expect(inFile("refused")).toEqual(held(store));
    // The next commit writes as usual.
    store.put("companies", company("k", "after"));
    await store.commit();
    expect(inFile("refused").companies).toEqual([["k", [company("k", "kept"), company("k", "after")]]]);
    await store.close();
  });

  // Commits without a pause for a while (about a second of CPU and I/O): npm run test:all runs it.
  it("under commits without a pause the log is written from its beginning again after checkpoints, not grown", {
    tags: ["slow"],
  }, async () => {
    const store = await sqliteStore("log");
    const log = path.join(folder, "log.db-wal");
    let largest = 0;
    let perCommit = 0;
    const commits = 8_000;
    for (let step = 1; step <= commits; step++) {
      store.put("companies", company("k", `c${step}`));
      await store.commit();
      // Before the first checkpoint (every 200 commits): what the log takes a commit.
      if (step === 100) perCommit = statSync(log).size / 100;
      if (step % 100 === 0) largest = Math.max(largest, statSync(log).size);
    }
    // A log never written from its beginning again holds every commit (SQLite starts it again only when a
    // transaction finds every frame checkpointed, which commits without a pause never let happen).
    expect(largest).toBeLessThan((perCommit * commits) / 2);
    expect(inFile("log")).toEqual(held(store));
    await store.close();
  });

  it.each([1, 2, 3, 4])(
    "give back exactly the tables memory holds, after 2,000 random changes and a reopen (seed %i)",
    async (seed) => {
      const random = seededRandom(seed);
      const name = `random-${seed}`;
      const store = await sqliteStore(name);
      const accounts = ["a", "b", "__proto__"];
      const ids = ["1", "2", "3", "4", "5", "6"];
      const commits: Promise<void>[] = [];
      for (let step = 0; step < 2_000; step++) {
        const account = random.pick(accounts);
        const id = random.pick(ids);
        const roll = random.int(100);
        if (roll < 45) store.put("companies", company(account, id, `v${step}`));
        else if (roll < 65) store.put("cardHolders", holder(account, random.pick(ids), id));
        else if (roll < 80) store.delete("companies", account, id);
        else if (roll < 95) store.delete("cardHolders", account, id);
        else if (roll < 96) store.reset();
        // Commits asked for in one turn share a transaction; now and then one is awaited.
        if (random.int(4) === 0) commits.push(store.commit());
        if (random.int(40) === 0) await Promise.all(commits.splice(0));
      }
      await store.commit();
      await Promise.all(commits);
      const memory = held(store);
      expect(inFile(name)).toEqual(memory);
      await store.close();
      const reopened = await sqliteStore(name);
      expect(held(reopened)).toEqual(memory);
      await reopened.close();
    },
  );
});
