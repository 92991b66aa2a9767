/**
 * The client scenario every runtime of the matrix runs (test/runtimes/run.ts): plain calls of the package's public
 * API, imported by its name as a partner imports it, against the stub server (stub-server.ts). Node, Bun and Deno
 * run it as a module resolving `partner-api-client` themselves; workerd runs it inside a Worker and Chromium in a
 * page, each from a bundle of the root its export condition picks. It imports nothing else, so it runs anywhere.
 *
 * Each check either holds or throws an error naming it; the report lists the checks that held.
 */
import * as api from "partner-api-client";

export interface ScenarioConfig {
  baseUrl: string;
  /** One key per run: the stub counts attempts and logs requests by key. */
  apiKey: string;
  companyId: string;
  /** The stub's ids: answered 503 twice, never answered, not found. */
  ids: { flaky: string; slow: string; missing: string };
  /** Ids from the contract's examples, and what the stub's examples list. */
  examples: { transactionId: string; cardHolderId: string; cardIds: string[]; ledgerIds: string[] };
  /** A known-answer webhook delivery. */
  webhook: { body: string; signature: string; secret: string };
  /** True where the runtime has node:crypto: the package root must then be the Node root, with the sync functions. */
  nodeCrypto: boolean;
}

export interface ScenarioReport {
  /** Which package root the runtime resolved: `node` (with the node:crypto functions) or `web`. */
  root: "node" | "web";
  checks: string[];
}

class ScenarioFailure extends Error {
  override readonly name = "ScenarioFailure";
}

export async function runScenario(config: ScenarioConfig): Promise<ScenarioReport> {
  const checks: string[] = [];
  const check = (name: string, holds: boolean, detail: () => unknown = () => "") => {
    if (!holds) throw new ScenarioFailure(`${name}: ${JSON.stringify(detail())}`);
    checks.push(name);
  };
  /** The error `promise` rejects with (or throws), failing the check when it fulfils. */
  const rejection = async (name: string, call: () => Promise<unknown>): Promise<any> => {
    try {
      const value = await call();
      throw new ScenarioFailure(`${name}: expected an error, got ${JSON.stringify(value)}`);
    } catch (error) {
      if (error instanceof ScenarioFailure) throw error;
      return error;
    }
  };
  const fastRetry = { attempts: 3, baseDelayMs: 1, maxDelayMs: 50 };
  const client = api.createPartnerClient({ apiKey: config.apiKey, baseUrl: config.baseUrl, retry: fastRetry });
  const scenario: Scenario = {
    config,
    check,
    rejection,
    fastRetry,
    client,
    company: client.forCompany(config.companyId),
  };
  await callsAndPaging(scenario);
  await retriesAndTimeouts(scenario);
  await typedErrors(scenario);
  const root = await webhooks(scenario);
  return { root, checks };
}

/** What each part of the scenario checks with: the config, the check functions, and the clients. */
interface Scenario {
  config: ScenarioConfig;
  check: (name: string, holds: boolean, detail?: () => unknown) => void;
  rejection: (name: string, call: () => Promise<unknown>) => Promise<any>;
  fastRetry: { attempts: number; baseDelayMs: number; maxDelayMs: number };
  client: api.PartnerClient;
  company: api.CompanyClient;
}

/** Calls, company scope and paging. */
async function callsAndPaging(scenario: Scenario): Promise<void> {
  const { check, client, company } = scenario;
  const { baseUrl, apiKey, companyId, examples } = scenario.config;
  // Calls: one that acts for no company, then company scope through forCompany and through companyId.
  const companies = await client.GET("/v1/companies");
  check("call: listCompanies answers 200 with the example's companies", companies.response.status === 200, () => [
    companies.response.status,
    companies.error,
  ]);
  check("call: the data is typed and parsed", (companies.data?.companies?.length ?? 0) > 0, () => companies.data);
  const bins = await company.GET("/v1/card-bins");
  check("scope: forCompany sends X-Company-Id (the stub refuses a company call without it)", bins.response.ok, () => [
    bins.response.status,
    bins.error,
  ]);
  check("scope: company client's companyId", company.companyId === companyId, () => company.companyId);
  const scoped = api.createPartnerClient({ apiKey, baseUrl, companyId, retry: false });
  const created = await scoped.POST("/v1/cards", {
    body: { cardHolderId: examples.cardHolderId, name: "Travel", category: "TravelExpenses", bin: "489514" },
  });
  check("scope: createPartnerClient({ companyId }) POSTs a JSON body, 201", created.response.status === 201, () => [
    created.response.status,
    created.error,
  ]);
  // @ts-expect-error a company-scope call without its company: the stub must refuse it
  const unscoped = await client.GET("/v1/card-bins");
  check("scope: the same call without a company is refused (400)", unscoped.response.status === 400, () => [
    unscoped.response.status,
  ]);

  // Paging: the stub pages the example's items by `limit`.
  const cards: string[] = [];
  for await (const card of api.paginate(company, "/v1/cards", { params: { query: { limit: 1 } } }))
    cards.push(card.id ?? "");
  check("paging: paginate() reads /v1/cards one card a page to the end", same(cards, examples.cardIds), () => cards);
  const ledger: string[] = [];
  for await (const entry of api.paginate(company, "/v1/card-spending-account/transactions", {
    params: { query: { limit: 2 } },
  }))
    ledger.push(entry.transaction?.id ?? "");
  check("paging: paginate() follows `pagination` to the last page", same(ledger, examples.ledgerIds), () => ledger);
  const capped: string[] = [];
  for await (const card of api.paginate(company, "/v1/cards", { params: { query: { limit: 1 } }, maxItems: 1 }))
    capped.push(card.id ?? "");
  check("paging: maxItems stops early", capped.length === 1, () => capped);
}

