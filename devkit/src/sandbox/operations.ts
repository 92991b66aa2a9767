/**
 * What each operation does, keyed by the contract's operationId. Requests reach a handler already routed and
 * validated against the contract (server.ts), so a handler checks only what the contract cannot say: that
 * an id names something of the calling account, that a BIN is the company's, and the like.
 */
import type { ServerResponse } from "node:http";
import { accountOverview, listAccounts } from "./accounts.ts";
import type { Issue } from "./contract.ts";
import { nextAttemptsByEvent, shownEvent } from "./deliveries.ts";
import { microsecondIso, type SandboxEngine, type WALLET_CHAINS } from "./engine.ts";
import { renderKycPage, renderTosPage } from "./hosted.ts";
import type { AccountState, CompanyRecord } from "./state.ts";

export interface Call {
  engine: SandboxEngine;
  /** The X-API-Key value, when the request carried one. */
  apiKey?: string;
  /** Path, query and header parameters, coerced to their schema's types. */
  // biome-ignore lint/suspicious/noExplicitAny: validated against the operation's parameters before the handler runs
  params: Record<string, any>;
  // biome-ignore lint/suspicious/noExplicitAny: validated against the operation's request body schema before the handler runs
  body: any;
}

export interface Reply {
  status: number;
  body?: unknown;
  /** An HTML page instead of JSON. */
  html?: string;
  /** Headers beyond the content type. */
  headers?: Record<string, string> | undefined;
  /** A stream of server-sent events instead of a body: takes the response over once its headers are sent. */
  stream?: (response: ServerResponse) => void;
}

/** An answer other than success, with a message naming the bad input. */
export class SandboxProblem extends Error {
  override readonly name = "SandboxProblem";
  constructor(
    readonly status: number,
    readonly kind: string,
    readonly title: string,
    detail: string,
    /** One entry per broken rule, when the request failed the contract's validation. */
    readonly validation?: Issue[],
  ) {
    super(detail);
  }
}

const notFound = (what: string, id: string) =>
  new SandboxProblem(404, "not-found", "Not found", `${what} ${id} does not exist in this account`);
const unprocessable = (detail: string) => new SandboxProblem(422, "unprocessable", "Unprocessable Entity", detail);

function accountOf(call: Call): AccountState {
  if (call.apiKey === undefined)
    throw new SandboxProblem(401, "missing-api-key", "Missing API key", "the X-API-Key header is required");
  return call.engine.account(call.apiKey);
}

/** The company a partner operation acts for (X-Company-Id): it must be one of the calling account's. */
function actingCompany(call: Call): CompanyRecord {
  const id = call.params["X-Company-Id"] as string;
  const company = call.engine.company(accountOf(call), id);
  if (!company)
    throw new SandboxProblem(
      403,
      "company-not-in-account",
      "Forbidden",
      `X-Company-Id ${id} is not a company of this account`,
    );
  return company;
}

/** A company named in a control path: 404 unless it is one of the calling account's. */
function pathCompany(call: Call): CompanyRecord {
  const id = call.params.companyId as string;
  const company = call.engine.company(accountOf(call), id);
  if (!company) throw notFound("company", id);
  return company;
}

function findCard(call: Call, company: CompanyRecord, id: string) {
  const card = call.engine.card(company, id);
  if (!card) throw notFound("card", id);
  return card;
}

function findRoute(company: CompanyRecord, id: string) {
  const route = company.paymentRoutes.find((r) => r.id === id);
  if (!route) throw notFound("payment route", id);
  return route;
}

function pageOf<T>(items: T[], params: Call["params"], defaultLimit: number) {
  const page = Math.max(1, (params.page as number | undefined) ?? 1);
  const limit = Math.max(1, (params.limit as number | undefined) ?? defaultLimit);
  return {
    items: items.slice((page - 1) * limit, page * limit),
    pagination: { currentPage: page, totalPages: Math.ceil(items.length / limit), perPage: limit },
  };
}

