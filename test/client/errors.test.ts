import { inspect } from "node:util";
import { build } from "esbuild";
import { afterEach, describe, expect, test, vi } from "vitest";
import {
  ApiError,
  InvalidInputError,
  isApiError,
  PartnerApiError,
  RequestTimeoutError,
  unwrap,
} from "../../src/index.ts";
import { API_KEY, CARD, json, testClient } from "./helpers.ts";

/** What `run` throws (undefined when it does not throw). */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

afterEach(() => vi.restoreAllMocks());

/** Every way an error can be looked at. */
function renderings(error: unknown): string[] {
  const fields = Object.entries(error as object).map(
    ([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`,
  );
  return [
    String(error),
    (error as Error).message,
    (error as Error).stack ?? "",
    JSON.stringify(error),
    inspect(error, { depth: 10 }),
    ...fields,
  ];
}

describe("unwrap", () => {
  test("returns data on a 2xx answer", async () => {
    const { client } = testClient(() => json({ companies: [{ id: "01JD8X2K7P3M9Q4R6S8T0V2W4X" }] }));
    expect(unwrap(await client.GET("/v1/companies"))).toEqual({ companies: [{ id: "01JD8X2K7P3M9Q4R6S8T0V2W4X" }] });
  });

  test("throws ApiError with status, body, method, path, operation and request id", async () => {
    const { client } = testClient(() => json({ message: "not yours" }, 403, { "X-Request-Id": "req-123" }));
    const result = await client.GET("/transactions/{transactionId}", { params: { path: { transactionId: CARD } } });
    expect(result.error).toEqual({ message: "not yours" });
    const error = thrownBy(() => unwrap(result));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      name: "ApiError",
      status: 403,
      body: { message: "not yours" },
      method: "GET",
      path: `/api/transactions/${CARD}`,
      operationId: "getTransaction",
      requestId: "req-123",
    });
    expect((error as Error).message).toBe(
      `partner-api-client: GET /api/transactions/${CARD} (getTransaction) answered 403 [request id req-123]: {"message":"not yours"}`,
    );
  });

  test("an error answer with no body still throws", async () => {
    const { company } = testClient(() => new Response(null, { status: 422 }));
    const result = await company.POST("/v1/cards", {
      body: { cardHolderId: CARD, name: "n", category: "Other", bin: "1" },
    });
    expect(() => unwrap(result)).toThrow(/POST \/api\/v1\/cards \(createCard\) answered 422$/);
  });

  test("rejects what is not a client result", () => {
    expect(() => unwrap({} as never)).toThrow(InvalidInputError);
    expect(() => unwrap(null as never)).toThrow(/unwrap\(\) takes the \{ data, error, response \} result/);
  });
});

describe("the API key never leaks", () => {
  test("not in an ApiError's message, fields, stack, JSON or inspection, even when the server echoes it", async () => {
    const echo = { message: `invalid key ${API_KEY}`, nested: [{ [API_KEY]: API_KEY }] };
    const { client } = testClient(() => json(echo, 401, { "X-Request-Id": `id-${API_KEY}` }));
    const result = await client.GET("/v1/companies");
    const error = thrownBy(() => unwrap(result));
    expect(error).toBeInstanceOf(ApiError);
    for (const text of renderings(error)) expect(text).not.toContain(API_KEY);
    expect((error as ApiError).body).toEqual({
      message: "invalid key [REDACTED]",
      nested: [{ "[REDACTED]": "[REDACTED]" }],
    });
  });

  test("not in option errors, not in the client object, and nothing is logged", async () => {
    const written: string[] = [];
    for (const method of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, method).mockImplementation(
        (...args: unknown[]) => void written.push(args.map(String).join(" ")),
      );
    }
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const { client, company } = testClient((_, attempt) =>
      attempt < 3 ? json({}, 503) : json({ error: API_KEY }, 500),
    );
    const result = await company.GET("/v1/card-bins");
    const apiError = (() => {
      try {
        unwrap(result);
      } catch (error) {
        return error;
      }
    })();
    const optionError = (() => {
      try {
        client.forCompany("not-a-ulid");
      } catch (error) {
        return error;
      }
    })();
    vi.restoreAllMocks();
    expect(apiError).toBeInstanceOf(ApiError);
    expect(optionError).toBeInstanceOf(InvalidInputError);
    expect(written).toEqual([]);
    expect(inspect(client, { depth: 5, showHidden: true })).not.toContain(API_KEY);
    for (const text of [...renderings(apiError), ...renderings(optionError)]) expect(text).not.toContain(API_KEY);
  });
});

describe("one error base class", () => {
  const errors = (): [string, Error][] => [
    ["InvalidInputError", new InvalidInputError("cardId", "cardId must be a ULID")],
    ["ApiError", new ApiError({ status: 404, body: "", method: "GET", path: "/v1/cards" })],
    ["TimeoutError", new RequestTimeoutError("GET", "/v1/cards", 30)],
  ];

  test.each(errors())("%s is a PartnerApiError with the one message prefix", (name, error) => {
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.message.startsWith("partner-api-client: ")).toBe(true);
    expect(error.message.startsWith("partner-api-client: partner-api-client:")).toBe(false);
  });

  test("names survive a minifying bundler (esbuild renames the classes)", async () => {
    const bundled = await build({
      stdin: {
        contents: 'export { ApiError, InvalidInputError, RequestTimeoutError } from "./src/index.ts";',
        resolveDir: new URL("../../", import.meta.url).pathname,
        loader: "ts",
      },
      bundle: true,
      minify: true,
      format: "esm",
      platform: "node",
      write: false,
      logLevel: "silent",
    });
    const code = bundled.outputFiles[0]!.text;
    expect(code).not.toContain("class ApiError"); // the classes were renamed
    const mod = (await import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`)) as {
      ApiError: typeof ApiError;
      InvalidInputError: typeof InvalidInputError;
      RequestTimeoutError: typeof RequestTimeoutError;
    };
    expect(new mod.InvalidInputError("x", "y").name).toBe("InvalidInputError");
    expect(new mod.ApiError({ status: 500, body: "", method: "GET", path: "/" }).name).toBe("ApiError");
    expect(new mod.RequestTimeoutError("GET", "/", 1).name).toBe("TimeoutError");
  });
});

