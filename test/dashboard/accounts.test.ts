/**
 * Accounts by fingerprint, as the dashboard uses them: the fingerprint itself (a known answer), listAccounts
 * and getAccount, and X-Sandbox-Account acting as an account on control and partner operations without its
 * key. Every answer is checked against the contracts by the sandbox tests' `request`.
 */
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFingerprint, callerKey } from "../../devkit/src/sandbox/accounts.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { accountFingerprint } from "../../devkit/src/sandbox/testmode/log.ts";
import { startReceiver } from "../../scripts/lib/receiver.ts";
import { clientFor, memoryEngine, ONBOARD_BODY, request, seededCompany } from "../sandbox/support.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 7, frozen: true });
});
afterAll(() => sandbox.stop());

describe("the fingerprint", () => {
  it("is acct_ and the first 12 hex digits of the key's SHA-256 (known answer)", () => {
    // The digests as `printf <key> | sha256sum` prints them.
    expect(accountFingerprint("sandbox")).toBe("acct_b7ad567477c8");
    expect(accountFingerprint("sk_test_123")).toBe("acct_7ba88f380e2b");
    const digest = createHash("sha256").update("any key").digest("hex");
    expect(accountFingerprint("any key")).toBe(`acct_${digest.slice(0, 12)}`);
    expect(accountFingerprint("sandbox")).not.toContain("sandbox");
  });

  it("apiKeyOf finds the key of an account that has called, and nothing for others or malformed names", () => {
    const engine = memoryEngine();
    expect(engine.apiKeyOf(accountFingerprint("alice"))).toBeUndefined();
    engine.account("alice");
    engine.account("bob");
    expect(engine.apiKeyOf(accountFingerprint("alice"))).toBe("alice");
    expect(engine.apiKeyOf(accountFingerprint("bob"))).toBe("bob");
    // An account seeded after the index was built is in it.
    engine.account("carol");
    expect(engine.apiKeyOf(accountFingerprint("carol"))).toBe("carol");
    expect(engine.apiKeyOf("acct_000000000000")).toBeUndefined();
    expect(engine.apiKeyOf("alice")).toBeUndefined();
    // A reset drops the accounts: the old index does not answer for them.
    engine.reset();
    expect(engine.apiKeyOf(accountFingerprint("alice"))).toBeUndefined();
  });

  it("callerKey: X-API-Key wins; X-Sandbox-Account names a known account; an unknown one is a 401", () => {
    const state = memoryEngine();
    state.account("alice");
    const alice = accountFingerprint("alice");
    expect(callerKey({}, state)).toBeUndefined();
    expect(callerKey({ "x-api-key": "" }, state)).toBeUndefined();
    expect(callerKey({ "x-sandbox-account": alice }, state)).toBe("alice");
    expect(callerKey({ "x-api-key": "bob", "x-sandbox-account": alice }, state)).toBe("bob");
    expect(() => callerKey({ "x-sandbox-account": "acct_000000000000" }, state)).toThrow(
      /names no account that has called/,
    );
    expect(() => callerKey({ "x-sandbox-account": "alice" }, state)).toThrow(/must be an account fingerprint/);
    expect(callerFingerprint({ "x-api-key": "alice" })).toBe(alice);
    expect(callerFingerprint({ "x-sandbox-account": alice })).toBe(alice);
    expect(callerFingerprint({ "x-sandbox-account": "not-one" })).toBeNull();
    expect(callerFingerprint({})).toBeNull();
  });
});