function addressFor(chain: string, engine: SandboxEngine, account: AccountState): string {
  const random = engine.random(account);
  if (chain === "TRX") return `T${random.base58(33)}`;
  if (chain === "SOL") return random.base58(44);
  if (chain === "TON") return `UQ${random.token(46)}`;
  return `0x${random.hex(40)}`;
}

function setKycStatus(call: Call, company: CompanyRecord, kycStatus: string): void {
  const swap = company.company.swap;
  if (!swap)
    throw unprocessable(`company ${company.company.id} was not onboarded with Swap, so it has no verification status`);
  if (swap.kycStatus === kycStatus) return;
  swap.kycStatus = kycStatus as typeof swap.kycStatus;
  call.engine.fire(call.apiKey!, "company.kyc_status_changed", { companyId: company.company.id, kycStatus });
}

/** The company behind a hosted page: any account's, since the page carries no API key. */
function hostedCompany(call: Call): { apiKey: string; company: CompanyRecord } {
  const id = call.params.companyId as string;
  for (const [apiKey, account] of Object.entries(call.engine.state.accounts)) {
    const company = account.companies.find((c) => c.company.id === id && c.company.swap);
    if (company) return { apiKey, company };
  }
  throw new SandboxProblem(
    404,
    "not-found",
    "Not found",
    `company ${id} has no hosted verification (unknown, or not onboarded with Swap)`,
  );
}

const KYC_ACTIONS = {
  start: "incomplete",
  submit: "under_review",
  complete: "approved",
  reject: "rejected",
  pause: "paused",
} as const;

