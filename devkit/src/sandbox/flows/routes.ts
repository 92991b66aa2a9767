/**
 * Money in: payment routes and the deposits that land on them (each a transaction getTransaction reads and a
 * payment_route.transaction.created event), and wallets with the deposit addresses opened on them.
 */
import type { components } from "../../../generated/sandbox.js";
import { type CompanyRecord, dataMap, type WalletRecord } from "../records.ts";
import { deepFreeze } from "../store/tables.ts";
import {
  accountOf,
  actingCompany,
  apiKeyOf,
  defineFlow,
  type FlowEnv,
  notFound,
  pathCompany,
  SandboxProblem,
  unprocessable,
} from "./flow.ts";

type Chain = components["schemas"]["Chain"];
type WalletCurrency = components["schemas"]["WalletCurrency"];

/** Chains a wallet of each currency takes, the first being its default (the source shows no list). */
export const WALLET_CHAINS = deepFreeze({
  USDC: ["ETH", "SOL", "ARB", "OP", "MATIC", "AVAX", "BNB"],
  USDT: ["TRX", "ETH", "BNB", "SOL", "TON", "AVAX", "ARB", "OP", "MATIC"],
} as const satisfies Record<WalletCurrency, readonly Chain[]>);

/**
 * The addresses of a wallet that has none yet: one frozen empty map every new wallet shares (opening an address
 * puts the wallet with a map of its own), so a wallet made costs no map of its own until it has an address.
 */
const NO_ADDRESSES: WalletRecord["addresses"] = deepFreeze(dataMap());

