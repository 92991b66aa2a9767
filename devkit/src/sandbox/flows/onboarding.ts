/**
 * Onboarding and identity verification (KYC): companies onboarded under the partner account, their
 * onboarding status, and the hosted verification and terms pages a company onboarded with Swap gets.
 */
import type { components } from "../../../generated/sandbox.js";
import { KYC_ACTIONS, renderCompletionPage, renderKycPage, renderTosPage } from "../hosted.ts";
import type { CompanyRecord } from "../records.ts";
import { addCardHolder, SEEDED_CARD_BINS } from "./cards.ts";
import { accountOf, apiKeyOf, defineFlow, type FlowEnv, pathCompany, SandboxProblem, unprocessable } from "./flow.ts";
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
  env: FlowEnv,
  apiKey: string,
  input: {
    name: string;
    countryCode: string;
    products: readonly string[];
    status: string;
    redirectUri?: string;
    /** A fixed id (the contract example's company, seeded) instead of a new one. */
    id?: string;
    cardBins?: CompanyRecord["cardBins"];
  },
): CompanyRecord {
  env.account(apiKey);
  const random = env.random(apiKey);
  // A new id is drawn even for a fixed one, so what is drawn after it is the same either way.
  const drawn = random.ulid();
  const id = input.id ?? drawn;
  const base = env.settings.baseUrl();
  const swap = input.products.includes("Swap")
    ? {
        kycUrl: `${base}/_sandbox/hosted/kyc/${id}`,
        kycStatus: "not_started" as const,
        tosUrl: `${base}/_sandbox/hosted/tos/${id}`,
        tosAccepted: false,
      }
    : null;
  const record = env.store.put("companies", {
    id,
    account: apiKey,
    company: {
      id,
      name: input.name,
      countryCode: input.countryCode,
      status: input.status,
      createdAt: env.now(),
      swap,
    },
    ...(input.redirectUri ? { redirectUri: input.redirectUri } : {}),
    cardBins: input.cardBins ?? SEEDED_CARD_BINS,
  });
  const holderName = random.pick(HOLDER_NAMES);
  addCardHolder(env, record, holderName, `${holderName.toLowerCase().replace(/\s+/g, ".")}@example.com`);
  addWallet(env, record, "USDC");
  if (swap) env.fire(apiKey, "company.kyc_link.issued", { companyId: id, ...swap });
  return record;
}

/** The company with its `company` fields changed. */
function changedCompany(env: FlowEnv, record: CompanyRecord, change: Partial<CompanyRecord["company"]>): CompanyRecord {
  return env.store.put("companies", { ...record, company: { ...record.company, ...change } });
}

/** Moves verification on; every change (and only a change) fires company.kyc_status_changed. */
function setKycStatus(env: FlowEnv, company: CompanyRecord, kycStatus: KycStatus): CompanyRecord {
  const swap = company.company.swap;
  if (!swap)
    throw unprocessable(`company ${company.company.id} was not onboarded with Swap, so it has no verification status`);
  if (swap.kycStatus === kycStatus) return company;
  const changed = changedCompany(env, company, { swap: { ...swap, kycStatus } });
  env.fire(company.account, "company.kyc_status_changed", { companyId: company.id, kycStatus });
  return changed;
}

/** The company behind a hosted page: any account's, since the page carries no API key. */
function hostedCompany(call: { env: FlowEnv; params: { companyId: string } }): CompanyRecord {
  const id = call.params.companyId;
  const apiKey = call.env.store.accountOf("companies", id);
  const company = apiKey === undefined ? undefined : call.env.store.get("companies", apiKey, id);
  if (company?.company.swap) return company;
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
function continueUrlOf(env: FlowEnv, record: CompanyRecord): string {
  return record.redirectUri ?? `${env.settings.baseUrl()}/_sandbox/hosted/complete/${record.company.id}`;
}

export const onboarding = defineFlow()({
  name: "onboarding and KYC",
  partner: {
    onboardCompany(call) {
      const { name, countryCode, products = ["Card"], redirectUri } = call.body;
      // Any string, as the contract takes it (the description says only "where the customer is sent"): the
      // hosted page links on only to an http(s) address and shows any other as text (hosted.ts).
      const record = addCompany(call.env, apiKeyOf(call), {
        name,
        countryCode,
        products,
        status: "Pending",
        ...(redirectUri !== undefined ? { redirectUri } : {}),
      });
      return { status: 201, body: { company: record.company } };
    },

    listCompanies(call) {
      const { id } = accountOf(call);
      return { status: 200, body: { companies: call.env.store.list("companies", id).map((c) => c.company) } };
    },
  },
  control: {
    setCompanyKycStatus(call) {
      const company = setKycStatus(call.env, pathCompany(call), call.body.kycStatus);
      return { status: 200, body: { company: company.company } };
    },

    setCompanyTermsAccepted(call) {
      const company = pathCompany(call);
      const swap = company.company.swap;
      if (!swap)
        throw unprocessable(`company ${company.company.id} was not onboarded with Swap, so it has no terms to accept`);
      const changed = changedCompany(call.env, company, { swap: { ...swap, tosAccepted: call.body.tosAccepted } });
      return { status: 200, body: { company: changed.company } };
    },

    setCompanyOnboardingStatus(call) {
      let company = pathCompany(call);
      const { status } = call.body;
      if (company.company.status !== status) {
        company = changedCompany(call.env, company, { status });
        call.env.fire(company.account, "company.onboarding_status_changed", { companyId: company.id, status });
      }
      return { status: 200, body: { company: company.company } };
    },

    getKycPage(call) {
      const company = hostedCompany(call);
      return { status: 200, html: renderKycPage(company, continueUrlOf(call.env, company)) };
    },

    submitKycPage(call) {
      const company = setKycStatus(call.env, hostedCompany(call), KYC_ACTIONS[call.body.action]);
      return { status: 200, html: renderKycPage(company, continueUrlOf(call.env, company)) };
    },

    getCompletionPage(call) {
      return { status: 200, html: renderCompletionPage(hostedCompany(call)) };
    },

    getTosPage(call) {
      return { status: 200, html: renderTosPage(hostedCompany(call)) };
    },

    submitTosPage(call) {
      const company = hostedCompany(call);
      const changed = changedCompany(call.env, company, { swap: { ...company.company.swap!, tosAccepted: true } });
      return { status: 200, html: renderTosPage(changed) };
    },
  },
  tasks: {},
});