describe("throwOnError", () => {
  test("a successful call resolves to its data; an error answer rejects with ApiError, declared or not", async () => {
    const statuses = [200, 404, 500];
    const { client, sent } = testClient((_, attempt) => json({ n: attempt }, statuses[attempt - 1]), {
      throwOnError: true,
      retry: false,
    });
    const path = { params: { path: { transactionId: CARD } } };
    const { data } = await client.GET("/transactions/{transactionId}", path);
    expect(data).toEqual({ n: 1 });
    const notFound = await client.GET("/transactions/{transactionId}", path).catch((error: unknown) => error);
    expect(notFound).toBeInstanceOf(ApiError);
    expect(notFound).toMatchObject({ status: 404, declared: true, operationId: "getTransaction", body: { n: 2 } });
    const serverError = await client.GET("/transactions/{transactionId}", path).catch((error: unknown) => error);
    expect(serverError).toMatchObject({ status: 500, declared: false, operationId: "getTransaction" });
    expect(sent).toHaveLength(3);
  });

  test("without it, error answers are results, and unwrap() says whether the contract declares the status", async () => {
    const { company } = testClient(() => json({ message: "bad" }, 422));
    const result = await company.POST("/v1/cards", {
      body: { cardHolderId: CARD, name: "n", category: "Other", bin: "1" },
    });
    expect(result.response.status).toBe(422);
    expect(thrownBy(() => unwrap(result))).toMatchObject({ declared: true, operationId: "createCard" });
  });

  test("throwOnError must be a boolean", () => {
    expect(() => testClient(undefined, { throwOnError: "yes" as never })).toThrow(
      /throwOnError must be true or false, got "yes"/,
    );
  });

  test("isApiError(error, operationId) is true only for an ApiError of that operation", () => {
    const error = new ApiError({ status: 404, body: "", method: "GET", path: "/x", operationId: "getTransaction" });
    expect(isApiError(error, "getTransaction")).toBe(true);
    expect(isApiError(error, "createCard")).toBe(false);
    expect(isApiError(new Error("404"), "getTransaction")).toBe(false);
    expect(isApiError(undefined, "getTransaction")).toBe(false);
  });
});
