import type { Client } from "openapi-fetch";
import { describe, expectTypeOf, test } from "vitest";
import type { components, paths } from "../../generated/schema.js";
import type { UnwrappedMembers, WrappedMember } from "../../src/client.ts";
import {
  type ApiError,
  type ApiErrorOf,
  type CompanyClient,
  createPartnerClient,
  type DeclaredErrorStatus,
  isApiError,
  type PartnerClient,
  paginate,
  unwrap,
} from "../../src/index.ts";

const fetch = async () => new Response("{}");
const root = createPartnerClient({ apiKey: "k", baseUrl: "http://127.0.0.1:1", fetch });
const company = root.forCompany("01JD8X2K7P3M9Q4R6S8T0V2W4X");
const cardId = "01JD8X9N4E2R6T8V0W2Y4Z6A8C";
const header = { "X-Company-Id": "01JD8X2K7P3M9Q4R6S8T0V2W4X" };

describe("client types", () => {
  test("createPartnerClient returns a company client when given companyId", () => {
    expectTypeOf(root).toEqualTypeOf<PartnerClient>();
    expectTypeOf(
      createPartnerClient({ apiKey: "k", baseUrl: "http://x", companyId: "01JD8X2K7P3M9Q4R6S8T0V2W4X" }),
    ).toEqualTypeOf<CompanyClient>();
    expectTypeOf(company).toEqualTypeOf<CompanyClient>();
  });

  test("results are typed by the path", async () => {
    const { data } = await company.GET("/v1/cards", { params: { query: { limit: 10 } } });
    expectTypeOf(data).toEqualTypeOf<components["schemas"]["ListCardsResponse"] | undefined>();
    const transaction = unwrap(
      await root.GET("/transactions/{transactionId}", { params: { path: { transactionId: cardId } } }),
    );
    expectTypeOf(transaction).toEqualTypeOf<components["schemas"]["GetTransactionResponse"]>();
  });

  test("an unknown path does not compile", () => {
    // @ts-expect-error: no such path in the contract
    void company.GET("/v1/card");
    // @ts-expect-error: /v1/cards has no DELETE
    void company.DELETE("/v1/cards");
  });

  test("a wrong enum value does not compile", () => {
    // @ts-expect-error: orderDirection is ASC or DESC
    void company.GET("/v1/card-spending-account/transactions", { params: { query: { orderDirection: "UP" } } });
    void company.POST("/v1/cards", {
      // @ts-expect-error: category is one of the contract's nine values
      body: { cardHolderId: cardId, name: "Travel", category: "Groceries", bin: "489514" },
    });
  });

  test("a company-scope operation without the company does not compile on a no-company client", () => {
    // @ts-expect-error: X-Company-Id is required on company-scope operations
    void root.GET("/v1/cards");
    // @ts-expect-error: X-Company-Id is required on company-scope operations
    void root.GET("/v1/card-bins", { params: {} });
    void root.GET("/v1/card-bins", { params: { header } });
    void root.GET("/v1/companies");
    void company.GET("/v1/card-bins");
  });

  test("required path parameters and bodies stay required on a company client", () => {
    // @ts-expect-error: cardId is required
    void company.PATCH("/v1/cards/{cardId}/unfreeze", { body: {} });
    // @ts-expect-error: the body is required
    void company.POST("/v1/kyb-profiles");
    void company.PATCH("/v1/cards/{cardId}/unfreeze", { params: { path: { cardId } }, body: {} });
  });

  test("paginate is typed by the path and the client", async () => {
    for await (const card of paginate(company, "/v1/cards", { maxItems: 5 })) {
      expectTypeOf(card).toEqualTypeOf<components["schemas"]["Card"]>();
    }
    for await (const entry of paginate(root, "/v1/card-spending-account/transactions", {
      params: { header, query: { type: "Debit" } },
    })) {
      expectTypeOf(entry).toEqualTypeOf<components["schemas"]["LedgerEntry"]>();
    }
    // @ts-expect-error: the no-company client must pass the company header
    paginate(root, "/v1/cards");
    // @ts-expect-error: /v1/card-bins does not page
    paginate(company, "/v1/card-bins");
  });
});