/** An ISO 8601 UTC time with microseconds, as the source gives transaction times. */
export function microsecondIso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** A wallet of the company: a new id, or `id` (the contract example's wallet, seeded). */
export function addWallet(env: FlowEnv, company: CompanyRecord, currency: WalletCurrency, id?: string): WalletRecord {
  // Frozen, so every wallet of the currency holds the one list.
  const chains = WALLET_CHAINS[currency] as readonly Chain[] as Chain[];
  id ??= env.random(company.account).ulid();
  return env.store.put("wallets", {
    id,
    account: company.account,
    companyId: company.id,
    wallet: { id, currency, defaultChain: chains[0]!, chains, createdAt: env.now() },
    addresses: NO_ADDRESSES,
  });
}

/** An address of the chain's form: `0x…` on EVM chains, `T…` on Tron, base58 on Solana, `UQ…` on TON. */
function addressFor(chain: Chain, env: FlowEnv, apiKey: string): string {
  const random = env.random(apiKey);
  if (chain === "TRX") return `T${random.base58(33)}`;
  if (chain === "SOL") return random.base58(44);
  if (chain === "TON") return `UQ${random.token(46)}`;
  return `0x${random.hex(40)}`;
}

/**
 * What keeps a company from moving money, by the API description: routes can be opened once verification is
 * `approved`, and terms not accepted block alongside it. Undefined when it is cleared.
 */
function missingSteps(company: CompanyRecord): string | undefined {
  const { id, swap } = company.company;
  if (!swap)
    return `company ${id} was not onboarded with Swap, so it has no verification (onboard one with products ["Swap"])`;
  const missing: string[] = [];
  if (swap.kycStatus !== "approved")
    missing.push(
      `its verification is ${swap.kycStatus}, not approved (setCompanyKycStatus, or the hosted verification page)`,
    );
  if (!swap.tosAccepted) missing.push("its terms are not accepted (setCompanyTermsAccepted, or the hosted terms page)");
  return missing.length === 0 ? undefined : `company ${id}: ${missing.join("; ")}`;
}

/** Refuses money for a company that is not cleared, naming the missing steps, unless `force`. */
function requireCleared(company: CompanyRecord, what: string, force: boolean | undefined): void {
  if (force) return;
  const missing = missingSteps(company);
  if (missing)
    throw new SandboxProblem(
      422,
      "company-not-cleared",
      "Company not cleared",
      `${what} only for a company whose verification is approved and whose terms are accepted; ${missing}. Pass force: true to do it anyway`,
    );
}

/** One of the company's payment routes. */
function findRoute(env: FlowEnv, company: CompanyRecord, id: string) {
  const route = env.store.get("routes", company.account, id);
  if (!route || route.companyId !== company.id) throw notFound("payment route", id);
  return route.route;
}

export const routes = defineFlow()({
  name: "payment routes, deposits and wallets",
  partner: {
    getTransaction(call) {
      const id = call.params.transactionId;
      const record = call.env.store.get("transactions", accountOf(call).id, id);
      if (record) return { status: 200, body: { transaction: record.transaction } };
      if (call.env.store.accountOf("transactions", id) !== undefined)
        throw new SandboxProblem(403, "forbidden", "Forbidden", `transaction ${id} does not belong to this account`);
      throw new SandboxProblem(404, "not-found", "Not found", `transaction ${id} does not exist`);
    },

    getPaymentRoute(call) {
      return { status: 200, body: { paymentRoute: findRoute(call.env, actingCompany(call), call.params.routeId) } };
    },

    getPaymentInstructions(call) {
      const company = actingCompany(call);
      const route = findRoute(call.env, company, call.params.routeId);
      const token = call.env.random(company.account).token(24);
      return {
        status: 200,
        body: { url: `https://files.sandbox.partner-api.invalid/payment-instructions/${route.id}.pdf?token=${token}` },
      };
    },

    openWalletAddress(call) {
      const { env } = call;
      const company = actingCompany(call);
      const wallet = env.store.get("wallets", company.account, call.params.walletId);
      if (!wallet || wallet.companyId !== company.id) throw notFound("wallet", call.params.walletId);
      const chain = call.body?.chain ?? wallet.wallet.defaultChain;
      if (!wallet.wallet.chains.includes(chain))
        throw unprocessable(
          `chain ${chain} is not available for a ${wallet.wallet.currency} wallet (${wallet.wallet.chains.join(", ")})`,
        );
      const existing = wallet.addresses[chain];
      if (existing) return { status: 200, body: { address: { address: existing, chain } } };
      const address = addressFor(chain, env, company.account);
      env.store.put("wallets", {
        ...wallet,
        addresses: dataMap([...Object.entries(wallet.addresses), [chain, address]]),
      });
      return { status: 201, body: { address: { address, chain } } };
    },
  },
  control: {
    createWallet(call) {
      const record = addWallet(call.env, pathCompany(call), call.body.currency);
      return { status: 201, body: { wallet: record.wallet } };
    },

    listWallets(call) {
      const company = pathCompany(call);
      const wallets = call.env.store.list("wallets", company.account, company.id).map((w) => w.wallet);
      return { status: 200, body: { wallets } };
    },

    createPaymentRoute(call) {
      const { env } = call;
      const company = pathCompany(call);
      const { type, status = "active", feePercent = 0.5, force } = call.body;
      requireCleared(company, "payment routes open", force);
      const random = env.random(company.account);
      const onramp = type === "onramp";
      const currency = call.body.currency ?? (onramp ? "USDC" : "USD");
      if (!onramp && !/^[A-Z]{3}$/.test(currency))
        throw unprocessable(
          `currency ${currency}: an off-ramp pays out fiat, so its currency is an ISO 4217 code such as USD`,
        );
      const chainAddress = `0x${random.hex(40)}`;
      const bankAccount = random.digits(10);
      const route = {
        id: random.ulid(),
        type,
        status,
        currency,
        feePercent,
        depositAddress: onramp ? bankAccount : chainAddress,
        source: onramp
          ? { type: "bank", currency: "USD", paymentRail: "ach" }
          : { type: "crypto", currency: "USDC", paymentRail: "ethereum", address: chainAddress },
        destination: onramp
          ? { type: "crypto", currency, paymentRail: "ethereum", address: `0x${random.hex(40)}` }
          : {
              type: "bank",
              currency,
              paymentRail: "ach",
              bankName: "Sandbox Bank",
              bankAccountNumber: bankAccount,
              bankRoutingNumber: "021000021",
              bankBeneficiaryName: company.company.name,
            },
        createdAt: env.now(),
      };
      env.store.put("routes", { id: route.id, account: company.account, companyId: company.id, route });
      env.fire(apiKeyOf(call), "payment_route.created", { companyId: company.company.id, paymentRoute: route });
      return { status: 201, body: { paymentRoute: route } };
    },

    createDeposit(call) {
      const { env } = call;
      const apiKey = accountOf(call).id;
      const { routeId } = call.params;
      const found = env.store.get("routes", apiKey, routeId);
      const company = found && env.store.get("companies", apiKey, found.companyId);
      if (!found || !company) throw notFound("payment route", routeId);
      const route = found.route;
      if (route.status !== "active") throw unprocessable(`payment route ${routeId} is inactive and accepts no money`);
      const { amount, senderName = "Sandbox Payer", force } = call.body;
      requireCleared(company, "deposits land", force);
      const random = env.random(apiKey);
      const nowMs = env.reading();
      const onramp = route.type === "onramp";
      const fees = (amount * (route.feePercent ?? 0)) / 100;
      // The transaction is in fiat (ISO 4217): on an on-ramp what the payer sent, on an off-ramp the payout
      // (the stablecoin sent less the fee, at one to one); the event's data has the stablecoin side.
      const settled = Math.round((onramp ? amount : amount - fees) * 100) / 100;
      const transaction = {
        id: random.ulid(),
        type: "Credit" as const,
        currency: (onramp ? route.source?.currency : route.destination?.currency) ?? "USD",
        amount: settled,
        counterpartyName: senderName,
        counterpartyCode: "",
        counterpartyBankCode: "",
        description: `Deposit on payment route ${routeId}`,
        status: "PAID" as const,
        paymentMethod: null,
        createdAt: microsecondIso(nowMs),
      };
      env.store.put("transactions", {
        id: transaction.id,
        account: apiKey,
        companyId: company.id,
        routeId,
        transaction,
      });
      const incoming = amount.toFixed(2);
      const converted = (amount - fees).toFixed(2);
      const data = onramp
        ? {
            routeId,
            routeType: "onramp" as const,
            senderName,
            senderBankRoutingNumber: "021000021",
            incomingAmount: incoming,
            convertedAmount: converted,
            destinationTxHash: `0x${random.hex(64)}`,
          }
        : {
            routeId,
            routeType: "offramp" as const,
            incomingAmount: incoming,
            convertedAmount: converted,
            totalFees: fees.toFixed(2),
            sourceTxHash: `0x${random.hex(64)}`,
            destinationTxHash: `0x${random.hex(64)}`,
            source: {
              paymentRail: route.source?.paymentRail,
              currency: route.source?.currency,
              fromAddress: `0x${random.hex(40)}`,
            },
            destination: {
              paymentRail: route.destination?.paymentRail,
              currency: route.destination?.currency,
              bankName: route.destination?.bankName,
            },
          };
      env.fire(apiKey, "payment_route.transaction.created", {
        companyId: company.company.id,
        type: "PaymentRoute",
        transaction: {
          id: transaction.id,
          direction: "Credit",
          amount: settled.toFixed(2),
          currency: transaction.currency,
          description: transaction.description,
          counterpartyName: senderName,
          createdAt: new Date(nowMs).toISOString(),
        },
        data,
      });
      return { status: 201, body: { transaction } };
    },
  },
  tasks: {},
});
