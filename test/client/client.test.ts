import createClient from "openapi-fetch";
import { describe, expect, test } from "vitest";
import { createPartnerClient, ENVIRONMENTS, InvalidInputError, isUlid } from "../../src/index.ts";
import { API_KEY, BASE_URL, CARD, COMPANY, json, recordingFetch, testClient } from "./helpers.ts";

describe("createPartnerClient", () => {
  test("sends X-API-Key on every request, to baseUrl + path", async () => {
    const { client, sent } = testClient(() => json({ companies: [] }));
    const { data } = await client.GET("/v1/companies");
    await client.GET("/transactions/{transactionId}", { params: { path: { transactionId: CARD } } });
    expect(data).toEqual({ companies: [] });
    expect(sent.map((s) => s.url)).toEqual([`${BASE_URL}/v1/companies`, `${BASE_URL}/transactions/${CARD}`]);
    expect(sent.every((s) => s.headers.get("X-API-Key") === API_KEY)).toBe(true);
    expect(sent.every((s) => !s.headers.has("X-Company-Id"))).toBe(true);
  });

  test("forCompany sends X-Company-Id on company-scope operations only", async () => {
    const { company, sent } = testClient();
    await company.GET("/v1/card-bins");
    await company.POST("/v1/cards", {
      body: { cardHolderId: CARD, name: "Travel", category: "TravelExpenses", bin: "489514" },
    });
    await company.GET("/v1/companies");
    expect(sent.map((s) => [s.method, s.path, s.headers.get("X-Company-Id")])).toEqual([
      ["GET", "/api/v1/card-bins", COMPANY],
      ["POST", "/api/v1/cards", COMPANY],
      ["GET", "/api/v1/companies", null],
    ]);
    expect(company.companyId).toBe(COMPANY);
  });

  test("a no-company client sends the header the caller passes", async () => {
    const { client, sent } = testClient();
    await client.GET("/v1/card-bins", { params: { header: { "X-Company-Id": COMPANY } } });
    expect(sent[0]!.headers.get("X-Company-Id")).toBe(COMPANY);
  });

  test("companyId in the options returns a company client", async () => {
    const { fetch, sent } = recordingFetch();
    const company = createPartnerClient({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, companyId: COMPANY });
    await company.GET("/v1/cards");
    expect(sent[0]!.headers.get("X-Company-Id")).toBe(COMPANY);
    const other = company.forCompany("01JD8XB2C4D6E8F0G2H4J6K8M0");
    await other.GET("/v1/cards");
    expect(sent[1]!.headers.get("X-Company-Id")).toBe("01JD8XB2C4D6E8F0G2H4J6K8M0");
  });

  test("bodies are sent as JSON, intact", async () => {
    const { company, sent } = testClient(() => json({ address: { address: "T9y", chain: "TRX" } }, 201));
    const body = { chain: "TRX" as const };
    const { data } = await company.POST("/v1/wallets/{walletId}/addresses", {
      params: { path: { walletId: "wallet-usdt-main" } },
      body,
    });
    expect(data).toEqual({ address: { address: "T9y", chain: "TRX" } });
    expect(sent[0]!.headers.get("Content-Type")).toBe("application/json");
    expect(JSON.parse(sent[0]!.body)).toEqual(body);
  });

  test("middleware added with use() runs", async () => {
    const { client, sent } = testClient();
    client.use({ onRequest: ({ request }) => void request.headers.set("X-Trace", "t-1") });
    await client.GET("/v1/companies");
    expect(sent[0]!.headers.get("X-Trace")).toBe("t-1");
  });

  test("every member of openapi-fetch's client is there, and every method goes through the client's transport", async () => {
    const { company, sent } = testClient(() => json({}, 503));
    const members = Object.keys(createClient({ baseUrl: BASE_URL }));
    expect(members.length).toBeGreaterThan(0);
    for (const member of members)
      expect(typeof (company as unknown as Record<string, unknown>)[member]).toBe("function");
    // Through the transport: the company header, and retries for a safe operation.
    await company.request("get", "/v1/card-bins");
    expect(sent).toHaveLength(3);
    expect(sent.every((s) => s.headers.get("X-Company-Id") === COMPANY)).toBe(true);
  });

  test("request() takes the method as a string", async () => {
    const { company, sent } = testClient();
    await company.request("get", "/v1/card-bins");
    expect(sent[0]!.method).toBe("GET");
    expect(() => company.request("FETCH" as "get", "/v1/card-bins")).toThrow(/method must be one of/);
  });
});

