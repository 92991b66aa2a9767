/**
 * The errors page: per operation, every status it may answer other than success: those the contract declares
 * (with their description) and those the API description leaves open, each with what the client does with it
 * and what the local sandbox answers (its picks, docs/partners.md "How the sandbox decides what the API
 * description leaves open"). Made from the contract and the cases below; test/docs/errors-page.test.ts provokes
 * every case of every operation against a running sandbox and checks the status here.
 */

import { HTTP_METHODS, type HttpMethod } from "partner-api-client";
import { followRefs, isObject, type Json, type JsonObject } from "partner-api-devkit/cli";

/** What an operation is, as far as its error cases go; all from the contract. */
export interface ErrorOperation {
  operationId: string;
  method: HttpMethod;
  path: string;
  summary: string;
  companyScope: boolean;
  /** `x-idempotent: true`: the client retries it on 429, 5xx, timeouts and network errors. */
  idempotent: boolean;
  /** Path parameters, with whether the contract types them as ULIDs. */
  pathParams: Array<{ name: string; ulid: boolean }>;
  /** Query parameters typed as integers. */
  integerQuery: string[];
  hasBody: boolean;
  /** The 4xx and 5xx statuses the contract declares, with their descriptions. */
  declared: Map<number, string>;
}

/** One situation that makes an operation fail, and what the sandbox answers to it. */
export interface ErrorCase {
  id: string;
  /** When it happens, in partners' words (Markdown). */
  when: string;
  applies(operation: ErrorOperation): boolean;
  /** The sandbox's status for it. */
  sandbox(operation: ErrorOperation): number;
  /** What the client does before sending, when it stops the request itself (otherwise it sends and reports the status). */
  clientBefore?(operation: ErrorOperation): string | undefined;
}

const bodyStatus = (operation: ErrorOperation) => (operation.declared.has(422) ? 422 : 415);

/** The cases, in the order the page lists them. Each status is one of the sandbox's picks. */
export const ERROR_CASES: readonly ErrorCase[] = [
  {
    id: "no-api-key",
    when: "No `X-API-Key` header",
    applies: () => true,
    sandbox: () => 401,
    clientBefore: () => "`InvalidInputError` when the client is made without `apiKey`: nothing is sent",
  },
  {
    id: "api-key-too-long",
    when: "An `X-API-Key` over 512 characters",
    applies: () => true,
    sandbox: () => 401,
  },
  {
    id: "no-company",
    when: "No `X-Company-Id` header",
    applies: (operation) => operation.companyScope,
    sandbox: () => 422,
    clientBefore: () => "a company client (`forCompany(id)`) always sends it; without one, the call does not compile",
  },
  {
    id: "company-not-yours",
    when: "`X-Company-Id` of a company that is not in your account",
    applies: (operation) => operation.companyScope,
    sandbox: () => 403,
  },
  {
    id: "invalid-path-id",
    when: "A path id that is not a ULID",
    applies: (operation) => operation.pathParams.some((parameter) => parameter.ulid),
    sandbox: () => 422,
    clientBefore: () => "`InvalidInputError` naming the parameter: nothing is sent",
  },
  {
    id: "unknown-id",
    when: "A path id that names nothing in your account",
    applies: (operation) => operation.pathParams.length > 0,
    sandbox: () => 404,
  },
  {
    id: "other-account",
    when: "A transaction of another account",
    applies: (operation) => operation.operationId === "getTransaction",
    sandbox: () => 403,
  },
  {
    id: "invalid-query",
    when: "A query parameter of the wrong type (`page=abc`)",
    applies: (operation) => operation.integerQuery.length > 0,
    sandbox: () => 422,
  },
  {
    id: "invalid-body",
    when: "A body that breaks the contract (not an object, a required field missing, a wrong type)",
    applies: (operation) => operation.hasBody,
    sandbox: () => 422,
  },
  {
    id: "malformed-json",
    when: "A body that is not JSON",
    applies: (operation) => operation.hasBody,
    sandbox: () => 400,
  },
  {
    id: "wrong-content-type",
    when: "A body that is not `application/json`",
    applies: (operation) => operation.hasBody,
    sandbox: bodyStatus,
  },
  {
    id: "body-too-large",
    when: "A body over 1 MiB",
    applies: (operation) => operation.hasBody,
    sandbox: () => 413,
  },
];

function deref(document: JsonObject, value: Json | undefined): Json | undefined {
  return followRefs<Json | undefined>(document, value);
}

/** Each operation of the contract with what its error cases depend on. */
export function errorOperations(document: Record<string, unknown>): ErrorOperation[] {
  const doc = document as JsonObject;
  const found: ErrorOperation[] = [];
  for (const [pathName, rawItem] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const item = deref(doc, rawItem);
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation) || typeof operation.operationId !== "string") continue;
      const parameters = [
        ...(Array.isArray(item.parameters) ? item.parameters : []),
        ...(Array.isArray(operation.parameters) ? operation.parameters : []),
      ]
        .map((parameter) => deref(doc, parameter))
        .filter(isObject);
      const schemaOf = (parameter: JsonObject) => {
        const schema = deref(doc, parameter.schema);
        return isObject(schema) ? schema : {};
      };
      const declared = new Map<number, string>();
      for (const [code, raw] of Object.entries(isObject(operation.responses) ? operation.responses : {})) {
        if (!/^[45]\d\d$/.test(code)) continue;
        const response = deref(doc, raw);
        declared.set(Number(code), isObject(response) ? String(response.description ?? "").trim() : "");
      }
      found.push({
        operationId: operation.operationId,
        method,
        path: pathName,
        summary: typeof operation.summary === "string" ? operation.summary : operation.operationId,
        companyScope: parameters.some(
          (parameter) => parameter.in === "header" && String(parameter.name).toLowerCase() === "x-company-id",
        ),
        idempotent: operation["x-idempotent"] === true,
        pathParams: parameters
          .filter((parameter) => parameter.in === "path")
          .map((parameter) => ({
            name: String(parameter.name),
            ulid:
              typeof schemaOf(parameter).pattern === "string" &&
              String(schemaOf(parameter).pattern).includes("0-9A-HJKMNP-TV-Z"),
          })),
        integerQuery: parameters
          .filter((parameter) => parameter.in === "query" && schemaOf(parameter).type === "integer")
          .map((parameter) => String(parameter.name)),
        hasBody: operation.requestBody !== undefined,
        declared,
      });
    }
  }
  return found;
}

