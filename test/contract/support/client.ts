/**
 * The success path of each operation, through the typed client of src/ (createPartnerClient): one typed call
 * per operationId, so a change of the contract that the client's types no longer accept fails `npm run
 * typecheck`, and an operation this map does not know fails the contract tests.
 */
import { type CompanyClient, type components, createPartnerClient, type PartnerClient } from "../../../src/index.ts";
import type { Operation } from "./contract.ts";
import { type CallResult, companyIdExample, examplePathParams, TEST_API_KEY } from "./http.ts";

type Schemas = components["schemas"];
type Answer = { response: Response; data?: unknown; error?: unknown };

interface Context {
  partner: PartnerClient;
  company: CompanyClient;
  path: Record<string, string>;
  body: unknown;
}

const calls: Record<string, (c: Context) => Promise<Answer>> = {
  getTransaction: ({ partner, path }) =>
    partner.GET("/transactions/{transactionId}", { params: { path: { transactionId: path.transactionId! } } }),
  createCard: ({ company, body }) => company.POST("/v1/cards", { body: body as Schemas["CreateCardRequest"] }),
  listCards: ({ company }) => company.GET("/v1/cards", { params: { query: { page: 1, limit: 20 } } }),
  updateCardSpendSettings: ({ company, path, body }) =>
    company.PATCH("/v1/cards/{cardId}/spend-settings", {
      params: { path: { cardId: path.cardId! } },
      body: body as Schemas["SpendSettings"],
    }),
  unfreezeCard: ({ company, path }) =>
    company.PATCH("/v1/cards/{cardId}/unfreeze", { params: { path: { cardId: path.cardId! } }, body: {} }),
  createCardDetailsToken: ({ company, path }) =>
    company.POST("/v1/cards/{cardId}/details", { params: { path: { cardId: path.cardId! } } }),
  getCardHolder: ({ company, path }) =>
    company.GET("/v1/card-holders/{cardHolderId}", { params: { path: { cardHolderId: path.cardHolderId! } } }),
  listCardBins: ({ company }) => company.GET("/v1/card-bins"),
  listSpendingAccountTransactions: ({ company }) =>
    company.GET("/v1/card-spending-account/transactions", {
      params: { query: { page: 1, limit: 20, orderBy: "createdAt", orderDirection: "DESC" } },
    }),
  openWalletAddress: ({ company, path, body }) =>
    company.POST("/v1/wallets/{walletId}/addresses", {
      params: { path: { walletId: path.walletId! } },
      body: body as Schemas["OpenWalletAddressRequest"],
    }),
  onboardCompany: ({ partner, body }) =>
    partner.POST("/v1/companies", { body: body as Schemas["OnboardCompanyRequest"] }),
  listCompanies: ({ partner }) => partner.GET("/v1/companies"),
  submitKybProfile: ({ company, body }) => company.POST("/v1/kyb-profiles", { body: body as Schemas["KybProfile"] }),
  getPaymentRoute: ({ company, path }) =>
    company.GET("/v1/payment-routes/{routeId}", { params: { path: { routeId: path.routeId! } } }),
  getPaymentInstructions: ({ company, path }) =>
    company.GET("/v1/payment-routes/{routeId}/payment-instructions", { params: { path: { routeId: path.routeId! } } }),
};

export const clientOperationIds = Object.keys(calls);

/** Calls the operation through the typed client, with the contract's examples for its inputs. */
export async function successCall(baseUrl: string, op: Operation, body: unknown): Promise<CallResult> {
  const run = calls[op.operationId];
  if (!run)
    throw new Error(`no typed client call for operation ${op.operationId}: add one to test/contract/support/client.ts`);
  const partner: PartnerClient = createPartnerClient({ apiKey: TEST_API_KEY, baseUrl, retry: false, timeoutMs: 5_000 });
  // Any ULID serves for operations that are not company-scope: that client is not used for them.
  const company = partner.forCompany(companyIdExample(op) ?? "01JD8X2K7P3M9Q4R6S8T0V2W4X");
  const started = performance.now();
  const answer = await run({ partner, company, path: examplePathParams(op), body });
  const parsed = answer.data !== undefined ? answer.data : answer.error;
  return {
    status: answer.response.status,
    mediaType: (answer.response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase(),
    body: parsed === undefined ? "" : parsed,
    text: parsed === undefined ? "" : JSON.stringify(parsed),
    ms: performance.now() - started,
    request: `client ${op.operationId} (${op.method.toUpperCase()} ${op.path})`,
  };
}