describe("options are checked", () => {
  const fetch = recordingFetch().fetch;
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["apiKey", { baseUrl: BASE_URL }, /apiKey must be the partner API key: a non-empty string/],
    ["apiKey", { apiKey: "", baseUrl: BASE_URL }, /apiKey must be the partner API key: a non-empty string/],
    ["apiKey", { apiKey: `${API_KEY}\n`, baseUrl: BASE_URL }, /apiKey must be .* without line breaks/],
    ["baseUrl", { apiKey: API_KEY }, /pass baseUrl .* or environment/],
    ["baseUrl", { apiKey: API_KEY, baseUrl: "api.example.com" }, /baseUrl must be an absolute http\(s\) URL/],
    [
      "baseUrl",
      { apiKey: API_KEY, baseUrl: "ftp://api.example.com" },
      /baseUrl must be an absolute http\(s\) URL .*got "ftp:/,
    ],
    ["baseUrl", { apiKey: API_KEY, baseUrl: BASE_URL, environment: "sandbox" }, /either baseUrl or environment/],
    ["environment", { apiKey: API_KEY, environment: "staging" }, /environment must be one of "production", "sandbox"/],
    ["companyId", { apiKey: API_KEY, baseUrl: BASE_URL, companyId: "acme" }, /companyId must be a ULID .*got "acme"/],
    ["timeoutMs", { apiKey: API_KEY, baseUrl: BASE_URL, timeoutMs: 0 }, /timeoutMs must be a whole number/],
    [
      "retry.attempts",
      { apiKey: API_KEY, baseUrl: BASE_URL, retry: { attempts: 0 } },
      /retry.attempts must be a whole number from 1 to 10/,
    ],
    ["retry", { apiKey: API_KEY, baseUrl: BASE_URL, retry: { tries: 2 } }, /unknown option "tries"/],
    ["fetch", { apiKey: API_KEY, baseUrl: BASE_URL, fetch: "no" }, /fetch must be a function/],
    ["apikey", { apikey: API_KEY, baseUrl: BASE_URL }, /unknown option "apikey"/],
  ];
  test.each(cases)("%s: %j", (input, options, message) => {
    let thrown: unknown;
    try {
      createPartnerClient({ fetch, ...options } as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidInputError);
    expect((thrown as InvalidInputError).input).toBe(input);
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).not.toContain(API_KEY);
  });

  test("an environment whose server is a .invalid placeholder is refused, pointing at baseUrl", () => {
    for (const environment of ["production", "sandbox"] as const) {
      expect(() => createPartnerClient({ apiKey: API_KEY, environment, fetch })).toThrow(
        new RegExp(
          `environment "${environment}" resolves to https://${environment}\\.partner-api\\.invalid, a placeholder.*Pass baseUrl`,
        ),
      );
    }
  });

  test("forCompany checks the company id", () => {
    const { client } = testClient();
    // Either letter case is a ULID (the standard reads both); a letter outside Crockford base32 is not.
    expect(() => client.forCompany("01jd8x2k7p3m9q4r6s8t0v2w4x")).not.toThrow();
    expect(() => client.forCompany("01jd8x2k7p3m9q4r6s8t0v2w4u")).toThrow(/companyId must be a ULID/);
    expect(() => client.forCompany("")).toThrow(/companyId must be a ULID .*got ""/);
  });
});

