/**
 * verify's fixture registry, like the contract gate's: for every check id of verify, one deliberately broken
 * implementation or more (the real sandbox behind a fault, support/faulty.ts), or a contract that declares what the
 * check needs, that makes the check fire on the right operation (or webhook event type). `Record<VerifyCheckId, …>`
 * makes a check without a fixture a type error, and faults.test.ts fails on one at run time too. GOOD lists
 * implementations that keep to the contract in ways the sandbox does not (a missing key answered 400): every check
 * stays quiet on them.
 */
import { readFileSync } from "node:fs";
import type { VerifyCheckId } from "../../../devkit/src/conformance/checks.ts";
import type { VerifyOptions } from "../../../devkit/src/conformance/verify.ts";
import { signWebhookPayload } from "../../../src/webhooks/node.ts";
import { editJson, type Fault, type FaultRequest, type FaultResponse, pathOf } from "./faulty.ts";

export interface Fixture {
  /** What is broken, for the test's name. */
  name: string;
  /** The fault; `self` is the faulty server's own URL (for a webhook relay). */
  fault(self: () => string): Fault;
  options?: Partial<VerifyOptions>;
  /** Every finding of the check is on one of these operations (or event types), and each of them has one. */
  fires: readonly string[];
  /** Only require the operations in `fires` to be among those found (timing: another answer may be slow too). */
  among?: boolean;
  /** A finding's message must match. */
  message?: RegExp;
  /** Other checks to judge with too: the requests of a kind are sent only when a check of theirs is on. */
  also?: readonly VerifyCheckId[];
}

const get = (path: string) => (request: FaultRequest) => request.method === "GET" && pathOf(request) === path;

function problem(response: FaultResponse, status: number): void {
  response.status = status;
  response.headers["content-type"] = "application/problem+json";
  response.body = JSON.stringify({ title: "refused by the fixture", status });
}

/** One delivery as the relay sends it on: to an account's receiver, with a body, signature and content type. */
interface Relayed {
  to: "main" | "other";
  raw: string;
  signature: string;
  contentType?: string;
}

/**
 * A fault that stands between the sandbox's webhooks and verify's receiver: it registers itself in the receiver's
 * place (keeping each account's URL and secret) and sends each delivery on as `edit` says (none: dropped).
 */
function webhookRelay(
  edit: (
    event: Record<string, any>,
    account: "main" | "other",
    secrets: Map<string, string>,
    sign: (raw: string, account: "main" | "other") => string,
  ) => Relayed[],
): (self: () => string) => Fault {
  return (self) => {
    const urls = new Map<string, string>();
    const secrets = new Map<string, string>();
    return {
      async intercept(request) {
        if (request.method === "POST" && pathOf(request) === "/_sandbox/webhook-endpoints") {
          const body = JSON.parse(request.body);
          const account = body.url.endsWith("/other") ? "other" : "main";
          urls.set(account, body.url);
          secrets.set(account, body.secret);
          request.body = JSON.stringify({ ...body, url: `${self()}/relay/${account}` });
          return undefined;
        }
        if (!pathOf(request).startsWith("/relay/")) return undefined;
        const account = pathOf(request).endsWith("/other") ? "other" : "main";
        const sign = (raw: string, to: "main" | "other") => signWebhookPayload(raw, secrets.get(to)!);
        for (const out of edit(JSON.parse(request.body), account, secrets, sign))
          await fetch(urls.get(out.to)!, {
            method: "POST",
            headers: { "content-type": out.contentType ?? "application/json", "x-signature": out.signature },
            body: out.raw,
          });
        return { status: 200, headers: {}, body: "" };
      },
    };
  };
}

/** Sends each delivery on unchanged but for `change`, re-signed for its own account. */
const relayEdited = (change: (event: Record<string, any>) => void) =>
  webhookRelay((event, account, _secrets, sign) => {
    change(event);
    const raw = JSON.stringify(event);
    return [{ to: account, raw, signature: sign(raw, account) }];
  });

const WRITES = { allowWrites: true } as const;

/**
 * A server that cuts a card holder id to its 26 characters and creates the card: only the coverage phase's "one
 * character past maxLength", made from the real id, reaches it (the negative phase's broken ids are random text).
 */
export const TRUNCATED_CARD_HOLDER: Fixture = {
  name: "a card holder id one character too long, cut to 26 and accepted (the coverage phase)",
  fault: () => ({
    request(request) {
      if (request.method !== "POST" || pathOf(request) !== "/v1/cards") return;
      let body: { cardHolderId?: unknown };
      try {
        body = JSON.parse(request.body);
      } catch {
        return;
      }
      if (typeof body?.cardHolderId === "string" && body.cardHolderId.length > 26) {
        body.cardHolderId = body.cardHolderId.slice(0, 26);
        request.body = JSON.stringify(body);
      }
    },
  }),
  options: { ...WRITES, phases: new Set(["examples", "coverage"]) },
  fires: ["createCard"],
  message: /coverage: body cardHolderId: a string of 27, over maxLength 26\) was answered 201, not 4xx/,
};
const TWO = (options: Partial<VerifyOptions> = {}) => ({ ...options, otherApiKey: "" }) as Partial<VerifyOptions>;

