/**
 * What the sandbox takes in one request, where the API description sets no bound (limits.ts, the picks table
 * of docs/partners.md): a body it could not keep is refused before it changes anything, with a 4xx problem
 * naming the limit, and the sandbox (and its state file) go on as before.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../devkit/src/common/json-depth.ts";
import { SandboxProblem } from "../../devkit/src/sandbox/flows/flow.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import {
  MAX_ACCOUNTS,
  MAX_API_KEY_LENGTH,
  MAX_BODY_BYTES,
  MAX_STRING_LENGTH,
  MAX_WEBHOOK_ENDPOINTS,
} from "../../devkit/src/sandbox/limits.ts";
import { readStateFile } from "../../devkit/src/sandbox/store/sqlite-store.ts";
import { MemoryStore } from "../../devkit/src/sandbox/store/tables.ts";
import { clientFor, memoryEngine, request, seededCard, seededCompany } from "./support.ts";

let sandbox: Sandbox;
let folder: string;
let file: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "sandbox-limits-"));
  file = path.join(folder, "state.json");
  sandbox = await startSandbox({ port: 0, seed: 5, state: file, frozen: true, startTime: "2030-01-01T00:00:00Z" });
});
afterAll(async () => {
  await sandbox.stop();
  await rm(folder, { recursive: true, force: true });
});

const SETTINGS = { isUnlimitedLimitPerTransaction: true, isAllowedAllCurrencies: true };

/** `{"x":{"x":…}}`: `depth` objects in all. */
function nested(depth: number): string {
  return `${'{"x":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;
}

async function aCard(apiKey: string) {
  const client = clientFor(sandbox.url, apiKey);
  return { client, ...(await seededCard(client)) };
}

const savedCard = async (cardId: string) => {
  // The snapshot and its journal, read back as a restart reads them.
  const state = readStateFile(file, "state")!;
  return state.records.cards.find((card) => card.id === cardId);
};

describe("JSON nesting", () => {
  it("is counted on the text, outside strings", () => {
    expect(nestsDeeperThan(nested(64), 64)).toBe(false);
    expect(nestsDeeperThan(nested(65), 64)).toBe(true);
    expect(nestsDeeperThan(`{"a":"${"[".repeat(100)}","b":[[]]}`, 3)).toBe(false);
    expect(nestsDeeperThan(`{"a":"\\"${"[".repeat(100)}"}`, 3)).toBe(false);
  });

  it("spend settings nested 4,500 levels deep: 422 naming the limit, and the next write still works", async () => {
    const { companyId, cardId } = await aCard("deep");
    const deep = JSON.stringify(SETTINGS).replace(/\}$/, `,"extra":${nested(4500)}}`);
    const refused = await request(sandbox.url, "PATCH", `/v1/cards/${cardId}/spend-settings`, {
      apiKey: "deep",
      companyId,
      rawBody: deep,
    });
    expect(refused.status).toBe(422);
    expect(refused.contentType).toBe("application/problem+json");
    expect(refused.body.detail).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    expect((await savedCard(cardId))?.spendSettings).toBeUndefined();
    // The limit itself is taken.
    const atLimit = JSON.stringify(SETTINGS).replace(/\}$/, `,"extra":${nested(MAX_JSON_DEPTH - 1)}}`);
    const taken = await request(sandbox.url, "PATCH", `/v1/cards/${cardId}/spend-settings`, {
      apiKey: "deep",
      companyId,
      rawBody: atLimit,
    });
    expect(taken.status).toBe(200);
    const next = await request(sandbox.url, "PATCH", `/v1/cards/${cardId}/spend-settings`, {
      apiKey: "deep",
      companyId,
      body: { isUnlimitedLimitPerTransaction: false, limitPerTransaction: 50, isAllowedAllCurrencies: true },
    });
    expect(next.status).toBe(200);
    expect((await savedCard(cardId))?.spendSettings).toMatchObject({ limitPerTransaction: 50 });
  });

  it("a deep body to the control API: 422 too", async () => {
    const answer = await request(sandbox.url, "POST", "/_sandbox/clock/advance", { rawBody: nested(5000) });
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
  });
});

describe("body size", () => {
  it("a card name of 10 MB: 413 naming the limit, and nothing stored", async () => {
    const { client, companyId, cardHolderId } = await aCard("huge");
    const before = (await client.get("/v1/cards", { companyId })).body.cards;
    const name = "n".repeat(10 * 1024 * 1024);
    const answer = await client.post(
      "/v1/cards",
      { cardHolderId, name, category: "Other", bin: "45671234" },
      { companyId },
    );
    expect(answer.status).toBe(413);
    expect(answer.body.detail).toContain(`${MAX_BODY_BYTES} bytes`);
    expect((await client.get("/v1/cards", { companyId })).body.cards).toEqual(before);
    expect((await readFile(file)).length).toBeLessThan(1024 * 1024);
  });

  it("a Content-Length over the limit is refused without reading the body", async () => {
    const answer = await request(sandbox.url, "POST", "/v1/companies", {
      apiKey: "huge",
      rawBody: "x".repeat(MAX_BODY_BYTES + 1),
    });
    expect(answer.status).toBe(413);
  });
});