/** One row of an operation's table. */
export interface ErrorRow {
  status: number;
  declared: boolean;
  when: string;
  client: string;
  /** The case this row is, when the sandbox answers it (declared statuses of no case have none). */
  caseId: string | undefined;
}

function clientFor(operation: ErrorOperation, status: number, before: string | undefined): string {
  if (before) return before;
  return operation.declared.has(status)
    ? `\`ApiError\`, \`declared: true\`: \`status\` typed as ${status}, \`body\` as the contract's`
    : "`ApiError`, `declared: false`, `status: number`";
}

/** The rows of one operation: each case that applies, then each declared status no case reaches. */
export function errorRows(operation: ErrorOperation): ErrorRow[] {
  const rows: ErrorRow[] = [];
  for (const errorCase of ERROR_CASES) {
    if (!errorCase.applies(operation)) continue;
    const status = errorCase.sandbox(operation);
    rows.push({
      status,
      declared: operation.declared.has(status),
      when: errorCase.when,
      client: clientFor(operation, status, errorCase.clientBefore?.(operation)),
      caseId: errorCase.id,
    });
  }
  for (const [status, description] of operation.declared) {
    if (rows.some((row) => row.status === status)) continue;
    rows.push({
      status,
      declared: true,
      when: description || "as the contract describes",
      client: clientFor(operation, status, undefined),
      caseId: undefined,
    });
  }
  return rows;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n+/g, " ");
}

/** The page as an OpenAPI document with no paths: Redoc renders its description, one `##` section per tag. */
export function errorsDocument(document: Record<string, unknown>, title: string): Record<string, unknown> {
  const operations = errorOperations(document);
  const info = (document.info ?? {}) as Record<string, unknown>;
  const lines = [
    "Every status an operation may answer besides success: those the contract **declares** (the API description " +
      "states them), and those it **leaves open** (no status is promised; the sandbox answers with its own pick, " +
      "and the service may answer otherwise). Error bodies are not specified by the API description: read `status`, " +
      "and treat `body` as opaque text unless the contract types it.",
    "",
    "What the client does: a non-2xx answer becomes an `ApiError` (thrown by `unwrap()` or by a `throwOnError` " +
      "client). `error.declared` is true when the contract declares the status for the operation; " +
      "`isApiError(error, operationId)` then narrows `status` to those statuses and `body` to their schema. " +
      "Operations marked *safe to repeat* are retried first on 429, 5xx, timeouts and network errors (3 attempts " +
      "by default); a request with no answer in time is a `RequestTimeoutError`.",
    "",
    "The sandbox column is what `npx partner-api sandbox` answers, checked by a test against a running sandbox. " +
      "Every operation can also answer a fault you add (`POST /_sandbox/faults`), `503` while a change cannot be " +
      "saved (`--state` on a full disk), and `405` for a method its path does not have.",
    "",
  ];
  const byTag = new Map<string, ErrorOperation[]>();
  const tags = new Map<string, string>();
  const paths = (document.paths ?? {}) as JsonObject;
  for (const operation of operations) {
    const item = deref(document as JsonObject, paths[operation.path]) as JsonObject;
    const raw = (item[operation.method] as JsonObject).tags;
    const tag = Array.isArray(raw) && typeof raw[0] === "string" ? raw[0] : "Other";
    tags.set(operation.operationId, tag);
    byTag.set(tag, [...(byTag.get(tag) ?? []), operation]);
  }
  for (const [tag, group] of byTag) {
    lines.push(`## ${tag}`, "");
    for (const operation of group) {
      const notes = [
        operation.companyScope ? "company scope" : "no company header",
        operation.idempotent ? "safe to repeat: retried on 429 and 5xx" : "not retried",
      ];
      lines.push(
        `### ${operation.summary}`,
        "",
        `\`${operation.method.toUpperCase()} ${operation.path}\` (\`${operation.operationId}\`; ${notes.join("; ")})`,
        "",
        "| Status | In the contract | When | The client | The sandbox |",
        "| --- | --- | --- | --- | --- |",
      );
      for (const row of errorRows(operation)) {
        lines.push(
          `| ${row.status} | ${row.declared ? "declared" : "left open"} | ${cell(row.when)} | ${cell(row.client)} | ${row.caseId ? row.status : "not simulated"} |`,
        );
      }
      lines.push("");
    }
  }
  return {
    openapi: (document as JsonObject).openapi ?? "3.1.0",
    info: { title, version: String(info.version ?? ""), description: lines.join("\n") },
    paths: {},
  };
}
