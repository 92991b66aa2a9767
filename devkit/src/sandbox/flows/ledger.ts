/**
 * The card spending account's ledger: the partner's list of movements, and the control call that adds one.
 * Every entry is a transaction `getTransaction` reads too (the same record: transactions.ts of the store keeps
 * the entry with its transaction).
 */
import type { components as partner } from "partner-api-client";
import type { components } from "../../../generated/sandbox.js";
import type { CompanyRecord } from "../records.ts";
import { accountOf, actingCompany, defineFlow, type FlowEnv, pageOf, pathCompany } from "./flow.ts";
import { microsecondIso } from "./routes.ts";

type LedgerEntry = partner["schemas"]["LedgerEntry"];

/** The company's ledger, oldest first (as recorded). */
export function ledgerOf(env: FlowEnv, apiKey: string, companyId: string): LedgerEntry[] {
  const entries: LedgerEntry[] = [];
  for (const record of env.store.list("transactions", apiKey, companyId)) if (record.entry) entries.push(record.entry);
  return entries;
}

/**
 * Adds a movement to the company's ledger, and its transaction to those `getTransaction` reads: the same id,
 * direction as `type`, the signed amount as a number, `SETTLED` for card spending and `PAID` otherwise, with
 * the card's details when it was a checkout payment by card.
 */
export function recordLedgerEntry(
  env: FlowEnv,
  apiKey: string,
  company: CompanyRecord,
  input: components["schemas"]["CreateSpendingAccountEntryRequest"],
): LedgerEntry {
  const signed = input.direction === "Debit" ? -input.amount : input.amount;
  const random = env.random(apiKey);
  const moved = {
    id: random.ulid(),
    direction: input.direction,
    amount: signed.toFixed(2),
    currency: "USD",
    description: input.description ?? (input.type === "Account" ? "Top-up" : "Card payment"),
    counterpartyName: input.type === "Account" ? company.company.name : "Sandbox Merchant",
    createdAt: env.now(),
  };
  const entry = ledgerEntry(env, company, input.type, moved);
  env.store.put("transactions", {
    id: moved.id,
    account: apiKey,
    companyId: company.id,
    entry,
    transaction: {
      id: moved.id,
      type: moved.direction,
      currency: moved.currency,
      amount: Number(moved.amount),
      counterpartyName: moved.counterpartyName,
      counterpartyCode: "",
      counterpartyBankCode: "",
      description: moved.description,
      status: input.type === "Card" ? "SETTLED" : "PAID",
      ...(input.type === "PaymentAcceptance"
        ? { paymentMethod: "card", card: { last4: random.digits(4), type: "visa", country: null } }
        : { paymentMethod: null }),
      createdAt: microsecondIso(Date.parse(moved.createdAt)),
    },
  });
  return entry;
}

/** A ledger entry as the list shows it, in USD, with the `data` its type carries. */
function ledgerEntry(
  env: FlowEnv,
  company: CompanyRecord,
  type: components["schemas"]["CreateSpendingAccountEntryRequest"]["type"],
  transaction: NonNullable<LedgerEntry["transaction"]>,
): LedgerEntry {
  if (type === "Card") {
    const card = env.store.list("cards", company.account, company.id)[0]?.card;
    return {
      type: "Card",
      transaction,
      data: {
        status: "Closed",
        ...(card ? { card: { id: card.id, name: card.name, last4: card.last4 } } : {}),
        merchant: { name: "Sandbox Merchant", code: "5999", city: "San Francisco", country: "US" },
        isFx: false,
      },
    };
  }
  if (type === "PaymentAcceptance")
    return {
      type: "PaymentAcceptance",
      transaction,
      data: { status: "Completed", paymentMethod: "card", paymentDetails: {} },
    };
  return { type: "Account", transaction, data: { status: "Completed" } };
}

export const ledger = defineFlow()({
  name: "ledger",
  partner: {
    listSpendingAccountTransactions(call) {
      const company = actingCompany(call);
      const { type, orderBy = "createdAt", orderDirection = "DESC" } = call.params;
      const recorded = ledgerOf(call.env, company.account, company.id);
      const sequence = new Map(recorded.map((entry, index) => [entry, index]));
      const entries = recorded.filter((entry) => !type || entry.transaction?.direction === type);
      const key = (entry: LedgerEntry) =>
        orderBy === "amount" ? Number(entry.transaction?.amount ?? 0) : Date.parse(entry.transaction?.createdAt ?? "");
      const sign = orderDirection === "ASC" ? 1 : -1;
      // Equal keys: the one recorded later counts as the newer (first in DESC, last in ASC).
      entries.sort((a, b) => sign * (key(a) - key(b) || sequence.get(a)! - sequence.get(b)!));
      const { items, pagination } = pageOf(entries, call.params, 20);
      return { status: 200, body: { transactions: items, pagination } };
    },
  },
  control: {
    createSpendingAccountEntry(call) {
      const company = pathCompany(call);
      const entry = recordLedgerEntry(call.env, accountOf(call).id, company, call.body);
      return { status: 201, body: { entry } };
    },
  },
  tasks: {},
});