describe("path parameters are checked before anything is sent", () => {
  const bad: [string, unknown, RegExp][] = [
    ["empty", "", /got ""/],
    ["traversal", "../x", /got "\.\.\/x"/],
    ["lower-case garbage", "01jd8x9n4e2r6t8v0w2y4z6a8!", /got "01jd8x9n4e2r6t8v0w2y4z6a8!"/],
    ["too short", "01JD8X9N4E2R6T8V0W2Y4Z6A8", /got "01JD8X9N4E2R6T8V0W2Y4Z6A8"/],
    ["a letter outside Crockford base32", "01JD8X9N4E2R6T8V0W2Y4Z6A8U", /got "01JD8X9N4E2R6T8V0W2Y4Z6A8U"/],
    ["missing", undefined, /got nothing/],
    ["not a string", 42, /got number/],
  ];
  test.each(bad)("cardId %s", async (_, cardId, got) => {
    const { company, sent } = testClient();
    const call = company.PATCH("/v1/cards/{cardId}/unfreeze", {
      params: { path: { cardId: cardId as string } },
      body: {},
    });
    await expect(call).rejects.toThrow(InvalidInputError);
    await expect(call).rejects.toThrow(
      /unfreezeCard \(PATCH \/v1\/cards\/\{cardId\}\/unfreeze\): path parameter cardId must be a ULID \(26 characters of Crockford base32/,
    );
    await expect(call).rejects.toThrow(got);
    expect(sent).toHaveLength(0);
  });

  test("every ULID path parameter of the contract is checked", async () => {
    const { client, company, sent } = testClient();
    const calls: [string, Promise<unknown>][] = [
      ["transactionId", client.GET("/transactions/{transactionId}", { params: { path: { transactionId: "x" } } })],
      ["cardHolderId", company.GET("/v1/card-holders/{cardHolderId}", { params: { path: { cardHolderId: "x" } } })],
      ["routeId", company.GET("/v1/payment-routes/{routeId}", { params: { path: { routeId: "x" } } })],
      [
        "routeId",
        company.GET("/v1/payment-routes/{routeId}/payment-instructions", { params: { path: { routeId: "x" } } }),
      ],
      ["cardId", company.POST("/v1/cards/{cardId}/details", { params: { path: { cardId: "x" } } })],
    ];
    for (const [name, call] of calls) await expect(call).rejects.toMatchObject({ input: name });
    expect(sent).toHaveLength(0);
  });

  test("a wrong X-Company-Id header on a no-company client is caught", async () => {
    const { client, sent } = testClient();
    await expect(client.GET("/v1/card-bins", { params: { header: { "X-Company-Id": "acme" } } })).rejects.toThrow(
      /header X-Company-Id must be a ULID/,
    );
    expect(sent).toHaveLength(0);
  });

  test("a non-ULID path value (walletId) is URL-encoded; dot segments are refused", async () => {
    const { company, sent } = testClient();
    await company.POST("/v1/wallets/{walletId}/addresses", { params: { path: { walletId: "a/b?c#d e%" } }, body: {} });
    expect(sent[0]!.url).toBe(`${BASE_URL}/v1/wallets/a%2Fb%3Fc%23d%20e%25/addresses`);
    for (const walletId of ["", ".", ".."]) {
      await expect(
        company.POST("/v1/wallets/{walletId}/addresses", { params: { path: { walletId } }, body: {} }),
      ).rejects.toThrow(/path parameter walletId must be a non-empty string other than "\." and "\.\."/);
    }
    expect(sent).toHaveLength(1);
  });
});

describe("contract facts exposed to callers", () => {
  test("isUlid follows the contract's ULID pattern", () => {
    expect(isUlid(COMPANY)).toBe(true);
    expect(isUlid("81JD8X2K7P3M9Q4R6S8T0V2W4X")).toBe(false);
    // The ULID standard reads either case.
    expect(isUlid(COMPANY.toLowerCase())).toBe(true);
    expect(isUlid(`${COMPANY.slice(0, -1)}u`)).toBe(false);
    expect(isUlid(undefined)).toBe(false);
  });

  test("ENVIRONMENTS are the contract's servers", () => {
    expect(ENVIRONMENTS).toEqual(["production", "sandbox"]);
  });
});
