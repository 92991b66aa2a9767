/**
 * Auth and scope: the API key on every request, the company on company-scope ones. They are default headers
 * of the openapi-fetch clients the partner client is built on (set once per client, not by middleware on
 * every call): one client sends the key alone, the other the key and `X-Company-Id`.
 */
import { InvalidInputError } from "./errors.ts";

/** The API key when it can be sent as a header; the error never echoes it. */
export function checkApiKey(apiKey: unknown): string {
  if (typeof apiKey !== "string" || !apiKey || /[\r\n\0]/.test(apiKey) || apiKey !== apiKey.trim())
    throw new InvalidInputError(
      "apiKey",
      "apiKey must be the partner API key: a non-empty string without line breaks or surrounding whitespace (value not shown)",
    );
  return apiKey;
}

/** The headers every request carries; with a company, those of its company-scope requests. Both already checked. */
export function authHeaders(apiKey: string, companyId?: string): Record<string, string> {
  return companyId === undefined ? { "X-API-Key": apiKey } : { "X-API-Key": apiKey, "X-Company-Id": companyId };
}