/** The company ids each key's listCompanies gave, for faults that act for a company the request left out. */
function companiesSeen(): { seen: Map<string, string>; take(request: FaultRequest, response: FaultResponse): void } {
  const seen = new Map<string, string>();
  return {
    seen,
    take(request, response) {
      if (get("/v1/companies")(request) && response.status === 200) {
        const first = JSON.parse(response.body).companies?.[0]?.id;
        if (typeof first === "string") seen.set(request.headers["x-api-key"] ?? "", first);
      }
    },
  };
}

/** The event types a full run against the sandbox triggers (every one of the contract's webhooks). */
export const ALL_EVENTS = [
  "company.kyc_link.issued",
  "company.kyc_status_changed",
  "company.onboarding_status_changed",
  "company.kyb_status_changed",
  "payment_route.created",
  "payment_route.transaction.created",
];

export const FIXTURES: Record<VerifyCheckId, readonly Fixture[]> = {
  not_a_server_error: [
    {
      name: "listCards crashes on a bad query value (500)",
      fault: () => ({
        response(request, response) {
          if (get("/v1/cards")(request) && response.status === 422) problem(response, 500);
        },
      }),
      also: ["negative_data_rejection"],
      fires: ["listCards"],
    },
  ],
  status_code_conformance: [
    {
      name: "203 for the BINs",
      fault: () => ({
        response(request, response) {
          if (get("/v1/card-bins")(request) && response.status === 200) response.status = 203;
        },
      }),
      fires: ["listCardBins"],
      message: /status 203 is not declared for listCardBins/,
    },
  ],
  content_type_conformance: [
    {
      name: "a card holder as text/plain",
      fault: () => ({
        response(request, response) {
          if (request.method === "GET" && pathOf(request).startsWith("/v1/card-holders/") && response.status === 200)
            response.headers["content-type"] = "text/plain";
        },
      }),
      fires: ["getCardHolder"],
    },
  ],
  response_schema_conformance: [
    {
      name: "a BIN's fee as a string",
      fault: () => ({
        response(request, response) {
          if (get("/v1/card-bins")(request) && response.status === 200)
            editJson(response, (body) => {
              body.cardBins[0].fee = "1.5";
            });
        },
      }),
      fires: ["listCardBins"],
      message: /"1.5" \(a string\); allowed: a number/,
    },
    {
      name: "listCompanies answers ids that break the ULID pattern",
      fault: () => ({
        response(request, response) {
          if (get("/v1/companies")(request) && response.status === 200)
            editJson(response, (body) => {
              for (const company of body.companies) company.id = "not-a-ulid";
            });
        },
      }),
      fires: ["listCompanies"],
    },
  ],
  response_headers_conformance: [
    {
      name: "a response header the contract declares and the implementation leaves out",
      fault: () => ({}),
      options: {
        document: (() => {
          const document = JSON.parse(readFileSync("generated/openapi.json", "utf8"));
          document.paths["/v1/card-bins"].get.responses["200"].headers = {
            "X-Request-Id": { required: true, schema: { type: "string", minLength: 8 } },
          };
          return document;
        })(),
      },
      fires: ["listCardBins"],
      message: /the response header X-Request-Id is required/,
    },
  ],
  positive_data_acceptance: [
    {
      name: "the BINs refused with 422 for a request that conforms",
      fault: () => ({
        response(request, response) {
          if (get("/v1/card-bins")(request) && response.status === 200) problem(response, 422);
        },
      }),
      fires: ["listCardBins"],
      message: /a request that conforms to the contract .* was refused with 422/,
    },
  ],
  negative_data_rejection: [
    {
      name: "a KYB profile that breaks the contract answered 201",
      fault: () => ({
        response(request, response) {
          if (request.method === "POST" && pathOf(request) === "/v1/kyb-profiles" && response.status >= 400) {
            response.status = 201;
            response.headers["content-type"] = "application/json";
            response.body = '{"status":"SUBMITTED"}';
          }
        },
      }),
      options: WRITES,
      fires: ["submitKybProfile"],
    },
    {
      name: "invalid input on a known company answered 404",
      fault: () => ({
        response(request, response) {
          if (get("/v1/cards")(request) && response.status === 422) problem(response, 404);
        },
      }),
      fires: ["listCards"],
      message: /was answered 404, but company \w{26} exists .*: refused for the wrong reason/,
    },
    {
      name: "invalid spend settings on a known card answered 404",
      fault: () => ({
        response(request, response) {
          if (request.method === "PATCH" && /^\/v1\/cards\/[^/]+\/spend-settings$/.test(pathOf(request)))
            if (response.status === 422 || response.status === 400 || response.status === 415) problem(response, 404);
        },
      }),
      options: WRITES,
      fires: ["updateCardSpendSettings"],
      message: /card \w{26}.* exists/,
    },
    TRUNCATED_CARD_HOLDER,
  ],
  missing_required_header: [
    {
      name: "a missing X-Company-Id ignored: the account's first company assumed",
      fault: () => {
        const companies = companiesSeen();
        return {
          request(request) {
            const scoped = pathOf(request).startsWith("/v1/") && !pathOf(request).startsWith("/v1/companies");
            const first = companies.seen.get(request.headers["x-api-key"] ?? "");
            if (scoped && request.headers["x-company-id"] === undefined && first)
              request.headers["x-company-id"] = first;
          },
          response: companies.take,
        };
      },
      fires: ["listCardBins", "listCards", "listSpendingAccountTransactions", "getCardHolder"],
      among: true,
    },
  ],
  ignored_auth: [
    {
      name: "the BINs answered without an X-API-Key",
      fault: () => ({
        request(request) {
          if (pathOf(request) === "/v1/card-bins" && request.headers["x-api-key"] === undefined)
            request.headers["x-api-key"] = "fault-open";
        },
      }),
      options: { apiKey: "fault-open" },
      fires: ["listCardBins"],
      message: /^a request without X-API-Key was answered 200: it was let through$/,
    },
  ],
  unsupported_method: [
    {
      name: "an undeclared method answered 404, not 405",
      fault: () => ({
        response(_request, response) {
          if (response.status === 405) problem(response, 404);
        },
      }),
      fires: ["submitKybProfile", "listCompanies/onboardCompany"],
      options: WRITES,
      among: true,
      message: /a method the path does not have, was answered 404, not 405/,
    },
    {
      name: "405 without an Allow header",
      fault: () => ({
        response(_request, response) {
          if (response.status === 405) delete response.headers.allow;
        },
      }),
      fires: ["submitKybProfile"],
      among: true,
      message: /405 without the Allow header/,
    },
  ],
  max_response_time: [
    {
      name: "the BINs take 600 ms, over --max-response-time 300",
      fault: () => ({
        async response(request) {
          if (get("/v1/card-bins")(request)) await new Promise((resolve) => setTimeout(resolve, 600));
        },
      }),
      options: { maxResponseTimeMs: 300 },
      // Another answer may be slow on a loaded machine too: the BINs must be among the findings.
      fires: ["listCardBins"],
      among: true,
    },
  ],
  ensure_resource_availability: [
    {
      name: "a created card is missing from listCards (the workflow card-issued reads it back)",
      fault: () => {
        const made = new Set<string>();
        return {
          response(request, response) {
            if (request.method === "POST" && pathOf(request) === "/v1/cards" && response.status === 201)
              made.add(JSON.parse(response.body).card.id);
            if (get("/v1/cards")(request) && response.status === 200)
              editJson(response, (body) => {
                body.cards = body.cards.filter((card: { id: string }) => !made.has(card.id));
              });
          },
        };
      },
      options: WRITES,
      fires: ["listCards"],
      message: /\$response\.body#\/cards\/0\/id == \$steps\.createCard\.outputs\.cardId did not hold \(answered 200\)/,
    },
    {
      name: "a wallet address opened again comes back different",
      fault: () => ({
        response(request, response) {
          if (request.method === "POST" && /^\/v1\/wallets\/[^/]+\/addresses$/.test(pathOf(request)))
            if (response.status === 200)
              editJson(response, (body) => {
                body.address.address = `${body.address.address.slice(0, -4)}beef`;
              });
        },
      }),
      options: WRITES,
      fires: ["openWalletAddress"],
      message: /\$response\.body#\/address\/address == \$steps\.openAddress\.outputs\.address did not hold/,
    },
  ],
  workflow_success_criteria: [
    {
      name: "a new Swap company's verification answered as already approved (onboard-swap-company: not_started)",
      fault: () => ({
        response(request, response) {
          if (request.method === "POST" && pathOf(request) === "/v1/companies" && response.status === 201)
            editJson(response, (body) => {
              if (body.company?.swap) body.company.swap.kycStatus = "approved";
            });
        },
      }),
      options: WRITES,
      fires: ["onboardCompany"],
      message: /^\$response\.body#\/company\/swap\/kycStatus == 'not_started' did not hold \(answered 201\)/,
    },
    {
      name: "a new card answered Active while it is issued (card-issued: Creating)",
      fault: () => ({
        response(request, response) {
          if (request.method === "POST" && pathOf(request) === "/v1/cards" && response.status === 201)
            editJson(response, (body) => {
              body.card.status = "Active";
            });
        },
      }),
      options: WRITES,
      fires: ["createCard"],
      message: /card\/status == 'Creating' did not hold/,
    },
  ],
  account_isolation: [
    {
      name: "every key served as one account",
      fault: () => ({
        request(request) {
          const key = request.headers["x-api-key"];
          if (key?.endsWith("-b")) request.headers["x-api-key"] = key.replace(/-b$/, "-a");
        },
      }),
      options: TWO(),
      // Not listCompanies: the examples phase's first account lists only the contract examples' company, which
      // every sandbox account holds (seeded), so another key seeing it proves nothing.
      fires: ["getCardHolder"],
      among: true,
    },
    {
      name: "a card holder readable by another account through its id alone",
      fault: () => ({
        request(request) {
          const key = request.headers["x-api-key"];
          if (key?.endsWith("-b") && pathOf(request).startsWith("/v1/card-holders/"))
            request.headers["x-api-key"] = key.replace(/-b$/, "-a");
        },
      }),
      options: TWO(),
      fires: ["getCardHolder"],
      message: /named cardHolderId \w{26}, .*not 403 or 404|holds \w{26}, an object of the first account/,
    },
    {
      name: "the first account's events also delivered to the other account",
      fault: webhookRelay((event, account, _secrets, sign) => {
        const raw = JSON.stringify(event);
        const out: Relayed[] = [{ to: account, raw, signature: sign(raw, account) }];
        if (account === "main") out.push({ to: "other", raw, signature: sign(raw, "other") });
        return out;
      }),
      options: TWO(WRITES),
      fires: ALL_EVENTS,
      message: /the other account's receiver got an event naming/,
    },
  ],
  webhook_signature: [
    {
      name: "the first account's deliveries signed with the other account's secret",
      fault: webhookRelay((event, account, _secrets, sign) => {
        const raw = JSON.stringify(event);
        return [{ to: account, raw, signature: sign(raw, account === "main" ? "other" : "main") }];
      }),
      options: TWO(WRITES),
      fires: ALL_EVENTS,
      message: /under the (other|main) account's signing secret, not the (main|other) account's/,
    },
    {
      name: "a redelivery with a bad signature (the first copy good)",
      fault: webhookRelay((event, account, _secrets, sign) => {
        const raw = JSON.stringify(event);
        return [
          { to: account, raw, signature: sign(raw, account) },
          { to: account, raw, signature: "0".repeat(64) },
        ];
      }),
      options: WRITES,
      fires: ALL_EVENTS,
    },
  ],
  webhook_content_type: [
    {
      name: "deliveries sent as text/plain",
      fault: webhookRelay((event, account, _secrets, sign) => {
        const raw = JSON.stringify(event);
        return [{ to: account, raw, signature: sign(raw, account), contentType: "text/plain" }];
      }),
      options: WRITES,
      fires: ALL_EVENTS,
      message: /Content-Type text\/plain/,
    },
  ],
  webhook_event_type: [
    {
      name: "a route's creation announced under a type the contract does not name",
      fault: relayEdited((event) => {
        if (event.type === "payment_route.created") event.type = "payment_route.opened";
      }),
      options: WRITES,
      fires: ["payment_route.opened"],
    },
  ],
  webhook_schema_conformance: [
    {
      name: "a KYC status the contract does not name",
      fault: relayEdited((event) => {
        if (event.type === "company.kyc_status_changed") event.payload.kycStatus = "almost_approved";
      }),
      options: WRITES,
      fires: ["company.kyc_status_changed"],
    },
  ],
  webhook_delivered: [
    {
      name: "the KYC link is never announced",
      fault: webhookRelay((event, account, _secrets, sign) => {
        if (event.type === "company.kyc_link.issued") return [];
        const raw = JSON.stringify(event);
        return [{ to: account, raw, signature: sign(raw, account) }];
      }),
      options: WRITES,
      fires: ["company.kyc_link.issued"],
      message: /no company.kyc_link.issued for company \w{26} arrived/,
    },
  ],
};

/** Implementations that keep to the contract where the sandbox picks otherwise: every check stays quiet. */
export const GOOD: readonly { name: string; fault: Fault }[] = [
  { name: "the sandbox itself", fault: {} },
  {
    name: "a missing key answered 400 (the API description does not show the status)",
    fault: {
      async intercept(request) {
        if (request.headers["x-api-key"] !== undefined || pathOf(request).startsWith("/_sandbox/")) return undefined;
        return {
          status: 400,
          headers: { "content-type": "application/problem+json" },
          body: '{"title":"X-API-Key is required"}',
        };
      },
    },
  },
];