describe("listAccounts and getAccount: who called, and labels", () => {
  it("list the accounts that have called, in order, by fingerprint and never by key", async () => {
    const first = clientFor(sandbox.url, "sk_list_first");
    const second = clientFor(sandbox.url, "sk_list_second");
    await first.get("/v1/companies");
    await second.post("/v1/companies", { ...ONBOARD_BODY, products: ["Card", "Swap"] });
    const answer = await request(sandbox.url, "GET", "/_sandbox/accounts");
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain("sk_list");
    const names = answer.body.accounts.map((a: { account: string }) => a.account);
    const firstAt = names.indexOf(accountFingerprint("sk_list_first"));
    const secondAt = names.indexOf(accountFingerprint("sk_list_second"));
    expect(firstAt).toBeGreaterThanOrEqual(0);
    expect(secondAt).toBeGreaterThan(firstAt);
    expect(answer.body.accounts[secondAt]).toEqual({
      account: accountFingerprint("sk_list_second"),
      label: null,
      // The end of the key, never the whole of a key this long.
      keyHint: "…cond",
      lastCalledAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      companies: 2,
      // The contract examples' card, in every new account.
      cards: 1,
      // kyc_link.issued for the Swap company.
      events: 1,
      webhookEndpoints: 0,
    });
    expect(answer.body.lastCaller).toBe(accountFingerprint("sk_list_second"));
  });

  it("lastCaller is the account whose own key called last; acting as one with X-Sandbox-Account does not count", async () => {
    const older = clientFor(sandbox.url, "sk_last_older");
    const newer = clientFor(sandbox.url, "sk_last_newer");
    await older.get("/v1/companies");
    await newer.get("/v1/companies");
    const list = async () => (await request(sandbox.url, "GET", "/_sandbox/accounts")).body;
    expect((await list()).lastCaller).toBe(accountFingerprint("sk_last_newer"));
    await request(sandbox.url, "GET", "/v1/companies", {
      headers: { "X-Sandbox-Account": accountFingerprint("sk_last_older") },
    });
    expect((await list()).lastCaller).toBe(accountFingerprint("sk_last_newer"));
    await older.get("/v1/companies");
    const after = await list();
    expect(after.lastCaller).toBe(accountFingerprint("sk_last_older"));
    const olderSummary = after.accounts.find(
      (a: { account: string }) => a.account === accountFingerprint("sk_last_older"),
    );
    expect(olderSummary.lastCalledAt).not.toBeNull();
  });

  it("a key shorter than eight characters (no credential) is its own hint; longer ones show their last four", async () => {
    await clientFor(sandbox.url, "ci").get("/v1/companies");
    await clientFor(sandbox.url, "sk_live_like_9f3a").get("/v1/companies");
    const { accounts } = (await request(sandbox.url, "GET", "/_sandbox/accounts")).body;
    const hint = (key: string) =>
      accounts.find((a: { account: string }) => a.account === accountFingerprint(key)).keyHint;
    expect(hint("ci")).toBe("ci");
    expect(hint("sk_live_like_9f3a")).toBe("…9f3a");
  });

  it("updateAccount sets the label an account is named by, and drops it with null; a bad label is a 422", async () => {
    const key = "sk_labelled_account";
    await clientFor(sandbox.url, key).get("/v1/companies");
    const path = `/_sandbox/accounts/${accountFingerprint(key)}`;
    const set = await request(sandbox.url, "PATCH", path, { body: { label: "Checkout team" } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ account: accountFingerprint(key), label: "Checkout team", keyHint: "…ount" });
    const listed = (await request(sandbox.url, "GET", "/_sandbox/accounts")).body.accounts;
    expect(listed.find((a: { account: string }) => a.account === accountFingerprint(key)).label).toBe("Checkout team");
    for (const label of ["", "x".repeat(61), "tab\there"])
      expect((await request(sandbox.url, "PATCH", path, { body: { label } })).status).toBe(422);
    expect((await request(sandbox.url, "PATCH", path, { body: { label: null } })).body.label).toBeNull();
    const unknown = await request(sandbox.url, "PATCH", "/_sandbox/accounts/acct_000000000000", {
      body: { label: "x" },
    });
    expect(unknown.status).toBe(404);
  });
});

