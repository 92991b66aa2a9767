/**
 * Onboarding and identity verification (KYC): companies onboarded under the partner account, their
 * onboarding status, and the hosted verification and terms pages a company onboarded with Swap gets.
 */
import type { components } from "../../../../generated/sandbox.js";
import type { SandboxEngine } from "../engine.ts";
import { accountOf, apiKeyOf, defineFlow, pathCompany, SandboxProblem, unprocessable } from "../flow.ts";
import { isWebAddress, renderCompletionPage, renderKycPage, renderTosPage } from "../hosted.ts";
import type { CompanyRecord } from "../state.ts";
import { addCardHolder, SEEDED_CARD_BINS } from "./cards.ts";
import { addWallet } from "./routes.ts";

type KycStatus = components["schemas"]["KycStatus"];

const HOLDER_NAMES = [
  "Ada Lovelace",
  "Grace Hopper",
  "Alan Turing",
  "Katherine Johnson",
  "Edsger Dijkstra",
  "Barbara Liskov",
];

/** A company with its seeded card BINs, card holder and wallet; fires kyc_link.issued when it has Swap. */
export function addCompany(
  engine: SandboxEngine,
  apiKey: string,
  input: { name: string; countryCode: string; products: readonly string[]; status: string; redirectUri?: string },
): CompanyRecord {
  const account = engine.account(apiKey);
  const random = engine.random(account);
  const id = random.ulid();
  const base = engine.settings.baseUrl();
  const swap = input.products.includes("Swap")
    ? {
        kycUrl: `${base}/_sandbox/hosted/kyc/${id}`,
        kycStatus: "not_started" as const,
        tosUrl: `${base}/_sandbox/hosted/tos/${id}`,
        tosAccepted: false,
      }
    : null;
  const record: CompanyRecord = {
    company: {
      id,
      name: input.name,
      countryCode: input.countryCode,
      status: input.status,
      createdAt: engine.now(),
      swap,
    },
    ...(input.redirectUri ? { redirectUri: input.redirectUri } : {}),
    cardBins: structuredClone(SEEDED_CARD_BINS),
    cardHolders: [],
    cards: [],
    wallets: [],
    paymentRoutes: [],
    ledger: [],
  };
  account.companies.push(record);
  engine.changed(account, "companies", record);
  const holderName = random.pick(HOLDER_NAMES);
  addCardHolder(engine, account, record, holderName, `${holderName.toLowerCase().replace(/\s+/g, ".")}@example.com`);
  addWallet(engine, account, record, "USDC");
  if (swap) engine.fire(apiKey, "company.kyc_link.issued", { companyId: id, ...swap });
  return record;
}

/** Moves verification on; every change (and only a change) fires company.kyc_status_changed. */
function setKycStatus(engine: SandboxEngine, apiKey: string, company: CompanyRecord, kycStatus: KycStatus): void {
  const swap = company.company.swap;
  if (!swap)
    throw unprocessable(`company ${company.company.id} was not onboarded with Swap, so it has no verification status`);
  if (swap.kycStatus === kycStatus) return;
  swap.kycStatus = kycStatus;
  engine.changed(apiKey, "companies", company, "company");
  engine.fire(apiKey, "company.kyc_status_changed", { companyId: company.company.id, kycStatus });
}

/** The company behind a hosted page: any account's, since the page carries no API key. */
function hostedCompany(call: { engine: SandboxEngine; params: { companyId: string } }): {
  apiKey: string;
  company: CompanyRecord;
} {
  const id = call.params.companyId;
  const apiKey = call.engine.owners.company(id);
  const company = apiKey === undefined ? undefined : call.engine.company(call.engine.account(apiKey), id);
  if (apiKey !== undefined && company?.company.swap) return { apiKey, company };
  throw new SandboxProblem(
    404,
    "not-found",
    "Not found",
    `company ${id} has no hosted verification (unknown, or not onboarded with Swap)`,
  );
}

/**
 * Where the verification page sends the customer once approved: the company's redirectUri, or by default (as
 * the API description says) a completion page the service hosts, the sandbox's own here.
 */
function continueUrlOf(engine: SandboxEngine, record: CompanyRecord): string {
  return record.redirectUri ?? `${engine.settings.baseUrl()}/_sandbox/hosted/complete/${record.company.id}`;
}

/** What each button of the hosted verification page does. */
const KYC_ACTIONS = {
  start: "incomplete",
  submit: "under_review",
  complete: "approved",
  reject: "rejected",
  pause: "paused",
} as const satisfies Record<components["schemas"]["KycPageForm"]["action"], KycStatus>;

export const onboarding = defineFlow()({
  name: "onboarding and KYC",
  partner: {
    onboardCompany(call) {
      const { name, countryCode, products = ["Card"], redirectUri } = call.body;
      // A sandbox pick: the description says only "where the customer is sent"; the hosted page links to it.
      if (redirectUri !== undefined && !isWebAddress(redirectUri))
        throw unprocessable(
          `redirectUri must be an http: or https: address (the hosted page links to it), got ${JSON.stringify(redirectUri.slice(0, 100))}`,
        );
      const record = addCompany(call.engine, apiKeyOf(call), {
        name,
        countryCode,
        products,
        status: "Pending",
        ...(redirectUri !== undefined ? { redirectUri } : {}),
      });
      return { status: 201, body: { company: record.company } };
    },

    listCompanies(call) {
      return { status: 200, body: { companies: accountOf(call).companies.map((c) => c.company) } };
    },
  },
  control: {
    setCompanyKycStatus(call) {
      const company = pathCompany(call);
      setKycStatus(call.engine, apiKeyOf(call), company, call.body.kycStatus);
      return { status: 200, body: { company: company.company } };
    },

    setCompanyTermsAccepted(call) {
      const company = pathCompany(call);
      const swap = company.company.swap;
      if (!swap)
        throw unprocessable(`company ${company.company.id} was not onboarded with Swap, so it has no terms to accept`);
      swap.tosAccepted = call.body.tosAccepted;
      call.engine.changed(apiKeyOf(call), "companies", company, "company");
      return { status: 200, body: { company: company.company } };
    },

    setCompanyOnboardingStatus(call) {
      const company = pathCompany(call);
      const { status } = call.body;
      if (company.company.status !== status) {
        company.company.status = status;
        call.engine.changed(apiKeyOf(call), "companies", company, "company");
        call.engine.fire(apiKeyOf(call), "company.onboarding_status_changed", {
          companyId: company.company.id,
          status,
        });
      }
      return { status: 200, body: { company: company.company } };
    },

    getKycPage(call) {
      const { company } = hostedCompany(call);
      return { status: 200, html: renderKycPage(company, continueUrlOf(call.engine, company)) };
    },

    submitKycPage(call) {
      const { apiKey, company } = hostedCompany(call);
      setKycStatus(call.engine, apiKey, company, KYC_ACTIONS[call.body.action]);
      return { status: 200, html: renderKycPage(company, continueUrlOf(call.engine, company)) };
    },

    getCompletionPage(call) {
      return { status: 200, html: renderCompletionPage(hostedCompany(call).company) };
    },

    getTosPage(call) {
      return { status: 200, html: renderTosPage(hostedCompany(call).company) };
    },

    submitTosPage(call) {
      const { apiKey, company } = hostedCompany(call);
      company.company.swap!.tosAccepted = true;
      call.engine.changed(apiKey, "companies", company, "company");
      return { status: 200, html: renderTosPage(company) };
    },
  },
  tasks: {},
});
