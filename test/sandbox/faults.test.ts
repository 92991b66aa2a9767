/**
 * Faults, driven through the real client: a 503 retried into a 200 on an operation safe to repeat, a write
 * not retried, 429 with Retry-After, a delay past the client's timeout, a dropped connection, a body cut
 * short; their scope (one account or the whole sandbox), the seeded chance, faults given at start, and the
 * control calls that list and remove them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, sandboxRouter, startSandbox } from "../../devkit/src/sandbox/index.ts";
import {
  FaultBook,
  MAX_FAULT_BODY_BYTES,
  MAX_FAULTS,
  MAX_FAULTS_PER_ACCOUNT,
} from "../../devkit/src/sandbox/testmode/faults.ts";
import { ApiError, createPartnerClient, RequestTimeoutError } from "../../src/index.ts";
import { arazzoDocument, workflow } from "../helpers/arazzo.ts";
import { clientFor, ONBOARD_BODY, request, seededCompany } from "./support.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 31 });
});
afterAll(() => sandbox.stop());

/** The partner client of an account, retrying fast so no test waits on backoff. */
function partner(apiKey: string, options: { timeoutMs?: number; retry?: false } = {}) {
  return createPartnerClient({
    apiKey,
    baseUrl: sandbox.url,
    retry: options.retry ?? { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
}

async function addFault(apiKey: string | undefined, body: Record<string, unknown>) {
  const answer = await request(sandbox.url, "POST", "/_sandbox/faults", {
    ...(apiKey !== undefined ? { apiKey } : {}),
    body,
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.body as { id: string; scope: string; remaining?: number; hits: number };
}

/** The account's logged calls of one operation, oldest first: status and the fault that struck. */
async function calls(apiKey: string, operationId: string) {
  const { data } = await sandbox
    .controlFor(apiKey, { throwOnError: true })
    .GET("/_sandbox/requests", { params: { query: { operationId } } });
  return data.requests.reverse().map((entry) => ({ status: entry.status, fault: entry.fault?.id ?? null }));
}

describe("a status", () => {
  it("503 once on a safe operation: the client retries and gets the 200; the log shows both", async () => {
    const key = "fault-503";
    const { companyId } = await seededCompany(clientFor(sandbox.url, key));
    const fault = await addFault(key, { operationId: "listCardBins", status: 503, times: 1 });
    expect(fault).toMatchObject({ scope: "account", remaining: 1, hits: 0 });
    const { data, response } = await partner(key).forCompany(companyId).GET("/v1/card-bins");
    expect(response.status).toBe(200);
    expect(data?.cardBins?.length).toBeGreaterThan(0);
    expect(await calls(key, "listCardBins")).toEqual([
      { status: 503, fault: fault.id },
      { status: 200, fault: null },
    ]);
    // Used up: it is gone.
    const listed = await clientFor(sandbox.url, key).get("/_sandbox/faults");
    expect(listed.body.faults.map((f: { id: string }) => f.id)).not.toContain(fault.id);
  });

  it("on a write the client does not retry: the caller gets ApiError with the fault's status and body", async () => {
    const key = "fault-write";
    await addFault(key, { operationId: "onboardCompany", status: 500, body: { message: "try later" }, times: 1 });
    const client = createPartnerClient({ apiKey: key, baseUrl: sandbox.url, throwOnError: true });
    const failure = await client
      .POST("/v1/companies", { body: { ...ONBOARD_BODY, products: ["Card"] } })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 500, body: { message: "try later" }, operationId: "onboardCompany" });
    // The operation did not run: only the seeded company is there.
    const companies = await clientFor(sandbox.url, key).get("/v1/companies");
    expect(companies.body.companies).toHaveLength(1);
    expect(await calls(key, "onboardCompany")).toHaveLength(1);
  });

  it("429 with Retry-After: the header is sent, the default body is a problem naming the fault", async () => {
    const key = "fault-429";
    const fault = await addFault(key, { operationId: "listCompanies", status: 429, retryAfter: 0, times: 2 });
    const raw = await fetch(`${sandbox.url}/v1/companies`, { headers: { "X-API-Key": key } });
    expect(raw.status).toBe(429);
    expect(raw.headers.get("retry-after")).toBe("0");
    expect(raw.headers.get("content-type")).toBe("application/problem+json");
    expect(await raw.json()).toMatchObject({ status: 429, detail: `fault ${fault.id} answered 429 to listCompanies` });
    // The second strike is retried by the client (Retry-After 0), then the call goes through.
    const { response } = await partner(key).GET("/v1/companies");
    expect(response.status).toBe(200);
    expect((await calls(key, "listCompanies")).map((c) => c.status)).toEqual([429, 429, 200]);
  });
});

describe("a delay, a dropped connection, a malformed body", () => {
  it("a delay past the client's timeout raises RequestTimeoutError", async () => {
    const key = "fault-delay";
    await addFault(key, { operationId: "listCompanies", delayMs: 5_000, times: 1 });
    const failure = await partner(key, { timeoutMs: 50, retry: false })
      .GET("/v1/companies")
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RequestTimeoutError);
    // The client left while the fault held the call: logged unanswered, with the delay it was given.
    await expect.poll(async () => (await calls(key, "listCompanies")).length).toBe(1);
    const { data } = await sandbox.controlFor(key, { throwOnError: true }).GET("/_sandbox/requests");
    expect(data.requests[0]).toMatchObject({ status: null, fault: { delayMs: 5_000 } });
  });

  it("a delay alone lets the operation answer as usual once waited", async () => {
    const key = "fault-short-delay";
    await addFault(key, { operationId: "listCompanies", delayMs: 20, times: 1 });
    const { response } = await partner(key, { retry: false }).GET("/v1/companies");
    expect(response.status).toBe(200);
  });

  it("a dropped connection surfaces as a network error (TypeError from fetch) and nothing runs", async () => {
    const key = "fault-drop";
    await addFault(key, { method: "POST", path: "/v1/companies", drop: true, times: 1 });
    const failure = await partner(key, { retry: false })
      .POST("/v1/companies", { body: { ...ONBOARD_BODY, products: ["Card"] } })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect(String((failure as Error).message)).toMatch(/fetch failed/);
    expect((await clientFor(sandbox.url, key).get("/v1/companies")).body.companies).toHaveLength(1);
    expect(await calls(key, "onboardCompany")).toEqual([{ status: null, fault: expect.any(String) }]);
  });

  it("a dropped connection on a safe operation is retried by the client", async () => {
    const key = "fault-drop-retried";
    await addFault(key, { operationId: "listCompanies", drop: true, times: 1 });
    const { response } = await partner(key).GET("/v1/companies");
    expect(response.status).toBe(200);
  });

  it("a malformed body: the operation runs, the answer is not JSON, and the log says it broke the contract", async () => {
    const key = "fault-malformed";
    await addFault(key, { operationId: "onboardCompany", malformed: true, times: 1 });
    const failure = await partner(key)
      .POST("/v1/companies", { body: { ...ONBOARD_BODY, products: ["Card"] } })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SyntaxError);
    const companies = await clientFor(sandbox.url, key).get("/v1/companies");
    expect(companies.body.companies.map((c: { name: string }) => c.name)).toContain(ONBOARD_BODY.name);
    const { data } = await sandbox
      .controlFor(key, { throwOnError: true })
      .GET("/_sandbox/requests", { params: { query: { operationId: "onboardCompany" } } });
    expect(data.requests[0]).toMatchObject({
      status: 201,
      fault: { malformed: true },
      contract: { valid: false, issues: [{ message: "the body is not valid JSON" }] },
    });
  });
});

describe("scope, chance and bookkeeping", () => {
  it("an account's fault spares other accounts; one without a key strikes every account", async () => {
    await addFault("scope-a", { operationId: "listCompanies", status: 503 });
    expect((await clientFor(sandbox.url, "scope-b").get("/v1/companies")).status).toBe(200);
    expect((await clientFor(sandbox.url, "scope-a").get("/v1/companies")).status).toBe(503);
    const global = await addFault(undefined, { operationId: "listCardBins", status: 502 });
    expect(global.scope).toBe("sandbox");
    const { companyId } = await seededCompany(clientFor(sandbox.url, "scope-b"));
    expect((await clientFor(sandbox.url, "scope-b").get("/v1/card-bins", { companyId })).status).toBe(502);
    // What each caller sees: the account its own and the sandbox's; no key, every fault.
    const seenByA = (await clientFor(sandbox.url, "scope-a").get("/_sandbox/faults")).body.faults;
    const seenByB = (await clientFor(sandbox.url, "scope-b").get("/_sandbox/faults")).body.faults;
    expect(seenByA.map((f: { scope: string }) => f.scope).sort()).toEqual(["account", "sandbox"]);
    expect(seenByB.map((f: { id: string }) => f.id)).toEqual([global.id]);
    expect((await request(sandbox.url, "GET", "/_sandbox/faults")).body.faults.length).toBeGreaterThanOrEqual(2);
    // B cannot remove A's fault; A clears its own; the sandbox-wide one goes by id.
    expect((await clientFor(sandbox.url, "scope-b").delete(`/_sandbox/faults/${seenByA[0].id}`)).status).toBe(404);
    expect((await request(sandbox.url, "DELETE", "/_sandbox/faults", { apiKey: "scope-a" })).status).toBe(204);
    expect((await clientFor(sandbox.url, "scope-a").get("/v1/companies")).status).toBe(200);
    expect((await request(sandbox.url, "DELETE", `/_sandbox/faults/${global.id}`)).status).toBe(204);
    expect((await clientFor(sandbox.url, "scope-b").get("/v1/card-bins", { companyId })).status).toBe(200);
  });

  it("a probability strikes by the seeded draw: the same seed fails the same calls", async () => {
    const pattern = async () => {
      const fresh = await startSandbox({ port: 0, seed: 99 });
      try {
        const client = clientFor(fresh.url, "chance");
        const seeded = await client.post("/_sandbox/faults", {
          operationId: "listCompanies",
          status: 503,
          probability: 0.5,
        });
        expect(seeded.status).toBe(201);
        const statuses: number[] = [];
        for (let i = 0; i < 24; i++) statuses.push((await client.get("/v1/companies")).status);
        return statuses;
      } finally {
        await fresh.stop();
      }
    };
    const first = await pattern();
    expect(new Set(first)).toEqual(new Set([200, 503]));
    expect(await pattern()).toEqual(first);
  });

  it("refuses what cannot be a fault, naming the field", async () => {
    const refuse = async (body: unknown, message: RegExp) => {
      const answer = await request(sandbox.url, "POST", "/_sandbox/faults", { body });
      expect(answer.status).toBe(422);
      expect(answer.body.detail).toMatch(message);
    };
    await refuse(
      { operationId: "noSuchThing", status: 500 },
      /operationId "noSuchThing" is not an operation of the partner API/,
    );
    await refuse({ operationId: "advanceClock", status: 500 }, /faults apply to the partner API only/);
    await refuse({ path: "/v1/cards/{id}", status: 500 }, /path "\/v1\/cards\/\{id\}" is not a path template/);
    await refuse(
      { method: "DELETE", path: "/v1/cards", status: 500 },
      /no partner API operation matches DELETE \/v1\/cards/,
    );
    await refuse({ operationId: "listCards", status: 503, drop: true }, /status and drop exclude one another/);
    await refuse({ operationId: "listCards" }, /has none of status, delayMs, drop, malformed; allowed: at least one/);
    await refuse({ status: 503 }, /has none of operationId, path; allowed: at least one of them/);
    await refuse({ operationId: "listCards", drop: true, retryAfter: 5 }, /retryAfter/);
    await refuse({ operationId: "listCards", delayMs: 60_001 }, /delayMs got 60001; allowed: 60000 or less/);
  });

  it("faults given at start strike from the first call and come back after a reset; scenarios are never struck", async () => {
    const started = await startSandbox({ port: 0, seed: 5, faults: [{ operationId: "listCompanies", status: 503 }] });
    try {
      const client = clientFor(started.url, "start-faults");
      expect((await client.get("/v1/companies")).status).toBe(503);
      const ran = await client.post("/_sandbox/scenarios", {
        arazzo: arazzoDocument([
          workflow("companies", [
            {
              stepId: "companies",
              operationId: "$sourceDescriptions.partner.listCompanies",
              successCriteria: [{ condition: "$statusCode == 200" }],
            },
          ]),
        ]),
      });
      expect(ran.status, ran.text).toBe(200);
      // A header a partner's code could send does not pass for a scenario's call: it is struck like any call.
      const pretending = await client.get("/v1/companies", { headers: { "X-Sandbox-Scenario": "companies" } });
      expect(pretending.status).toBe(503);
      await client.delete(`/_sandbox/faults/${(await client.get("/_sandbox/faults")).body.faults[0].id}`);
      expect((await client.get("/v1/companies")).status).toBe(200);
      await client.post("/_sandbox/reset");
      expect((await client.get("/v1/companies")).status).toBe(503);
    } finally {
      await started.stop();
    }
    await expect(startSandbox({ port: 0, faults: [{ operationId: "listCompanies" }] as never })).rejects.toThrow(
      /startSandbox: faults\[0\] has none of status, delayMs, drop, malformed/,
    );
  });
});

describe("the fault book's bounds", () => {
  it("holds at most MAX_FAULTS faults, MAX_FAULTS_PER_ACCOUNT of one account, then names the limit", () => {
    const book = new FaultBook(1, sandboxRouter().operations, () => 0);
    for (let i = 0; i < MAX_FAULTS_PER_ACCOUNT; i++) book.add({ operationId: "listCards", status: 500 }, "acct_0");
    expect(() => book.add({ operationId: "listCards", status: 500 }, "acct_0")).toThrow(
      `account acct_0 holds ${MAX_FAULTS_PER_ACCOUNT} faults, the most one account may: remove some first`,
    );
    // Another account, and the sandbox-wide faults (no key), each have their own share.
    expect(book.add({ operationId: "listCards", status: 500 }, "acct_1").account).toBe("acct_1");
    for (let i = 0; i < MAX_FAULTS_PER_ACCOUNT; i++) book.add({ operationId: "listCards", status: 500 });
    expect(() => book.add({ operationId: "listCards", status: 500 })).toThrow(
      `the sandbox holds ${MAX_FAULTS_PER_ACCOUNT} sandbox-wide faults, the most one account may`,
    );
    for (let n = 2; book.list().length < MAX_FAULTS; n++)
      book.add({ operationId: "listCards", status: 500 }, `acct_${Math.floor(n / 50)}x`);
    expect(() => book.add({ operationId: "listCards", status: 500 }, "acct_new")).toThrow(
      `the sandbox holds ${MAX_FAULTS} faults, the most it takes: remove some first`,
    );
    book.clear();
    expect(book.add({ operationId: "listCards", status: 500 }).hits).toBe(0);
  });

  it("refuses a body over MAX_FAULT_BODY_BYTES as JSON, naming the limit", () => {
    const book = new FaultBook(1, sandboxRouter().operations, () => 0);
    const body = { detail: "x".repeat(MAX_FAULT_BODY_BYTES) };
    expect(() => book.add({ operationId: "listCards", status: 500, body })).toThrow(
      `body is ${MAX_FAULT_BODY_BYTES + 13} bytes as JSON; a fault's body may be at most ${MAX_FAULT_BODY_BYTES} bytes`,
    );
    expect(book.list()).toHaveLength(0);
    expect(book.add({ operationId: "listCards", status: 500, body: { detail: "x".repeat(60_000) } }).status).toBe(500);
  });
});