describe("listAccounts and getAccount: what getAccount gives", () => {
  it("getAccount lists a company's deposits, newest first, with their routes (the ledger does not hold them)", async () => {
    const key = "sk_deposits";
    const client = clientFor(sandbox.url, key);
    const swap = await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
    const companyId = swap.body.company.id;
    const route = await client.post(`/_sandbox/companies/${companyId}/payment-routes`, { type: "onramp", force: true });
    const routeId = route.body.paymentRoute.id;
    const ids: string[] = [];
    for (const amount of [10, 20, 30])
      ids.push(
        (await client.post(`/_sandbox/payment-routes/${routeId}/deposits`, { amount, force: true })).body.transaction
          .id,
      );
    const answer = await request(sandbox.url, "GET", `/_sandbox/accounts/${accountFingerprint(key)}`);
    const company = answer.body.companies.find((c: { company: { id: string } }) => c.company.id === companyId);
    expect(
      company.deposits.map((d: { routeId: string; transaction: { id: string; amount: number } }) => [
        d.routeId,
        d.transaction.id,
        d.transaction.amount,
      ]),
    ).toEqual([
      [routeId, ids[2], 30],
      [routeId, ids[1], 20],
      [routeId, ids[0], 10],
    ]);
    expect(company.ledger).toEqual([]);
    // The demo company has none.
    expect(answer.body.companies[0].deposits).toEqual([]);
  });

  it("getAccount gives each company's steps, cards, routes, wallets and newest ledger entries", async () => {
    const key = "sk_overview";
    const client = clientFor(sandbox.url, key);
    const { companyId, cardHolderId } = await seededCompany(client);
    await client.post(
      "/v1/cards",
      { cardHolderId, name: "Ops card", category: "Other", bin: "45671234" },
      { companyId },
    );
    const swap = await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
    const swapId = swap.body.company.id;
    await client.post(`/_sandbox/companies/${swapId}/kyc-status`, { kycStatus: "approved" });
    const answer = await request(sandbox.url, "GET", `/_sandbox/accounts/${accountFingerprint(key)}`);
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain(key);
    const [demo, onboarded] = answer.body.companies;
    expect(demo.company.id).toBe(companyId);
    // Besides the contract examples' card holder, card and wallet, seeded in every new account.
    expect(demo.cards).toHaveLength(2);
    expect(demo.cards.find((card: { name: string }) => card.name === "Ops card")).toMatchObject({ status: "Creating" });
    expect(demo.cardHolders[0].id).toBe(cardHolderId);
    expect(demo.wallets).toHaveLength(2);
    // Seeded: a top-up, then two card payments; newest first.
    expect(demo.ledger.map((e: { transaction: { description: string } }) => e.transaction.description)).toEqual([
      "Software subscription",
      "Office supplies",
      "Top-up",
    ]);
    expect(onboarded.company.swap.kycStatus).toBe("approved");
    expect(onboarded.paymentRoutes).toEqual([]);
  });

  it("a card turns Active in getAccount once the clock passes its issuing time", async () => {
    const key = "sk_card_live";
    const client = clientFor(sandbox.url, key);
    const { companyId, cardHolderId } = await seededCompany(client);
    await client.post("/v1/cards", { cardHolderId, name: "Live", category: "Other", bin: "45671234" }, { companyId });
    const read = async () =>
      (await request(sandbox.url, "GET", `/_sandbox/accounts/${accountFingerprint(key)}`)).body.companies[0].cards.find(
        (card: { name: string }) => card.name === "Live",
      ).status;
    expect(await read()).toBe("Creating");
    await request(sandbox.url, "POST", "/_sandbox/clock/advance", { body: { seconds: 60 } });
    expect(await read()).toBe("Active");
  });

  it("a label outlives a restart with a state file (it is kept with the account)", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "account-label-"));
    const state = path.join(folder, "state.json");
    const key = "sk_label_kept_7f2e";
    const account = `/_sandbox/accounts/${accountFingerprint(key)}`;
    try {
      const first = await startSandbox({ port: 0, state, frozen: true });
      await clientFor(first.url, key).get("/v1/companies");
      expect((await request(first.url, "PATCH", account, { body: { label: "Kept team" } })).status).toBe(200);
      await first.stop();
      const second = await startSandbox({ port: 0, state, frozen: true });
      try {
        const listed = (await request(second.url, "GET", "/_sandbox/accounts")).body;
        expect(listed.accounts.find((a: { account: string }) => a.account === accountFingerprint(key))).toMatchObject({
          label: "Kept team",
          keyHint: "…7f2e",
          // No call since this start.
          lastCalledAt: null,
        });
        expect(listed.lastCaller).toBeNull();
      } finally {
        await second.stop();
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("getAccount of a fingerprint no account has answers 404; a malformed one 422", async () => {
    const unknown = await request(sandbox.url, "GET", "/_sandbox/accounts/acct_000000000000");
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toMatch(/acct_000000000000 has not called/);
    expect((await request(sandbox.url, "GET", "/_sandbox/accounts/sk_overview")).status).toBe(422);
  });
});

describe("X-Sandbox-Account", () => {
  it("acts as the account on partner and control operations, without its key", async () => {
    const key = "sk_acting";
    const client = clientFor(sandbox.url, key);
    await client.get("/v1/companies");
    const headers = { "X-Sandbox-Account": accountFingerprint(key) };
    const onboarded = await request(sandbox.url, "POST", "/v1/companies", {
      headers,
      body: { ...ONBOARD_BODY, name: "Acted For Ltd", products: ["Swap"] },
    });
    expect(onboarded.status).toBe(201);
    const companies = await client.get("/v1/companies");
    expect(companies.body.companies.map((c: { name: string }) => c.name)).toContain("Acted For Ltd");
    const approved = await request(sandbox.url, "POST", `/_sandbox/companies/${onboarded.body.company.id}/kyc-status`, {
      headers,
      body: { kycStatus: "approved" },
    });
    expect(approved.status).toBe(200);
    const events = await request(sandbox.url, "GET", "/_sandbox/events", { headers });
    expect(events.body.events.map((e: { type: string }) => e.type)).toEqual([
      "company.kyc_status_changed",
      "company.kyc_link.issued",
    ]);
  });

  it("logs and faults the call under the account it names", async () => {
    const key = "sk_acting_logged";
    const client = clientFor(sandbox.url, key);
    await client.get("/v1/companies");
    const fingerprint = accountFingerprint(key);
    await client.post("/_sandbox/faults", { operationId: "listCompanies", status: 503, times: 1 });
    const struck = await request(sandbox.url, "GET", "/v1/companies", {
      headers: { "X-Sandbox-Account": fingerprint },
    });
    expect(struck.status).toBe(503);
    const log = await request(sandbox.url, "GET", "/_sandbox/requests?operationId=listCompanies&limit=1", {
      headers: { "X-Sandbox-Account": fingerprint },
    });
    expect(log.body.requests[0]).toMatchObject({ account: fingerprint, status: 503 });
  });

  it("a fingerprint of no account is a 401 problem naming the header, and X-API-Key wins over it", async () => {
    const unknown = await request(sandbox.url, "GET", "/v1/companies", {
      headers: { "X-Sandbox-Account": "acct_000000000000" },
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.detail).toMatch(/X-Sandbox-Account acct_000000000000 names no account/);
    const both = await request(sandbox.url, "GET", "/v1/companies", {
      apiKey: "sk_wins",
      headers: { "X-Sandbox-Account": "acct_000000000000" },
    });
    expect(both.status).toBe(200);
  });
});

describe("delivery attempts as the events view shows them", () => {
  it("each attempt has its duration; a failed one's retry is listed in nextAttempts with its due time until it runs", async () => {
    const receiver = await startReceiver([500, 200]);
    try {
      const key = "sk_deliveries";
      const client = clientFor(sandbox.url, key);
      await client.post("/_sandbox/webhook-endpoints", { url: receiver.url, secret: "whsec_test" });
      const onboarded = await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
      await client.post("/_sandbox/clock/advance", { seconds: 0 });
      const clock = (await client.get("/_sandbox/clock")).body.now as string;
      let [event] = (await client.get("/_sandbox/events")).body.events;
      expect(event.type).toBe("company.kyc_link.issued");
      expect(event.payload.companyId).toBe(onboarded.body.company.id);
      expect(event.deliveries).toHaveLength(1);
      expect(event.deliveries[0]).toMatchObject({ attempt: 1, statusCode: 500 });
      expect(event.deliveries[0].durationMs).toBeGreaterThanOrEqual(0);
      // The first retry waits 10 s of clock time.
      expect(event.nextAttempts).toEqual([
        {
          endpointId: event.deliveries[0].endpointId,
          attempt: 2,
          dueAt: new Date(Date.parse(event.deliveries[0].at) + 10_000).toISOString(),
        },
      ]);
      expect(Date.parse(event.nextAttempts[0].dueAt)).toBeGreaterThan(Date.parse(clock));
      await client.post("/_sandbox/clock/advance", { seconds: 10 });
      [event] = (await client.get("/_sandbox/events")).body.events;
      expect(event.deliveries.map((d: { statusCode: number }) => d.statusCode)).toEqual([500, 200]);
      expect(event.nextAttempts).toEqual([]);
      const resent = await client.post(`/_sandbox/events/${event.id}/resend`);
      expect(resent.status).toBe(202);
      expect(resent.body.nextAttempts).toMatchObject([{ attempt: 1, endpointId: event.deliveries[0].endpointId }]);
    } finally {
      await receiver.close();
    }
  });
});
