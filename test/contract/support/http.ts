/**
 * Raw HTTP calls to the mock, built from an operation of the contract, and the checks Schemathesis makes
 * by default on an answer: status code conformance, content type conformance, response schema conformance.
 */
import type { ContractValidator, Operation } from "./contract.ts";

export const TEST_API_KEY = "contract-test-key";

export interface CallInput {
  pathParams?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
  /** A JSON body (serialised); `undefined` sends none. */
  body?: unknown;
  /** A body sent as is, instead of `body`. */
  rawBody?: string;
  contentType?: string;
  /** `null` leaves the X-API-Key header out. */
  apiKey?: string | null;
  /** `null` leaves X-Company-Id out; defaults to the parameter's example on company-scope operations. */
  companyId?: string | null;
  /** The `Prefer` header, e.g. `code=404` or `example=activeCard`. */
  prefer?: string;
  timeoutMs?: number;
}

export interface CallResult {
  status: number;
  /** The media type of the answer, without parameters, lower case ("" when absent). */
  mediaType: string;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
  text: string;
  ms: number;
  request: string;
}

/** Path parameters filled from the contract's parameter examples. */
export function examplePathParams(op: Operation): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of op.parameters) {
    if (p.in === "path") {
      if (p.example === undefined) throw new Error(`${op.operationId}: path parameter ${p.name} has no example`);
      out[p.name] = String(p.example);
    }
  }
  return out;
}

export function companyIdExample(op: Operation): string | undefined {
  const example = op.parameters.find((p) => p.in === "header" && p.name === "X-Company-Id")?.example;
  return example === undefined ? undefined : String(example);
}

/** The URL path of an operation with its path parameters substituted (each one URI-encoded). */
function buildPath(op: Operation, pathParams: Record<string, string>): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = pathParams[name];
    if (value === undefined) throw new Error(`${op.operationId}: no value for path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

export async function call(baseUrl: string, op: Operation, input: CallInput = {}): Promise<CallResult> {
  const pathParams = { ...examplePathParams(op), ...input.pathParams };
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(input.query ?? {})) search.append(key, String(value));
  const query = search.toString();
  const url = `${baseUrl}${buildPath(op, pathParams)}${query ? `?${query}` : ""}`;
  const headers: Record<string, string> = { Accept: "application/json" };
  const apiKey = input.apiKey === undefined ? TEST_API_KEY : input.apiKey;
  if (apiKey !== null) headers["X-API-Key"] = apiKey;
  const companyId = input.companyId === undefined ? companyIdExample(op) : input.companyId;
  if (op.companyScoped && companyId !== null && companyId !== undefined) headers["X-Company-Id"] = companyId;
  if (input.prefer) headers.Prefer = input.prefer;
  let body: string | undefined;
  if (input.rawBody !== undefined) body = input.rawBody;
  else if (input.body !== undefined) body = JSON.stringify(input.body);
  if (body !== undefined) headers["Content-Type"] = input.contentType ?? "application/json";
  Object.assign(headers, input.headers);
  const started = performance.now();
  const request = `${op.method.toUpperCase()} ${url.slice(baseUrl.length)}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: op.method.toUpperCase(),
      headers,
      body,
      signal: AbortSignal.timeout(input.timeoutMs ?? 5_000),
    });
  } catch (error) {
    throw new Error(`${request}: no answer from the mock (${(error as Error).message})`);
  }
  const text = await response.text();
  const mediaType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  let parsed: unknown = text;
  if (/[/+]json$/.test(mediaType) && text !== "") {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: response.status, mediaType, body: parsed, text, ms: performance.now() - started, request };
}

/**
 * What is wrong with an answer of a documented status: the status must be one the operation lists, the
 * media type one that status lists, and the body must validate against that media type's schema.
 */
export function conformanceProblems(validator: ContractValidator, op: Operation, result: CallResult): string[] {
  const contents = op.responses.get(String(result.status)) ?? op.responses.get(`${String(result.status)[0]}XX`);
  if (!contents) {
    return [
      `status ${result.status} is not documented for ${op.operationId} (documented: ${[...op.responses.keys()].join(", ")})`,
    ];
  }
  if (contents.length === 0)
    return result.text === "" ? [] : [`status ${result.status} documents no body, got "${result.text.slice(0, 80)}"`];
  const content = contents.find((c) => c.mediaType.toLowerCase() === result.mediaType);
  if (!content) {
    return [
      `content type "${result.mediaType}" is not documented for ${result.status} (documented: ${contents.map((c) => c.mediaType).join(", ")})`,
    ];
  }
  if (result.body === result.text && result.text !== "" && /json$/.test(result.mediaType))
    return [`body is not JSON: ${result.text.slice(0, 80)}`];
  return validator.errors(content.schemaPointer, result.body).map((e) => `body: ${e}`);
}

/** A message for an assertion: the request and what came back. */
export function explain(result: CallResult, problems: string[] = []): string {
  return `${result.request} → ${result.status} ${result.mediaType} ${result.text.slice(0, 300)}${problems.length ? `\n  ${problems.join("\n  ")}` : ""}`;
}
