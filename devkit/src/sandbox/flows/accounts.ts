/**
 * What an account holds when first used: a demo company (with what every company is seeded with), the
 * receiver given at start, and three ledger entries. Seeded data carries fixed times (SEEDED_AT, a minute
 * apart), not the clock's reading at first use, so the same seed gives the same seeded data, timestamps
 * included, run after run. The control API lists the accounts that have called, by fingerprint, and reads
 * everything one holds (accounts.ts).
 */
import { accountOverview, accountSummary, apiKeyOf, listAccounts } from "../accounts.ts";
import type { SandboxEngine } from "../engine.ts";
import { defineFlow, SandboxProblem } from "../flow.ts";
import { MAX_ACCOUNTS } from "../limits.ts";
import { randomStateFor } from "../random.ts";
import { type AccountState, dataMap } from "../state.ts";
import { recordLedgerEntry } from "./ledger.ts";
import { addCompany } from "./onboarding.ts";
import { addEndpoint } from "./webhooks.ts";

/** When seeded data was made, as its timestamps say: a fixed instant, so seeded data does not depend on when it was first used. */
const SEEDED_AT = Date.UTC(2026, 0, 1);

/** How many accounts each accounts object holds, kept as accounts are seeded (counted afresh for a state read back or a reset). */
const accountCounts = new WeakMap<object, number>();

/** How many accounts there are; refuses a new one past MAX_ACCOUNTS. */
function roomForAccount(accounts: object): number {
  const count = accountCounts.get(accounts) ?? Object.keys(accounts).length;
  if (count >= MAX_ACCOUNTS)
    throw new SandboxProblem(
      403,
      "account-limit",
      "Account limit reached",
      `this sandbox holds ${MAX_ACCOUNTS} accounts, the most it takes; a new API key is refused until POST /_sandbox/reset (or another sandbox)`,
    );
  return count;
}

export function seedAccount(engine: SandboxEngine, apiKey: string): AccountState {
  const accounts = engine.state.accounts;
  const count = roomForAccount(accounts);
  let seededAt = Math.min(SEEDED_AT, engine.clock.now());
  try {
    engine.seedingAt = new Date(seededAt).toISOString();
    const account: AccountState = {
      random: randomStateFor(engine.settings.seed, apiKey),
      companies: [],
      transactions: dataMap(),
      endpoints: [],
      events: [],
    };
    accounts[apiKey] = account;
    accountCounts.set(accounts, count + 1);
    const { webhooks } = engine.settings;
    if (webhooks) addEndpoint(engine, account, webhooks.url, webhooks.secret);
    const demo = addCompany(engine, apiKey, {
      name: "Sandbox Demo Company",
      countryCode: "US",
      products: ["Card"],
      status: "Active",
    });
    for (const [type, direction, amount, description] of [
      ["Account", "Credit", 5000, "Top-up"],
      ["Card", "Debit", 42.5, "Office supplies"],
      ["Card", "Debit", 18.99, "Software subscription"],
    ] as const) {
      seededAt += 60_000;
      engine.seedingAt = new Date(seededAt).toISOString();
      recordLedgerEntry(engine, account, demo, { type, direction, amount, description });
    }
    return account;
  } finally {
    engine.seedingAt = undefined;
  }
}

export const accounts = defineFlow()({
  name: "accounts",
  partner: {},
  control: {
    listAccounts(call) {
      return { status: 200, body: listAccounts(call.engine.state) };
    },

    getAccount(call) {
      const fingerprint = call.params.account;
      const overview = accountOverview(call.engine, fingerprint);
      if (!overview)
        throw new SandboxProblem(404, "not-found", "Not found", `account ${fingerprint} has not called this sandbox`);
      return { status: 200, body: overview };
    },

    updateAccount(call) {
      const fingerprint = call.params.account;
      const { engine } = call;
      const apiKey = apiKeyOf(engine.state, fingerprint);
      const account = apiKey === undefined ? undefined : engine.state.accounts[apiKey];
      if (!account)
        throw new SandboxProblem(404, "not-found", "Not found", `account ${fingerprint} has not called this sandbox`);
      if (call.body.label === null) delete account.label;
      else account.label = call.body.label;
      engine.changed(account, "label");
      return { status: 200, body: accountSummary(engine.state, fingerprint)! };
    },
  },
  tasks: {},
});