/** Retries, timeouts and the caller's own abort. */
async function retriesAndTimeouts(scenario: Scenario): Promise<void> {
  const { check, rejection, company } = scenario;
  const { baseUrl, apiKey, companyId, ids } = scenario.config;
  // Retries: an operation safe to repeat is sent again after a 503; one that is not is never repeated.
  const flaky = await company.GET("/v1/card-holders/{cardHolderId}", {
    params: { path: { cardHolderId: ids.flaky } },
  });
  check("retry: a GET answered 503 twice succeeds on the third attempt", flaky.response.status === 200, () => [
    flaky.response.status,
    flaky.error,
  ]);
  check("retry: the stub saw three attempts", flaky.response.headers.get("x-stub-attempt") === "3", () =>
    flaky.response.headers.get("x-stub-attempt"),
  );
  const once = await company.POST("/v1/cards/{cardId}/details", { params: { path: { cardId: ids.flaky } } });
  check(
    "retry: a POST that is not safe to repeat stays a 503 after one attempt",
    once.response.status === 503 && once.response.headers.get("x-stub-attempt") === "1",
    () => [once.response.status, once.response.headers.get("x-stub-attempt")],
  );

  // Timeouts and the caller's own abort.
  const impatient = api.createPartnerClient({ apiKey, baseUrl, companyId, timeoutMs: 250, retry: false });
  const slowPath = { params: { path: { cardHolderId: ids.slow } } } as const;
  const timedOut = await rejection("timeout", () => impatient.GET("/v1/card-holders/{cardHolderId}", slowPath));
  check(
    "timeout: an unanswered call rejects with RequestTimeoutError",
    timedOut instanceof api.RequestTimeoutError,
    () => String(timedOut),
  );
  check(
    "timeout: named TimeoutError, a PartnerApiError, with the path and limit",
    timedOut.name === "TimeoutError" &&
      timedOut.timeoutMs === 250 &&
      timedOut.path === `/v1/card-holders/${ids.slow}` &&
      timedOut instanceof api.PartnerApiError,
    () => [timedOut.name, timedOut.timeoutMs, timedOut.path],
  );
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const aborted = await rejection("abort", () =>
    impatient.GET("/v1/card-holders/{cardHolderId}", { ...slowPath, signal: controller.signal }),
  );
  check(
    "abort: the caller's AbortSignal rejects with an AbortError, not a timeout",
    aborted?.name === "AbortError",
    () => String(aborted),
  );
}