describe("string length", () => {
  it("a card name over 4,096 characters: 422 naming the field and the limit, and nothing stored", async () => {
    const { client, companyId, cardHolderId } = await aCard("long");
    const before = (await client.get("/v1/cards", { companyId })).body.cards;
    const name = "n".repeat(MAX_STRING_LENGTH + 1);
    const answer = await client.post(
      "/v1/cards",
      { cardHolderId, name, category: "Other", bin: "45671234" },
      { companyId },
    );
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toBe(
      `body/name is ${MAX_STRING_LENGTH + 1} characters long; the sandbox takes at most ${MAX_STRING_LENGTH} characters in a string`,
    );
    expect(answer.body.validation).toEqual([{ location: ["body", "name"], message: answer.body.detail }]);
    expect((await client.get("/v1/cards", { companyId })).body.cards).toEqual(before);
  });

  it("a card name of exactly 4,096 characters is taken", async () => {
    const { client, companyId, cardHolderId } = await aCard("long-ok");
    const name = "n".repeat(MAX_STRING_LENGTH);
    const answer = await client.post(
      "/v1/cards",
      { cardHolderId, name, category: "Other", bin: "45671234" },
      { companyId },
    );
    expect(answer.status).toBe(201);
  });

  it("a long property name, and a long value in a form body: 422", async () => {
    const key = await request(sandbox.url, "POST", "/v1/companies", {
      apiKey: "long",
      rawBody: `{"${"k".repeat(MAX_STRING_LENGTH + 1)}": 1}`,
    });
    expect(key.status).toBe(422);
    expect(key.body.detail).toContain("property name");
    const { companyId } = await seededCompany(clientFor(sandbox.url, "long"));
    const form = await request(sandbox.url, "POST", `/_sandbox/hosted/tos/${companyId}`, {
      rawBody: `accept=${"y".repeat(MAX_STRING_LENGTH + 1)}`,
      contentType: "application/x-www-form-urlencoded",
    });
    expect(form.status).toBe(422);
    expect(form.text).toContain(`body/accept is ${MAX_STRING_LENGTH + 1} characters long`);
  });
});

describe("accounts", () => {
  it(`an API key of up to ${MAX_API_KEY_LENGTH} characters is an account; a longer one is a 401 naming the limit`, async () => {
    const longest = "k".repeat(MAX_API_KEY_LENGTH);
    expect((await request(sandbox.url, "GET", "/v1/companies", { apiKey: longest })).status).toBe(200);
    const refused = await request(sandbox.url, "GET", "/v1/companies", { apiKey: `${longest}k` });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toContain(`at most ${MAX_API_KEY_LENGTH} characters`);
    const accounts = (await request(sandbox.url, "GET", "/_sandbox/accounts")).body.accounts.length;
    expect((await request(sandbox.url, "POST", "/_sandbox/webhook-endpoints", { apiKey: `${longest}kk` })).status).toBe(
      401,
    );
    expect((await request(sandbox.url, "GET", "/_sandbox/accounts")).body.accounts.length).toBe(accounts);
  });

  it(`holds at most ${MAX_ACCOUNTS.toLocaleString("en")} accounts: one more is a 403 naming the limit, and nothing is added`, () => {
    const store = new MemoryStore(1);
    for (let index = 0; index < MAX_ACCOUNTS - 1; index++)
      store.put("accounts", { id: `key-${index}`, account: `key-${index}`, random: [1, 2, 3, 4] });
    const engine = memoryEngine({ store });
    // One below the limit the next account is taken.
    expect(engine.account("one-more").id).toBe("one-more");
    let refusal: unknown;
    try {
      engine.account("and-another");
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(SandboxProblem);
    expect(refusal).toMatchObject({ status: 403, kind: "account-limit" });
    expect((refusal as Error).message).toContain(`${MAX_ACCOUNTS} accounts`);
    expect(engine.hasAccount("and-another")).toBe(false);
    expect(store.size("accounts")).toBe(MAX_ACCOUNTS);
  });
});

describe("webhook endpoints", () => {
  it(`an account keeps at most ${MAX_WEBHOOK_ENDPOINTS}: one more is a 422 naming the limit, and one deleted makes room`, async () => {
    const apiKey = "many-endpoints";
    const ids: string[] = [];
    for (let index = 0; index < MAX_WEBHOOK_ENDPOINTS; index++) {
      const made = await request(sandbox.url, "POST", "/_sandbox/webhook-endpoints", {
        apiKey,
        body: { url: `http://127.0.0.1:9/hook-${index}`, secret: "s" },
      });
      expect(made.status).toBe(201);
      ids.push(made.body.id);
    }
    const refused = await request(sandbox.url, "POST", "/_sandbox/webhook-endpoints", {
      apiKey,
      body: { url: "http://127.0.0.1:9/one-more", secret: "s" },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toContain(`(${MAX_WEBHOOK_ENDPOINTS})`);
    const listed = await request(sandbox.url, "GET", "/_sandbox/webhook-endpoints", { apiKey });
    expect(listed.body.webhookEndpoints).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
    expect((await request(sandbox.url, "DELETE", `/_sandbox/webhook-endpoints/${ids[0]}`, { apiKey })).status).toBe(
      204,
    );
    const again = await request(sandbox.url, "POST", "/_sandbox/webhook-endpoints", {
      apiKey,
      body: { url: "http://127.0.0.1:9/one-more", secret: "s" },
    });
    expect(again.status).toBe(201);
  });
});