export const handlers: Record<string, (call: Call) => Reply> = {
  // ---- The partner API ----
  getTransaction(call) {
    const id = call.params.transactionId as string;
    const transaction = accountOf(call).transactions[id];
    if (transaction) return { status: 200, body: { transaction } };
    const elsewhere = Object.values(call.engine.state.accounts).some((account) =>
      Object.hasOwn(account.transactions, id),
    );
    if (elsewhere)
      throw new SandboxProblem(403, "forbidden", "Forbidden", `transaction ${id} does not belong to this account`);
    throw new SandboxProblem(404, "not-found", "Not found", `transaction ${id} does not exist`);
  },

  createCard(call) {
    const account = accountOf(call);
    const company = actingCompany(call);
    const { cardHolderId, name, category, bin, description } = call.body;
    const bins = company.cardBins.map((b) => b.bin);
    if (!bins.includes(bin))
      throw unprocessable(`bin ${bin} is not one of the company's card BINs (${bins.join(", ")})`);
    const holder = company.cardHolders.find((h) => h.id === cardHolderId);
    if (!holder)
      throw unprocessable(`cardHolderId ${cardHolderId} is not a card holder of company ${company.company.id}`);
    const random = call.engine.random(account);
    const card = {
      id: random.ulid(),
      brand: company.cardBins.find((b) => b.bin === bin)!.network!,
      last4: random.digits(4),
      name,
      type: "company" as const,
      status: "Creating",
      cardholder: { name: holder.name, email: holder.email },
      createdAt: call.engine.now(),
    };
    company.cards.push({ card, cardHolderId, bin, category, ...(description ? { description } : {}), frozen: false });
    call.engine.schedule({
      kind: "activateCard",
      apiKey: call.apiKey!,
      dueAt: call.engine.clock.now() + call.engine.settings.cardIssuingSeconds * 1000,
      companyId: company.company.id,
      cardId: card.id,
    });
    return { status: 201, body: { card: { id: card.id, status: card.status } } };
  },

  listCards(call) {
    const company = actingCompany(call);
    const keyword = (call.params.keyword as string | undefined)?.toLowerCase();
    const cards = company.cards
      .map((c) => c.card)
      .filter(
        (card) =>
          !keyword ||
          [card.name, card.last4, card.cardholder?.name, card.cardholder?.email].some((text) =>
            text?.toLowerCase().includes(keyword),
          ),
      );
    const { items, pagination } = pageOf(cards, call.params, 20);
    return { status: 200, body: { cards: items, pagination } };
  },

  updateCardSpendSettings(call) {
    const card = findCard(call, actingCompany(call), call.params.cardId);
    card.spendSettings = call.body;
    return { status: 200, body: {} };
  },

  unfreezeCard(call) {
    const card = findCard(call, actingCompany(call), call.params.cardId);
    // Nothing freezes a card in the sandbox (the API has no freeze operation), so this only records it.
    card.frozen = false;
    return { status: 200, body: {} };
  },

  createCardDetailsToken(call) {
    findCard(call, actingCompany(call), call.params.cardId);
    return {
      status: 200,
      body: { type: "card_details", data: { accessToken: `sbx_${call.engine.random(accountOf(call)).token(40)}` } },
    };
  },

  getCardHolder(call) {
    const company = actingCompany(call);
    const holder = company.cardHolders.find((h) => h.id === call.params.cardHolderId);
    if (!holder) throw notFound("card holder", call.params.cardHolderId);
    return { status: 200, body: { cardHolder: holder } };
  },

  listCardBins(call) {
    return { status: 200, body: { cardBins: actingCompany(call).cardBins } };
  },

  listSpendingAccountTransactions(call) {
    const company = actingCompany(call);
    const { type, orderBy = "createdAt", orderDirection = "DESC" } = call.params;
    const sequence = new Map(company.ledger.map((entry, index) => [entry, index]));
    const entries = company.ledger.filter((entry) => !type || entry.transaction?.direction === type);
    const key = (entry: (typeof entries)[number]) =>
      orderBy === "amount" ? Number(entry.transaction?.amount ?? 0) : Date.parse(entry.transaction?.createdAt ?? "");
    const sign = orderDirection === "ASC" ? 1 : -1;
    // Equal keys keep the order they were recorded in (later ones count as newer).
    entries.sort((a, b) => sign * (key(a) - key(b) || sequence.get(a)! - sequence.get(b)!));
    const { items, pagination } = pageOf(entries, call.params, 20);
    return { status: 200, body: { transactions: items, pagination } };
  },

  openWalletAddress(call) {
    const account = accountOf(call);
    const company = actingCompany(call);
    const wallet = company.wallets.find((w) => w.wallet.id === call.params.walletId);
    if (!wallet) throw notFound("wallet", call.params.walletId);
    const chain = (call.body?.chain as string | undefined) ?? wallet.wallet.defaultChain;
    if (!(wallet.wallet.chains as string[]).includes(chain))
      throw unprocessable(
        `chain ${chain} is not available for a ${wallet.wallet.currency} wallet (${wallet.wallet.chains.join(", ")})`,
      );
    const existing = wallet.addresses[chain];
    if (existing) return { status: 200, body: { address: { address: existing, chain } } };
    const address = addressFor(chain, call.engine, account);
    wallet.addresses[chain] = address;
    return { status: 201, body: { address: { address, chain } } };
  },

  onboardCompany(call) {
    accountOf(call);
    const { name, countryCode, products = ["Card"], redirectUri } = call.body;
    const record = call.engine.addCompany(call.apiKey!, {
      name,
      countryCode,
      products,
      status: "Pending",
      redirectUri,
    });
    return { status: 201, body: { company: record.company } };
  },

  listCompanies(call) {
    return { status: 200, body: { companies: accountOf(call).companies.map((c) => c.company) } };
  },

  submitKybProfile(call) {
    const company = actingCompany(call);
    company.kybStatus = "SUBMITTED";
    const companyId = company.company.id;
    call.engine.cancel((task) => task.kind === "finishKybReview" && task.companyId === companyId);
    call.engine.schedule({
      kind: "finishKybReview",
      apiKey: call.apiKey!,
      dueAt: call.engine.clock.now() + call.engine.settings.kybReviewSeconds * 1000,
      companyId,
    });
    return { status: 201, body: { status: "SUBMITTED" } };
  },

  getPaymentRoute(call) {
    return { status: 200, body: { paymentRoute: findRoute(actingCompany(call), call.params.routeId) } };
  },

  getPaymentInstructions(call) {
    const route = findRoute(actingCompany(call), call.params.routeId);
    const token = call.engine.random(accountOf(call)).token(24);
    return {
      status: 200,
      body: { url: `https://files.sandbox.partner-api.invalid/payment-instructions/${route.id}.pdf?token=${token}` },
    };
  },

  // ---- The control API ----
  listAccounts(call) {
    return { status: 200, body: listAccounts(call.engine.state) };
  },

  getAccount(call) {
    const fingerprint = call.params.account as string;
    const overview = accountOverview(call.engine, fingerprint);
    if (!overview)
      throw new SandboxProblem(404, "not-found", "Not found", `account ${fingerprint} has not called this sandbox`);
    return { status: 200, body: overview };
  },

  createWebhookEndpoint(call) {
    const record = call.engine.addEndpoint(accountOf(call), call.body.url, call.body.secret);
    return { status: 201, body: record.endpoint };
  },

  listWebhookEndpoints(call) {
    return { status: 200, body: { webhookEndpoints: accountOf(call).endpoints.map((e) => e.endpoint) } };
  },

  deleteWebhookEndpoint(call) {
    const account = accountOf(call);
    const id = call.params.endpointId as string;
    if (!account.endpoints.some((e) => e.endpoint.id === id)) throw notFound("webhook endpoint", id);
    account.endpoints = account.endpoints.filter((e) => e.endpoint.id !== id);
    call.engine.cancel((task) => task.kind === "deliverEvent" && task.endpointId === id);
    return { status: 204 };
  },

  listEvents(call) {
    const next = nextAttemptsByEvent(call.engine.state.tasks);
    const events = [...accountOf(call).events].reverse().map((e) => shownEvent(e, next));
    return { status: 200, body: { events } };
  },

  resendEvent(call) {
    const event = call.engine.event(accountOf(call), call.params.eventId);
    if (!event) throw notFound("event", call.params.eventId);
    call.engine.scheduleDeliveries(call.apiKey!, event);
    return { status: 202, body: shownEvent(event, nextAttemptsByEvent(call.engine.state.tasks)) };
  },

  createCardHolder(call) {
    const holder = call.engine.addCardHolder(accountOf(call), pathCompany(call), call.body.name, call.body.email);
    return { status: 201, body: { cardHolder: holder } };
  },

  listCardHolders(call) {
    return { status: 200, body: { cardHolders: pathCompany(call).cardHolders } };
  },

  createWallet(call) {
    const record = call.engine.addWallet(
      accountOf(call),
      pathCompany(call),
      call.body.currency as keyof typeof WALLET_CHAINS,
    );
    return { status: 201, body: { wallet: record.wallet } };
  },

  listWallets(call) {
    return { status: 200, body: { wallets: pathCompany(call).wallets.map((w) => w.wallet) } };
  },

  setCompanyKycStatus(call) {
    const company = pathCompany(call);
    setKycStatus(call, company, call.body.kycStatus);
    return { status: 200, body: { company: company.company } };
  },

  setCompanyTermsAccepted(call) {
    const company = pathCompany(call);
    const swap = company.company.swap;
    if (!swap)
      throw unprocessable(`company ${company.company.id} was not onboarded with Swap, so it has no terms to accept`);
    swap.tosAccepted = call.body.tosAccepted as boolean;
    return { status: 200, body: { company: company.company } };
  },

  setCompanyOnboardingStatus(call) {
    const company = pathCompany(call);
    if (company.company.status !== call.body.status) {
      company.company.status = call.body.status;
      call.engine.fire(call.apiKey!, "company.onboarding_status_changed", {
        companyId: company.company.id,
        status: call.body.status,
      });
    }
    return { status: 200, body: { company: company.company } };
  },

  setCompanyKybResult(call) {
    const company = pathCompany(call);
    const companyId = company.company.id;
    call.engine.cancel((task) => task.kind === "finishKybReview" && task.companyId === companyId);
    company.kybStatus = call.body.status;
    call.engine.fire(call.apiKey!, "company.kyb_status_changed", { companyId, status: call.body.status });
    return { status: 200, body: { companyId, status: call.body.status } };
  },

  createPaymentRoute(call) {
    const account = accountOf(call);
    const company = pathCompany(call);
    const random = call.engine.random(account);
    const { type, status = "active", feePercent = 0.5 } = call.body;
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
      createdAt: call.engine.now(),
    };
    company.paymentRoutes.push(route);
    call.engine.fire(call.apiKey!, "payment_route.created", { companyId: company.company.id, paymentRoute: route });
    return { status: 201, body: { paymentRoute: route } };
  },

  createDeposit(call) {
    const account = accountOf(call);
    const routeId = call.params.routeId as string;
    const company = account.companies.find((c) => c.paymentRoutes.some((r) => r.id === routeId));
    if (!company) throw notFound("payment route", routeId);
    const route = findRoute(company, routeId);
    if (route.status !== "active") throw unprocessable(`payment route ${routeId} is inactive and accepts no money`);
    const random = call.engine.random(account);
    const amount = call.body.amount as number;
    const senderName = (call.body.senderName as string | undefined) ?? "Sandbox Payer";
    const nowMs = call.engine.clock.now();
    const transaction = {
      id: random.ulid(),
      type: "Credit" as const,
      // A transaction is in fiat (ISO 4217): what the payer sent on an on-ramp, what is paid out on an off-ramp.
      currency: (route.type === "onramp" ? route.source?.currency : route.destination?.currency) ?? "USD",
      amount,
      counterpartyName: senderName,
      counterpartyCode: "",
      counterpartyBankCode: "",
      description: `Deposit on payment route ${routeId}`,
      status: "PAID" as const,
      paymentMethod: null,
      createdAt: microsecondIso(nowMs),
    };
    account.transactions[transaction.id] = transaction;
    const incoming = amount.toFixed(2);
    const fees = (amount * (route.feePercent ?? 0)) / 100;
    const converted = (amount - fees).toFixed(2);
    const data =
      route.type === "onramp"
        ? {
            routeId,
            routeType: "onramp",
            senderName,
            senderBankRoutingNumber: "021000021",
            incomingAmount: incoming,
            convertedAmount: converted,
            destinationTxHash: `0x${random.hex(64)}`,
          }
        : {
            routeId,
            routeType: "offramp",
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
    call.engine.fire(call.apiKey!, "payment_route.transaction.created", {
      companyId: company.company.id,
      type: "PaymentRoute",
      transaction: {
        id: transaction.id,
        direction: "Credit",
        amount: incoming,
        currency: transaction.currency,
        description: transaction.description,
        counterpartyName: senderName,
        createdAt: new Date(nowMs).toISOString(),
      },
      data,
    });
    return { status: 201, body: { transaction } };
  },

  createSpendingAccountEntry(call) {
    const company = pathCompany(call);
    const entry = call.engine.ledgerEntry(accountOf(call), company, call.body);
    company.ledger.push(entry);
    return { status: 201, body: { entry } };
  },

  getKycPage(call) {
    const { company } = hostedCompany(call);
    return { status: 200, html: renderKycPage(company) };
  },

  submitKycPage(call) {
    const { apiKey, company } = hostedCompany(call);
    setKycStatus({ ...call, apiKey }, company, KYC_ACTIONS[call.body.action as keyof typeof KYC_ACTIONS]);
    return { status: 200, html: renderKycPage(company) };
  },

  getTosPage(call) {
    return { status: 200, html: renderTosPage(hostedCompany(call).company) };
  },

  submitTosPage(call) {
    const { company } = hostedCompany(call);
    company.company.swap!.tosAccepted = true;
    return { status: 200, html: renderTosPage(company) };
  },
};