/** Typed errors and throwOnError. */
async function typedErrors(scenario: Scenario): Promise<void> {
  const { check, rejection, fastRetry, client, company } = scenario;
  const { baseUrl, apiKey, ids, examples } = scenario.config;
  // Typed errors.
  const missing = await client.GET("/transactions/{transactionId}", {
    params: { path: { transactionId: ids.missing } },
  });
  check(
    "errors: a 404 is a result with `error`, not a throw",
    missing.response.status === 404 && !!missing.error,
    () => [missing.response.status],
  );
  const unwrapped = await rejection("unwrap", async () => api.unwrap(missing));
  check(
    "errors: unwrap() throws ApiError, declared for getTransaction",
    unwrapped instanceof api.ApiError &&
      api.isApiError(unwrapped, "getTransaction") &&
      unwrapped.status === 404 &&
      unwrapped.declared === true &&
      unwrapped.name === "ApiError" &&
      unwrapped.message.startsWith(api.ERROR_PREFIX),
    () => String(unwrapped),
  );
  check(
    "errors: the API key is in no error",
    !JSON.stringify(unwrapped).includes(apiKey) && !unwrapped.message.includes(apiKey),
  );
  const invalid = await rejection("invalid input", () =>
    company.GET("/v1/card-holders/{cardHolderId}", { params: { path: { cardHolderId: "../x" } } }),
  );
  check(
    "errors: a bad id throws InvalidInputError naming it, before sending",
    invalid instanceof api.InvalidInputError && invalid.input === "cardHolderId",
    () => String(invalid),
  );
  const badOption = await rejection("bad option", async () =>
    api.createPartnerClient({ apiKey, baseUrl, timeoutMs: -1 }),
  );
  check("errors: a bad option throws InvalidInputError", badOption instanceof api.InvalidInputError, () =>
    String(badOption),
  );

  // throwOnError.
  const throwing = api.createPartnerClient({ apiKey, baseUrl, throwOnError: true, retry: fastRetry });
  const found = await throwing.GET("/transactions/{transactionId}", {
    params: { path: { transactionId: examples.transactionId } },
  });
  check("throwOnError: a success resolves to { data }", found.data.transaction?.id !== undefined, () => found.data);
  const thrown = await rejection("throwOnError", () =>
    throwing.GET("/transactions/{transactionId}", { params: { path: { transactionId: ids.missing } } }),
  );
  check("throwOnError: a 404 throws ApiError", api.isApiError(thrown, "getTransaction") && thrown.status === 404, () =>
    String(thrown),
  );
}

/** Webhooks: Web Crypto everywhere; node:crypto where the runtime has it, from the Node root only. */
async function webhooks(scenario: Scenario): Promise<ScenarioReport["root"]> {
  const { config, check, rejection } = scenario;
  const { baseUrl, webhook } = scenario.config;
  // Webhooks: Web Crypto everywhere.
  const { body, signature, secret } = webhook;
  const tampered = body.replace("approved", "rejected");
  check(
    "webhooks: signWebhookPayloadAsync gives the known answer",
    (await api.signWebhookPayloadAsync(body, secret)) === signature,
  );
  check(
    "webhooks: verifyWebhookSignatureAsync accepts the known answer, refuses a changed body",
    (await api.verifyWebhookSignatureAsync(body, signature, secret)) &&
      !(await api.verifyWebhookSignatureAsync(tampered, signature, secret)),
  );
  check(
    "webhooks: a secret rotation list verifies",
    await api.verifyWebhookSignatureAsync(new TextEncoder().encode(body), signature, ["whsec_old", secret]),
  );
  const event = await api.constructWebhookEventAsync(body, signature, secret);
  check("webhooks: constructWebhookEventAsync gives the typed event", event.type === "company.kyc_status_changed");
  const refused = await rejection("signature", () => api.constructWebhookEventAsync(tampered, signature, secret));
  check(
    "webhooks: a changed body throws WebhookSignatureError (mismatch)",
    refused instanceof api.WebhookSignatureError && refused.reason === "mismatch",
    () => String(refused),
  );
  const handler = api.createWebhookHandler({ secrets: secret, on: {}, dedupe: false });
  const delivery = (text: string) =>
    handler(new Request(`${baseUrl}/webhooks`, { method: "POST", body: text, headers: { "x-signature": signature } }));
  const [accepted, rejected] = [await delivery(body), await delivery(tampered)];
  check(
    "webhooks: createWebhookHandler answers a Request: 200 signed, 401 changed",
    accepted.status === 200 && rejected.status === 401,
    () => [accepted.status, rejected.status],
  );

  // Webhooks: node:crypto where the runtime has it, and then from the Node root only.
  const nodeRoot = api as Partial<typeof api>;
  const root = typeof nodeRoot.verifyWebhookSignature === "function" ? "node" : "web";
  check(
    `webhooks: the ${config.nodeCrypto ? "Node" : "web"} root is the one resolved`,
    (root === "node") === config.nodeCrypto,
    () => root,
  );
  if (root === "node") {
    check(
      "webhooks: the node:crypto functions give the same answers",
      nodeRoot.signWebhookPayload!(body, secret) === signature &&
        nodeRoot.verifyWebhookSignature!(body, signature, secret) &&
        !nodeRoot.verifyWebhookSignature!(tampered, signature, secret) &&
        nodeRoot.constructWebhookEvent!(body, signature, secret).id === event.id,
    );
  }
  return root;
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
