/**
 * Talking to a sandbox in tests: `request` sends one call and checks its answer against the contract it
 * belongs to (partner or control) with the repository's own Ajv 2020-12 validator, so every test that
 * calls the sandbox is also a contract test of the sandbox's answers.
 */
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { SandboxClock } from "../../devkit/src/sandbox/clock.ts";
import { type EngineSettings, SandboxEngine } from "../../devkit/src/sandbox/engine.ts";
import { engineParts, type Task } from "../../devkit/src/sandbox/flows/index.ts";
import { FORMAT_4 } from "../../devkit/src/sandbox/store/format4.ts";
import { MemoryStore, type Store } from "../../devkit/src/sandbox/store/tables.ts";
import { requestExamples } from "../../generated/examples.ts";
import { sandboxBundleJsonPath } from "../../scripts/lib/paths.ts";
import { createValidator, listOperations, loadDocument, type Operation } from "../contract/support/contract.ts";

const partnerDocument = loadDocument();
const controlDocument = JSON.parse(readFileSync(sandboxBundleJsonPath, "utf8"));
const contracts = [
  { operations: listOperations(partnerDocument), validator: createValidator(partnerDocument) },
  { operations: listOperations(controlDocument), validator: createValidator(controlDocument) },
];

function operationFor(
  method: string,
  path: string,
): { operation: Operation; validator: (typeof contracts)[number]["validator"] } | undefined {
  for (const { operations, validator } of contracts) {
    for (const operation of operations) {
      if (operation.method !== method.toLowerCase()) continue;
      const pattern = new RegExp(`^${operation.path.replace(/\{[^}]+\}/g, "[^/]+")}$`);
      if (pattern.test(path)) return { operation, validator };
    }
  }
  return undefined;
}

export interface Answer {
  status: number;
  contentType: string;
  body: any;
  text: string;
}

export interface RequestOptions {
  apiKey?: string;
  companyId?: string;
  body?: unknown;
  rawBody?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** One call; a status the contract declares for the operation must come with a body its schema accepts. */
export async function request(
  baseUrl: string,
  method: string,
  pathAndQuery: string,
  options: RequestOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined) headers["X-API-Key"] = options.apiKey;
  if (options.companyId !== undefined) headers["X-Company-Id"] = options.companyId;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers["content-type"] = options.contentType ?? "application/json";
  const response = await fetch(baseUrl + pathAndQuery, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  const contentType = response.headers.get("content-type") ?? "";
  const parsed = contentType.includes("json") && text !== "" ? JSON.parse(text) : text;
  const found = operationFor(method, new URL(pathAndQuery, "http://x").pathname);
  const declared = found?.operation.responses.get(String(response.status));
  if (found && declared && declared.length > 0) {
    const content = declared.find((c) => contentType.startsWith(c.mediaType));
    expect(
      content,
      `${method} ${pathAndQuery} answered ${response.status} as ${contentType}, declared ${declared.map((c) => c.mediaType).join(", ")}`,
    ).toBeDefined();
    if (content?.mediaType.includes("json")) {
      const errors = found.validator.errors(content.schemaPointer, parsed);
      expect(errors, `${method} ${pathAndQuery} ${response.status}: ${text.slice(0, 500)}`).toEqual([]);
    }
  }
  return { status: response.status, contentType, body: parsed, text };
}

/** A client bound to one sandbox and one API key. */
export function clientFor(baseUrl: string, apiKey: string) {
  return {
    get: (path: string, options: Omit<RequestOptions, "apiKey"> = {}) =>
      request(baseUrl, "GET", path, { apiKey, ...options }),
    post: (path: string, body?: unknown, options: Omit<RequestOptions, "apiKey" | "body"> = {}) =>
      request(baseUrl, "POST", path, { apiKey, ...(body !== undefined ? { body } : {}), ...options }),
    patch: (path: string, body?: unknown, options: Omit<RequestOptions, "apiKey" | "body"> = {}) =>
      request(baseUrl, "PATCH", path, { apiKey, ...(body !== undefined ? { body } : {}), ...options }),
    delete: (path: string) => request(baseUrl, "DELETE", path, { apiKey }),
  };
}

/** A company to onboard: the contract's own example of onboardCompany's body (Card only, no redirectUri). */
export const ONBOARD_BODY = requestExamples.onboardCompany.cardOnlyCompany;

/** A KYB profile the contract takes (submitKybProfile). */
export const KYB_PROFILE_BODY = {
  companyName: "Sandbox Demo Company",
  industry: "541511",
  registrationCountry: "US",
  registrationNumber: "123",
  uboFirstName: "A",
  uboLastName: "B",
  uboGender: "MALE",
  uboCountryCode: "US",
  uboIdType: "PASSPORT",
  uboIdNumber: "X1",
  uboDob: "1990-01-01",
};

/**
 * A company cleared to move money: onboarded with Swap, its verification approved and its terms accepted, as
 * payment routes and deposits require.
 */
export async function approvedCompany(client: ReturnType<typeof clientFor>): Promise<string> {
  const onboarded = await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
  const companyId = onboarded.body.company.id as string;
  expect((await client.post(`/_sandbox/companies/${companyId}/kyc-status`, { kycStatus: "approved" })).status).toBe(
    200,
  );
  expect((await client.post(`/_sandbox/companies/${companyId}/terms-acceptance`, { tosAccepted: true })).status).toBe(
    200,
  );
  return companyId;
}

/** The account's seeded company and its seeded card holder and wallet. */
export async function seededCompany(client: ReturnType<typeof clientFor>) {
  const companies = await client.get("/v1/companies");
  const companyId = companies.body.companies[0].id as string;
  const holders = await client.get(`/_sandbox/companies/${companyId}/card-holders`);
  const wallets = await client.get(`/_sandbox/companies/${companyId}/wallets`);
  return {
    companyId,
    cardHolderId: holders.body.cardHolders[0].id as string,
    walletId: wallets.body.wallets[0].id as string,
  };
}

/** A new card of the account's seeded company (201, still Creating), with the company and card holder it is for. */
export async function seededCard(client: ReturnType<typeof clientFor>, name = "C") {
  const { companyId, cardHolderId } = await seededCompany(client);
  const answer = await client.post(
    "/v1/cards",
    { cardHolderId, name, category: "Other", bin: "45671234" },
    { companyId },
  );
  expect(answer.status).toBe(201);
  return { companyId, cardHolderId, cardId: answer.body.card.id as string, card: answer.body.card };
}

/** An engine over the flows without a server: a memory store (or the one given), a clock frozen at `startMs`. */
export function memoryEngine(
  options: { store?: Store; startMs?: number; settings?: Partial<EngineSettings> } = {},
): SandboxEngine<Task> {
  const clock = new SandboxClock(options.startMs ?? Date.UTC(2030, 0, 1), 1);
  clock.freeze();
  return new SandboxEngine<Task>(
    options.store ?? new MemoryStore(1),
    clock,
    { cardIssuingSeconds: 10, kybReviewSeconds: 60, baseUrl: () => "http://sandbox.invalid", ...options.settings },
    engineParts,
  );
}

/** A state file of format version 4 (the release before SQLite, migrated at start) with no records. */
export function emptyStateFile(seed: number, clock: string) {
  return { format: FORMAT_4, version: 4, seed, clock, nextTaskId: 1, journal: 1, tables: {} };
}
