/**
 * What an account holds when first used: a demo company (with what every company is seeded with), the
 * receiver given at start, and three ledger entries. Seeded data carries fixed times (SEEDED_AT, a minute
 * apart), not the clock's reading at first use, so the same seed gives the same seeded data, timestamps
 * included, run after run. The control API lists the accounts that have called, by fingerprint, and reads
 * everything one holds.
 */
import type { components } from "../../../generated/sandbox.js";
import { keyHint } from "../accounts.ts";
import { MAX_ACCOUNTS } from "../limits.ts";
import { randomStateFor } from "../random.ts";
import type { AccountRecord } from "../records.ts";
import { accountFingerprint } from "../testmode/log.ts";
import { contractExamples, seedContractExamples } from "./examples.ts";
import { defineFlow, type FlowEnv, SandboxProblem, type TestModeAccess } from "./flow.ts";
import { ledgerOf, recordLedgerEntry } from "./ledger.ts";
import { addCompany } from "./onboarding.ts";
import { addEndpoint } from "./webhooks.ts";

type Schemas = components["schemas"];

/** When seeded data was made, as its timestamps say: a fixed instant, so seeded data does not depend on when it was first used. */
const SEEDED_AT = Date.UTC(2026, 0, 1);
/** Ledger entries `getAccount` gives per company (the newest), as the contract bounds them. */
export const OVERVIEW_LEDGER_ENTRIES = 100;
/** Deposits `getAccount` gives per company (the newest), as the contract bounds them. */
export const OVERVIEW_DEPOSITS = 100;

/** Puts a new account and what it holds; refuses one past MAX_ACCOUNTS. */
export function seedAccount(env: FlowEnv, apiKey: string): void {
  if (env.store.size("accounts") >= MAX_ACCOUNTS)
    throw new SandboxProblem(
      403,
      "account-limit",
      "Account limit reached",
      `this sandbox holds ${MAX_ACCOUNTS} accounts, the most it takes; a new API key is refused until POST /_sandbox/reset (or another sandbox)`,
    );
  let seededAt = Math.min(SEEDED_AT, env.clock.now());
  env.dated(seededAt, () => {
    env.store.put("accounts", { id: apiKey, account: apiKey, random: randomStateFor(env.store.seed, apiKey) });
    const { webhooks } = env.settings;
    if (webhooks) addEndpoint(env, apiKey, webhooks.url, webhooks.secret);
    // The demo company is the contract examples' company, holding what they name, so the reference's requests
    // run as displayed against a fresh account.
    const examples = contractExamples(env.settings.partnerContract);
    const demo = addCompany(env, apiKey, {
      name: "Sandbox Demo Company",
      countryCode: "US",
      products: ["Card"],
      status: "Active",
      id: examples.companyId,
      cardBins: examples.cardBins,
    });
    seedContractExamples(env, demo, examples);
    for (const [type, direction, amount, description] of [
      ["Account", "Credit", 5000, "Top-up"],
      ["Card", "Debit", 42.5, "Office supplies"],
      ["Card", "Debit", 18.99, "Software subscription"],
    ] as const) {
      seededAt += 60_000;
      env.dated(seededAt, () => recordLedgerEntry(env, apiKey, demo, { type, direction, amount, description }));
    }
  });
}

function summary(env: FlowEnv, testMode: TestModeAccess, account: AccountRecord): Schemas["SandboxAccount"] {
  const { store } = env;
  const lastCalledAt = testMode.lastCalls.get(account.id);
  let cards = 0;
  for (const company of store.list("companies", account.id)) cards += store.count("cards", account.id, company.id);
  return {
    account: accountFingerprint(account.id),
    label: account.label ?? null,
    keyHint: keyHint(account.id),
    lastCalledAt: lastCalledAt === undefined ? null : new Date(lastCalledAt).toISOString(),
    companies: store.count("companies", account.id),
    cards,
    events: store.count("events", account.id),
    webhookEndpoints: store.count("endpoints", account.id),
  };
}

/**
 * The deposits on a company's routes, newest first, at most OVERVIEW_DEPOSITS: its transactions made on a payment
 * route, as getTransaction reads them.
 */
function depositsOf(env: FlowEnv, apiKey: string, companyId: string): Schemas["RouteDeposit"][] {
  const deposits: Schemas["RouteDeposit"][] = [];
  const transactions = env.store.list("transactions", apiKey, companyId);
  for (let index = transactions.length - 1; index >= 0 && deposits.length < OVERVIEW_DEPOSITS; index--) {
    const record = transactions[index]!;
    if (record.routeId !== undefined) deposits.push({ routeId: record.routeId, transaction: record.transaction });
  }
  return deposits;
}

/** Everything an account holds, by fingerprint; undefined for no such account. */
function accountOverview(env: FlowEnv, fingerprint: string): Schemas["AccountOverview"] | undefined {
  const apiKey = env.apiKeyOf(fingerprint);
  if (apiKey === undefined || !env.hasAccount(apiKey)) return undefined;
  const { store } = env;
  return {
    account: fingerprint,
    companies: store.list("companies", apiKey).map((record) => ({
      company: record.company,
      kybStatus: record.kybStatus ?? null,
      cardHolders: store.list("cardHolders", apiKey, record.id).map((holder) => holder.cardHolder),
      cards: store.list("cards", apiKey, record.id).map((card) => card.card),
      paymentRoutes: store.list("routes", apiKey, record.id).map((route) => route.route),
      wallets: store.list("wallets", apiKey, record.id).map((wallet) => wallet.wallet),
      ledger: ledgerOf(env, apiKey, record.id).slice(-OVERVIEW_LEDGER_ENTRIES).reverse(),
      deposits: depositsOf(env, apiKey, record.id),
    })),
  };
}

export const accounts = defineFlow()({
  name: "accounts",
  partner: {},
  control: {
    listAccounts(call) {
      const { env, testMode } = call;
      let lastCaller: string | null = null;
      // The calls are kept in the order they came: the last one of an account that exists is the last caller.
      for (const apiKey of testMode.lastCalls.keys())
        if (env.hasAccount(apiKey)) lastCaller = accountFingerprint(apiKey);
      const accounts = [...env.store.all("accounts")].map((account) => summary(env, testMode, account));
      return { status: 200, body: { accounts, lastCaller } };
    },

    updateAccount(call) {
      const fingerprint = call.params.account;
      const { env } = call;
      const apiKey = env.apiKeyOf(fingerprint);
      const account = apiKey === undefined ? undefined : env.store.get("accounts", apiKey, apiKey);
      if (!account)
        throw new SandboxProblem(404, "not-found", "Not found", `account ${fingerprint} has not called this sandbox`);
      const { label: _old, ...rest } = account;
      const updated = env.store.put("accounts", call.body.label === null ? rest : { ...rest, label: call.body.label });
      return { status: 200, body: summary(env, call.testMode, updated) };
    },

    getAccount(call) {
      const fingerprint = call.params.account;
      const overview = accountOverview(call.env, fingerprint);
      if (!overview)
        throw new SandboxProblem(404, "not-found", "Not found", `account ${fingerprint} has not called this sandbox`);
      return { status: 200, body: overview };
    },
  },
  tasks: {},
});
