/**
 * Keys are data, never property names: an API key, an id or a card name that is the name of an
 * Object.prototype member (`__proto__`, `constructor`, `toString`, …) is an account, an id or a name like any
 * other, in memory and in a state file read back.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractExamples } from "../../devkit/src/sandbox/flows/examples.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { openDatabase, readStateFile } from "../../devkit/src/sandbox/store/sqlite-store.ts";
import { clientFor, emptyStateFile, ONBOARD_BODY, request, seededCompany } from "./support.ts";

/** Every member name of Object.prototype (`__proto__` among them). */
const NAMES = [...new Set([...Object.getOwnPropertyNames(Object.prototype), "__proto__"])];

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 7, frozen: true, startTime: "2030-01-01T00:00:00Z" });
});
afterAll(() => sandbox.stop());

describe("prototype member names", () => {
  it("include __proto__, constructor, toString and valueOf", () => {
    expect(NAMES).toEqual(
      expect.arrayContaining(["__proto__", "constructor", "toString", "valueOf", "hasOwnProperty"]),
    );
  });

  it("as API keys: each is its own account, for companies, onboarding and cards alike", async () => {
    const onboarded = new Map<string, string>();
    for (const name of NAMES) {
      const client = clientFor(sandbox.url, name);
      const listed = await client.get("/v1/companies");
      expect(listed.status, name).toBe(200);
      expect(listed.body.companies, name).toHaveLength(1);
      const created = await client.post("/v1/companies", { ...ONBOARD_BODY, name: `Company of ${name}` });
      expect(created.status, name).toBe(201);
      onboarded.set(name, created.body.company.id);
      const { companyId, cardHolderId } = await seededCompany(client);
      const card = await client.post(
        "/v1/cards",
        { cardHolderId, name, category: "Other", bin: "45671234" },
        { companyId },
      );
      expect(card.status, name).toBe(201);
      const cards = await client.get("/v1/cards", { companyId });
      expect(cards.status, name).toBe(200);
      expect(
        cards.body.cards.map((c: { name: string }) => c.name),
        name,
      ).toEqual([contractExamples().card.card.name, name]);
    }
    // Each account holds its own companies only.
    for (const name of NAMES) {
      const listed = await clientFor(sandbox.url, name).get("/v1/companies");
      const names = listed.body.companies.map((c: { name: string }) => c.name);
      expect(names, name).toEqual(expect.arrayContaining([`Company of ${name}`]));
      expect(names, name).toHaveLength(2);
      const ids = listed.body.companies.map((c: { id: string }) => c.id);
      for (const [other, id] of onboarded)
        if (other !== name) expect(ids, `${name} holds ${other}'s company`).not.toContain(id);
    }
    const accounts = await request(sandbox.url, "GET", "/_sandbox/accounts");
    expect(accounts.status).toBe(200);
    expect(new Set(accounts.body.accounts.map((a: { account: string }) => a.account)).size).toBe(
      accounts.body.accounts.length,
    );
    expect(accounts.body.accounts.length).toBeGreaterThanOrEqual(NAMES.length);
  });

  it("as company ids and path ids: the API's 4xx, never a 5xx", async () => {
    const client = clientFor(sandbox.url, "ids");
    const { companyId } = await seededCompany(client);
    for (const name of NAMES) {
      const id = encodeURIComponent(name);
      const answers = await Promise.all([
        client.get("/v1/cards", { companyId: name }),
        client.get(`/v1/cards?search=${id}`, { companyId }),
        client.patch(
          `/v1/cards/${id}/spend-settings`,
          { isUnlimitedLimitPerTransaction: true, isAllowedAllCurrencies: true },
          { companyId },
        ),
        client.get(`/v1/card-holders/${id}`, { companyId }),
        client.get(`/transactions/${id}`),
        client.get(`/v1/payment-routes/${id}`, { companyId }),
        client.post(`/v1/wallets/${id}/addresses`, {}, { companyId }),
        client.get(`/_sandbox/accounts/${id}`),
        client.get(`/_sandbox/companies/${id}/wallets`),
        client.post(`/_sandbox/events/${id}/resend`),
        client.delete(`/_sandbox/webhook-endpoints/${id}`),
        client.delete(`/_sandbox/faults/${id}`),
        request(sandbox.url, "GET", "/v1/companies", { headers: { "X-Sandbox-Account": name } }),
      ]);
      for (const answer of answers) {
        expect(answer.status, `${name}: ${answer.text.slice(0, 200)}`).toBeGreaterThanOrEqual(200);
        expect(answer.status, `${name}: ${answer.text.slice(0, 200)}`).toBeLessThan(500);
      }
      // Only the search may answer 200: every id is unknown.
      expect(answers.filter((answer) => answer.status < 400)).toHaveLength(1);
    }
  });

  it("as a body's property names: refused or ignored as the contract says, never a 5xx", async () => {
    const client = clientFor(sandbox.url, "bodies");
    for (const name of NAMES) {
      const answer = await request(sandbox.url, "POST", "/v1/companies", {
        apiKey: "bodies",
        rawBody: JSON.stringify({ ...ONBOARD_BODY }).replace(/^\{/, `{"${name}": {"polluted": true},`),
      });
      expect(answer.status, name).toBeLessThan(500);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await client.get("/v1/companies")).status).toBe(200);
  });
});

