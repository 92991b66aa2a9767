/** The partner API's behaviour in the sandbox, operation by operation, each answer checked against the contract. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { approvedCompany, clientFor, KYB_PROFILE_BODY, ONBOARD_BODY, seededCompany } from "./support.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 7, cardIssuingSeconds: 30, kybReviewSeconds: 120 });
});
afterAll(() => sandbox.stop());

const advance = (seconds: number) => sandbox.control.POST("/_sandbox/clock/advance", { body: { seconds } });

describe("companies", () => {
  it("onboardCompany creates a Pending company that listCompanies lists; Card only has no swap block", async () => {
    const client = clientFor(sandbox.url, "companies-a");
    const created = await client.post("/v1/companies", ONBOARD_BODY);
    expect(created.status).toBe(201);
    expect(created.body.company).toMatchObject({
      name: ONBOARD_BODY.name,
      countryCode: ONBOARD_BODY.countryCode,
      status: "Pending",
      swap: null,
    });
    const listed = await client.get("/v1/companies");
    expect(listed.body.companies.map((c: { id: string }) => c.id)).toContain(created.body.company.id);
  });

  it("with Swap, the company carries the swap block pointing at the sandbox's pages and fires company.kyc_link.issued", async () => {
    const client = clientFor(sandbox.url, "companies-b");
    const created = await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Card", "Swap"] });
    const { id, swap } = created.body.company;
    expect(swap).toEqual({
      kycUrl: `${sandbox.url}/_sandbox/hosted/kyc/${id}`,
      kycStatus: "not_started",
      tosUrl: `${sandbox.url}/_sandbox/hosted/tos/${id}`,
      tosAccepted: false,
    });
    const page = await fetch(swap.kycUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("not_started");
    const events = await client.get("/_sandbox/events");
    expect(events.body.events[0]).toMatchObject({
      type: "company.kyc_link.issued",
      payload: { companyId: id, ...swap },
    });
  });

  it("submitKybProfile answers SUBMITTED; company.kyb_status_changed follows after the review time on the clock", async () => {
    const client = clientFor(sandbox.url, "companies-c");
    const { companyId } = await seededCompany(client);
    const submitted = await client.post(
      "/v1/kyb-profiles",
      { ...KYB_PROFILE_BODY, uboGender: "FEMALE" },
      { companyId },
    );
    expect(submitted).toMatchObject({ status: 201, body: { status: "SUBMITTED" } });
    const kybEvents = async () =>
      (await client.get("/_sandbox/events")).body.events.filter(
        (e: { type: string }) => e.type === "company.kyb_status_changed",
      );
    await advance(119);
    expect(await kybEvents()).toEqual([]);
    await advance(1);
    expect((await kybEvents()).map((e: { payload: unknown }) => e.payload)).toEqual([
      { companyId, status: "APPROVED" },
    ]);
  });
});

describe("cards: bins, issuing and paging", () => {
  it("createCard answers 422 for a bin not among the company's BINs and for an unknown card holder", async () => {
    const client = clientFor(sandbox.url, "cards-a");
    const { companyId, cardHolderId } = await seededCompany(client);
    const card = { cardHolderId, name: "Travel", category: "TravelExpenses", bin: "45671234" };
    expect((await client.post("/v1/cards", { ...card, bin: "11112222" }, { companyId })).status).toBe(422);
    expect(
      (await client.post("/v1/cards", { ...card, cardHolderId: "01JD8X4M6Q2V7R9T3W5Y0Z1A2B" }, { companyId })).status,
    ).toBe(422);
    expect((await client.post("/v1/cards", card, { companyId })).status).toBe(201);
  });

  it("a new card is Creating and becomes Active after the issuing time on the clock", async () => {
    const client = clientFor(sandbox.url, "cards-b");
    const { companyId, cardHolderId } = await seededCompany(client);
    const bins = await client.get("/v1/card-bins", { companyId });
    const created = await client.post(
      "/v1/cards",
      { cardHolderId, name: "Ads", category: "MarketingExpenses", bin: bins.body.cardBins[1].bin },
      { companyId },
    );
    expect(created.body.card.status).toBe("Creating");
    const status = async () =>
      (await client.get("/v1/cards", { companyId })).body.cards.find(
        (card: { id: string }) => card.id === created.body.card.id,
      ).status;
    await advance(29);
    expect(await status()).toBe("Creating");
    await advance(1);
    expect(await status()).toBe("Active");
  });

  it("listCards honours page, limit and keyword", async () => {
    const client = clientFor(sandbox.url, "cards-c");
    const { companyId, cardHolderId } = await seededCompany(client);
    for (const name of ["Travel one", "Travel two", "Office", "Travel three", "Software"])
      await client.post("/v1/cards", { cardHolderId, name, category: "Other", bin: "45671234" }, { companyId });
    // After the contract examples' card ("Travel - Ana Silva"), seeded in every new account.
    const page2 = await client.get("/v1/cards?page=2&limit=2", { companyId });
    expect(page2.body.cards.map((c: { name: string }) => c.name)).toEqual(["Travel two", "Office"]);
    expect(page2.body.pagination).toEqual({ currentPage: 2, totalPages: 3, perPage: 2 });
    const travel = await client.get("/v1/cards?keyword=TRAVEL", { companyId });
    expect(travel.body.cards.map((c: { name: string }) => c.name)).toEqual([
      "Travel - Ana Silva",
      "Travel one",
      "Travel two",
      "Travel three",
    ]);
  });
});

describe("cards: settings, holders and many at once", () => {
  it("spend settings follow the contract's conditional rules; unfreeze works; the details token is fresh each call", async () => {
    const client = clientFor(sandbox.url, "cards-d");
    const { companyId, cardHolderId } = await seededCompany(client);
    const { body } = await client.post(
      "/v1/cards",
      { cardHolderId, name: "C", category: "Other", bin: "45671234" },
      { companyId },
    );
    const cardId = body.card.id;
    const settings = `/v1/cards/${cardId}/spend-settings`;
    expect(
      (
        await client.patch(
          settings,
          { isUnlimitedLimitPerTransaction: false, isAllowedAllCurrencies: true },
          { companyId },
        )
      ).status,
    ).toBe(422);
    expect(
      (
        await client.patch(
          settings,
          { isUnlimitedLimitPerTransaction: true, isAllowedAllCurrencies: false },
          { companyId },
        )
      ).status,
    ).toBe(422);
    const ok = await client.patch(
      settings,
      {
        isUnlimitedLimitPerTransaction: false,
        limitPerTransaction: 50,
        isAllowedAllCurrencies: false,
        allowedCurrencies: ["USD"],
      },
      { companyId },
    );
    expect(ok).toMatchObject({ status: 200, body: {} });
    expect((await client.patch(`/v1/cards/${cardId}/unfreeze`, {}, { companyId })).status).toBe(200);
    const first = await client.post(`/v1/cards/${cardId}/details`, undefined, { companyId });
    const second = await client.post(`/v1/cards/${cardId}/details`, undefined, { companyId });
    expect(first.status).toBe(200);
    expect(first.body.data.accessToken).not.toBe(second.body.data.accessToken);
    expect((await client.post(`/v1/cards/01JD8X4M6Q2V7R9T3W5Y0Z1A2B/details`, undefined, { companyId })).status).toBe(
      404,
    );
  });

  it("getCardHolder reads the company's holder; listCardBins lists its BINs", async () => {
    const client = clientFor(sandbox.url, "cards-e");
    const { companyId, cardHolderId } = await seededCompany(client);
    const holder = await client.get(`/v1/card-holders/${cardHolderId}`, { companyId });
    expect(holder.body.cardHolder).toMatchObject({ id: cardHolderId, status: "ACTIVE" });
    expect((await client.get("/v1/card-holders/01JD8X4M6Q2V7R9T3W5Y0Z1A2B", { companyId })).status).toBe(404);
    expect((await client.get("/v1/card-bins", { companyId })).body.cardBins.length).toBeGreaterThan(0);
  });

  it("100 parallel createCard calls make 100 distinct cards, and listCards shows 100", async () => {
    const client = clientFor(sandbox.url, "cards-f");
    const { companyId, cardHolderId } = await seededCompany(client);
    const created = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        client.post(
          "/v1/cards",
          { cardHolderId, name: `Card ${i}`, category: "Other", bin: "45671234" },
          { companyId },
        ),
      ),
    );
    expect(created.every((answer) => answer.status === 201)).toBe(true);
    expect(new Set(created.map((answer) => answer.body.card.id)).size).toBe(100);
    const listed = await client.get("/v1/cards?limit=200", { companyId });
    // And the contract examples' card.
    expect(listed.body.cards).toHaveLength(101);
  });
});

describe("wallets", () => {
  it("openWalletAddress answers 201 with a new address, then 200 with the same one; an omitted chain takes the default", async () => {
    const client = clientFor(sandbox.url, "wallets-a");
    const { companyId, walletId } = await seededCompany(client);
    const path = `/v1/wallets/${walletId}/addresses`;
    const first = await client.post(path, { chain: "SOL" }, { companyId });
    expect(first.status).toBe(201);
    const again = await client.post(path, { chain: "SOL" }, { companyId });
    expect(again).toMatchObject({ status: 200, body: first.body });
    const byDefault = await client.post(path, {}, { companyId });
    expect(byDefault.status).toBe(201);
    expect(byDefault.body.address.chain).toBe("ETH");
    expect((await client.post(path, { chain: "TRX" }, { companyId })).status).toBe(422);
    expect((await client.post("/v1/wallets/unknown-wallet/addresses", {}, { companyId })).status).toBe(404);
  });
});

describe("spending account", () => {
  it("a page or limit below 1 is read as 1 on both paged lists, and the pagination says so", async () => {
    const client = clientFor(sandbox.url, "paging-below-one");
    const { companyId } = await seededCompany(client);
    for (const list of ["/v1/cards", "/v1/card-spending-account/transactions"]) {
      const first = await client.get(`${list}?page=1&limit=1`, { companyId });
      for (const query of ["page=0&limit=1", "page=-1&limit=1", "page=1&limit=0", "page=1&limit=-5"]) {
        const answer = await client.get(`${list}?${query}`, { companyId });
        expect(answer.status, `${list}?${query}`).toBe(200);
        expect(answer.body, `${list}?${query}`).toEqual(first.body);
        expect(answer.body.pagination).toMatchObject({ currentPage: 1, perPage: 1 });
      }
    }
  });

  it("createCard: limit fields (the description names none) are accepted and ignored", async () => {
    const client = clientFor(sandbox.url, "card-limits");
    const { companyId, cardHolderId } = await seededCompany(client);
    const created = await client.post(
      "/v1/cards",
      { cardHolderId, name: "Limited", category: "Other", bin: "45671234", limitAmount: 500, limitInterval: "Monthly" },
      { companyId },
    );
    expect(created.status).toBe(201);
    const [card] = (await client.get("/v1/cards?keyword=Limited", { companyId })).body.cards;
    expect(Object.keys(card).filter((key) => key.startsWith("limit"))).toEqual([]);
  });

  it("ledger entries of equal key: the one recorded later counts as newer (first in DESC, last in ASC)", async () => {
    const client = clientFor(sandbox.url, "ledger-ties");
    const { companyId } = await seededCompany(client);
    const entries = `/_sandbox/companies/${companyId}/spending-account/entries`;
    const first = await client.post(entries, { type: "Account", direction: "Credit", amount: 42 });
    const second = await client.post(entries, { type: "Account", direction: "Credit", amount: 42 });
    const ids = [first.body.entry.transaction.id, second.body.entry.transaction.id];
    const order = async (direction: string) =>
      (
        await client.get(`/v1/card-spending-account/transactions?orderBy=amount&orderDirection=${direction}`, {
          companyId,
        })
      ).body.transactions
        .map((t: { transaction: { id: string } }) => t.transaction.id)
        .filter((id: string) => ids.includes(id));
    expect(await order("DESC")).toEqual([ids[1], ids[0]]);
    expect(await order("ASC")).toEqual([ids[0], ids[1]]);
  });

  it("listSpendingAccountTransactions filters by type, orders, pages and reports pagination truthfully", async () => {
    const client = clientFor(sandbox.url, "ledger-a");
    const { companyId } = await seededCompany(client);
    const entries = `/_sandbox/companies/${companyId}/spending-account/entries`;
    await client.post(entries, { type: "Account", direction: "Credit", amount: 100 });
    await advance(1);
    await client.post(entries, { type: "Card", direction: "Debit", amount: 7.25 });
    const all = await client.get("/v1/card-spending-account/transactions", { companyId });
    const amounts = all.body.transactions.map((t: { transaction: { amount: string } }) => t.transaction.amount);
    // Newest first: the two just added, then the three the account was seeded with (newest of those first).
    expect(amounts.slice(0, 2)).toEqual(["-7.25", "100.00"]);
    expect(all.body.pagination).toEqual({ currentPage: 1, totalPages: 1, perPage: 20 });
    const debits = await client.get(
      "/v1/card-spending-account/transactions?type=Debit&orderBy=amount&orderDirection=ASC",
      { companyId },
    );
    const debitAmounts = debits.body.transactions.map((t: { transaction: { amount: string } }) =>
      Number(t.transaction.amount),
    );
    expect(debitAmounts).toEqual([...debitAmounts].sort((a, b) => a - b));
    expect(
      debits.body.transactions.every(
        (t: { transaction: { direction: string } }) => t.transaction.direction === "Debit",
      ),
    ).toBe(true);
    const paged = await client.get("/v1/card-spending-account/transactions?page=3&limit=2", { companyId });
    expect(paged.body.transactions).toHaveLength(1);
    expect(paged.body.pagination).toEqual({ currentPage: 3, totalPages: 3, perPage: 2 });
  });
});

describe("payment routes and transactions", () => {
  it("a route opened through the control API is readable, has instructions, and its deposit is a readable transaction", async () => {
    const client = clientFor(sandbox.url, "routes-a");
    const companyId = await approvedCompany(client);
    const route = await client.post(`/_sandbox/companies/${companyId}/payment-routes`, { type: "offramp" });
    expect(route.status).toBe(201);
    const routeId = route.body.paymentRoute.id;
    const read = await client.get(`/v1/payment-routes/${routeId}`, { companyId });
    expect(read.body.paymentRoute).toEqual(route.body.paymentRoute);
    const instructions = await client.get(`/v1/payment-routes/${routeId}/payment-instructions`, { companyId });
    expect(instructions.body.url).toMatch(/^https:\/\//);
    const deposit = await client.post(`/_sandbox/payment-routes/${routeId}/deposits`, { amount: 250 });
    expect(deposit.status).toBe(201);
    const transaction = await client.get(`/transactions/${deposit.body.transaction.id}`);
    expect(transaction.body.transaction).toEqual(deposit.body.transaction);
    expect(transaction.body.transaction.createdAt).toMatch(/\.\d{6}Z$/);
    const events = (await client.get("/_sandbox/events")).body.events;
    expect(events.map((e: { type: string }) => e.type).slice(0, 2)).toEqual([
      "payment_route.transaction.created",
      "payment_route.created",
    ]);
    // An off-ramp pays out fiat: the transaction is the payout (250 USDC less the 0.5 % fee) in USD, and
    // the stablecoin that came in is the event's data.
    expect(deposit.body.transaction).toMatchObject({ currency: "USD", amount: 248.75 });
    expect(events[0].payload).toMatchObject({
      companyId,
      type: "PaymentRoute",
      transaction: { id: deposit.body.transaction.id, currency: "USD", amount: "248.75" },
      data: {
        routeId,
        routeType: "offramp",
        incomingAmount: "250.00",
        convertedAmount: "248.75",
        totalFees: "1.25",
        source: { currency: "USDC" },
        destination: { currency: "USD" },
      },
    });
  });
});
