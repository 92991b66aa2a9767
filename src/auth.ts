/** Auth and scope as openapi-fetch middleware: the API key on every request, the company on company-scope ones. */
import type { Middleware } from "openapi-fetch";
import { InvalidInputError } from "./errors.ts";
import { operationFor } from "./operations.ts";
import { assertUlid } from "./ulid.ts";

/** Checks an API key without ever echoing it. */
export function assertApiKey(apiKey: unknown): asserts apiKey is string {
  if (typeof apiKey !== "string" || apiKey.trim() === "") {
    throw new InvalidInputError("apiKey", "apiKey is required: pass the partner API key as a non-empty string");
  }
  if (/[\r\n\0]/.test(apiKey) || apiKey !== apiKey.trim()) {
    throw new InvalidInputError(
      "apiKey",
      "apiKey must not contain line breaks or surrounding whitespace (value not shown)",
    );
  }
}

/** Sends `X-API-Key` on every request. The key lives only in this closure. */
export function apiKeyMiddleware(apiKey: string): Middleware {
  assertApiKey(apiKey);
  return {
    onRequest({ request }) {
      request.headers.set("X-API-Key", apiKey);
    },
  };
}

/** Sends `X-Company-Id` on every operation the contract marks company-scope. */
export function companyMiddleware(companyId: string): Middleware {
  assertUlid(companyId, "companyId");
  return {
    onRequest({ request, schemaPath }) {
      if (operationFor(request.method, schemaPath)?.companyScope) request.headers.set("X-Company-Id", companyId);
    },
  };
}