describe("a state file with prototype-named accounts", () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), "sandbox-keys-"));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it("is read back with every account in it, each its own, and takes new ones", async () => {
    const file = path.join(folder, "state.json");
    const made = new Map<string, string>();
    const onboard = async (url: string, name: string) => {
      const created = await clientFor(url, name).post("/v1/companies", { ...ONBOARD_BODY, name: `Of ${name}` });
      expect(created.status, name).toBe(201);
      made.set(name, created.body.company.id);
    };
    const check = async (url: string) => {
      for (const [name, id] of made) {
        const listed = await clientFor(url, name).get("/v1/companies");
        expect(listed.status, name).toBe(200);
        expect(
          listed.body.companies.map((c: { id: string }) => c.id),
          name,
        ).toContain(id);
        expect(listed.body.companies, name).toHaveLength(2);
      }
      expect((await request(url, "GET", "/_sandbox/accounts")).body.accounts).toHaveLength(made.size);
    };
    const first = await startSandbox({ port: 0, seed: 3, state: file, startTime: "2030-01-01T00:00:00Z" });
    try {
      for (const name of ["constructor", "toString", "plain"]) await onboard(first.url, name);
    } finally {
      await first.stop();
    }
    // Read back: the accounts are there, and a key first seen now (`__proto__`) is one more account.
    const second = await startSandbox({ port: 0, seed: 3, state: file });
    try {
      await check(second.url);
      await onboard(second.url, "__proto__");
      await check(second.url);
    } finally {
      await second.stop();
    }
    // The snapshot and its journal, read back as a restart reads them.
    const saved = readStateFile(file, "state")!;
    expect(saved.records.accounts.map((account) => account.id).sort()).toEqual([
      "__proto__",
      "constructor",
      "plain",
      "toString",
    ]);
    const third = await startSandbox({ port: 0, seed: 3, state: file });
    try {
      await check(third.url);
    } finally {
      await third.stop();
    }
  });

  it("is refused at start, named and left untouched, when an account in it is not an account", async () => {
    const file = path.join(folder, "broken.json");
    const text = JSON.stringify({ ...emptyStateFile(1, "2030-01-01T00:00:00.000Z"), tables: { accounts: [5] } });
    await writeFile(file, text);
    await expect(startSandbox({ port: 0, state: file })).rejects.toThrow(
      /sandbox state file .*broken\.json is corrupt \(its table "accounts" holds a run that is not an account and records\); it was left untouched/,
    );
    expect(await readFile(file, "utf8")).toBe(text);
    // A run of records whose record is not one.
    const inRun = JSON.stringify({
      ...emptyStateFile(1, "2030-01-01T00:00:00.000Z"),
      tables: { cards: [{ account: "k", owner: "C1", records: [{ card: { id: 7 } }] }] },
    });
    await writeFile(file, inRun);
    await expect(startSandbox({ port: 0, state: file })).rejects.toThrow(
      /broken\.json is corrupt \(a record of "cards" has no id\); it was left untouched/,
    );
    // Files of formats before 4 are not read any more: refused by name, whatever they hold.
    const v3 = JSON.stringify({
      ...emptyStateFile(1, "2030-01-01T00:00:00.000Z"),
      version: 3,
      tables: { accounts: [5] },
    });
    await writeFile(file, v3);
    await expect(startSandbox({ port: 0, state: file })).rejects.toThrow(
      /broken\.json is of format version 3, written by an earlier release .*; it was left untouched/,
    );
    expect(await readFile(file, "utf8")).toBe(v3);
    // The same in the database: an account that is not JSON, or not a record.
    const db = path.join(folder, "broken.db");
    const sandbox = await startSandbox({ port: 0, state: db });
    await clientFor(sandbox.url, "k").get("/v1/companies");
    await sandbox.stop();
    for (const [record, why] of [
      ["{not json", 'a record of "accounts" is not JSON'] as const,
      ["5", 'a record of "accounts" has no id or account'] as const,
    ]) {
      const connection = openDatabase(db);
      connection.prepare("UPDATE accounts SET record = ?").run(record);
      connection.close();
      await expect(startSandbox({ port: 0, state: db })).rejects.toThrow(
        `broken.db is corrupt (${why}); it was left untouched`,
      );
    }
  });
});