describe("the transport wrapper", () => {
  test("handles every member of openapi-fetch's client, so none can bypass the timeout and retries", () => {
    expectTypeOf<WrappedMember>().toEqualTypeOf<keyof Client<paths>>();
    expectTypeOf<UnwrappedMembers>().toBeNever();
    // A method a later openapi-fetch might add is not covered, and this comparison would say so.
    type LaterClient = Client<paths> & { QUERY: Client<paths>["GET"] };
    expectTypeOf<WrappedMember>().not.toEqualTypeOf<keyof LaterClient>();
  });
});

describe("throwOnError", () => {
  const throwing = createPartnerClient({ apiKey: "k", baseUrl: "http://x", fetch, throwOnError: true });
  const throwingCompany = throwing.forCompany("01JD8X2K7P3M9Q4R6S8T0V2W4X");

  test("calls resolve to data that is never undefined, and no error", async () => {
    const { data, error } = await throwingCompany.GET("/v1/cards", { params: { query: { limit: 10 } } });
    expectTypeOf(data).toEqualTypeOf<components["schemas"]["ListCardsResponse"]>();
    expectTypeOf(error).toEqualTypeOf<undefined>();
    const created = await throwingCompany.POST("/v1/cards", {
      body: { cardHolderId: cardId, name: "Travel", category: "TravelExpenses", bin: "489514" },
    });
    expectTypeOf(created.data).toEqualTypeOf<components["schemas"]["CreateCardResponse"]>();
    const { data: transaction } = await throwing.request("get", "/transactions/{transactionId}", {
      params: { path: { transactionId: cardId } },
    });
    expectTypeOf(transaction).toEqualTypeOf<components["schemas"]["GetTransactionResponse"]>();
  });

  test("the client types say which kind it is; the default client keeps openapi-fetch's result", async () => {
    expectTypeOf(throwing).toEqualTypeOf<PartnerClient<true>>();
    expectTypeOf(throwingCompany).toEqualTypeOf<CompanyClient<true>>();
    expectTypeOf(
      createPartnerClient({
        apiKey: "k",
        baseUrl: "http://x",
        companyId: "01JD8X2K7P3M9Q4R6S8T0V2W4X",
        throwOnError: true,
      }),
    ).toEqualTypeOf<CompanyClient<true>>();
    const { data } = await company.GET("/v1/cards");
    expectTypeOf(data).toEqualTypeOf<components["schemas"]["ListCardsResponse"] | undefined>();
    // @ts-expect-error: the path and its checks stay the same
    void throwingCompany.GET("/v1/card");
  });

  test("paginate takes a throwing client", async () => {
    for await (const card of paginate(throwingCompany, "/v1/cards")) {
      expectTypeOf(card).toEqualTypeOf<components["schemas"]["Card"]>();
    }
  });
});

describe("ApiError narrows to the contract's error responses", () => {
  test("the declared error statuses of an operation", () => {
    expectTypeOf<DeclaredErrorStatus<"getTransaction">>().toEqualTypeOf<403 | 404>();
    expectTypeOf<DeclaredErrorStatus<"createCard">>().toEqualTypeOf<422>();
  });

  test("isApiError(error, operationId) narrows; declared narrows status and body", () => {
    const error: unknown = new Error("x");
    if (isApiError(error, "getTransaction")) {
      expectTypeOf(error).toEqualTypeOf<ApiErrorOf<"getTransaction">>();
      expectTypeOf(error).toExtend<ApiError>();
      expectTypeOf(error.operationId).toEqualTypeOf<"getTransaction">();
      if (error.declared) {
        expectTypeOf(error.status).toEqualTypeOf<403 | 404>();
        if (error.status === 404) {
          expectTypeOf(error.status).toEqualTypeOf<404>();
          expectTypeOf(error.body).toEqualTypeOf<components["responses"]["NotFound"]["content"]["application/json"]>();
        }
        // @ts-expect-error: 422 is not an error the contract declares for getTransaction
        if (error.status === 422) return;
      } else {
        expectTypeOf(error.status).toEqualTypeOf<number>();
      }
    }
    if (isApiError(error, "createCard") && error.declared) expectTypeOf(error.status).toEqualTypeOf<422>();
    // @ts-expect-error: no such operation
    isApiError(error, "getCards");
  });
});
