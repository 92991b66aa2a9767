/**
 * Client samples for the rendered reference, generated from the bundled contract at docs build time:
 * one TypeScript sample using this project's client and one curl sample per operation, added as
 * Redoc's `x-codeSamples`. Nothing here is written per operation by hand: paths, ids and bodies come
 * from the contract's parameter and request examples, so a changed contract changes the samples.
 */

import { followRefs, isObject, type Json, type JsonObject } from "partner-api-devkit/cli";
import { HTTP_METHODS, type HttpMethod } from "../../../src/http-methods.ts";

/** The package name partners install; samples import the client from it. */
export const CLIENT_PACKAGE = "partner-api-client";
/** The header that scopes a request to one company (`#/components/parameters/CompanyId`). */
export const COMPANY_HEADER = "X-Company-Id";
/** Environment variables the samples read; the source names no host, so the base address is the reader's. */
export const API_KEY_VARIABLE = "PARTNER_API_KEY";
export const BASE_URL_VARIABLE = "PARTNER_API_BASE_URL";

/** What a sample needs to know about one operation, all taken from the contract. */
export interface OperationExample {
  operationId: string;
  method: HttpMethod;
  path: string;
  /** The X-Company-Id example when the operation is company-scope, otherwise undefined. */
  companyId: string | undefined;
  pathParams: Array<[name: string, value: Json]>;
  queryParams: Array<[name: string, value: Json]>;
  /** Other required header parameters, with their examples. */
  headerParams: Array<[name: string, value: Json]>;
  /** The first named request example (or the media type's `example`), when the operation has a body. */
  body: { name: string; value: Json } | undefined;
}

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/** Follows a local `$ref` chain (`#/components/...`); throws naming the place and the reference when it does not resolve. */
function deref(document: JsonObject, value: Json | undefined, where: string): Json | undefined {
  try {
    return followRefs<Json | undefined>(document, value);
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`);
  }
}

/** A parameter's example: `example`, then the first of `examples`, then the schema's `example`/`examples[0]`. */
function exampleOf(document: JsonObject, parameter: JsonObject, where: string): Json | undefined {
  if (parameter.example !== undefined) return parameter.example;
  if (isObject(parameter.examples)) {
    const first = Object.values(parameter.examples)[0];
    const resolved = deref(document, first, where);
    if (isObject(resolved) && resolved.value !== undefined) return resolved.value;
  }
  const schema = deref(document, parameter.schema, where);
  if (isObject(schema)) {
    if (schema.example !== undefined) return schema.example;
    if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  }
  return undefined;
}

function requestBodyExample(document: JsonObject, operation: JsonObject, where: string): OperationExample["body"] {
  const requestBody = deref(document, operation.requestBody, `${where} requestBody`);
  if (!isObject(requestBody)) return undefined;
  const content = isObject(requestBody.content) ? requestBody.content : {};
  const media = content["application/json"];
  if (!isObject(media)) {
    const types = Object.keys(content).join(", ") || "none";
    throw new Error(`${where}: samples are generated for application/json request bodies only; this one has ${types}`);
  }
  if (isObject(media.examples)) {
    for (const [name, raw] of Object.entries(media.examples)) {
      const example = deref(document, raw, `${where} requestBody example "${name}"`);
      if (isObject(example) && example.value !== undefined) return { name, value: example.value };
    }
  }
  if (media.example !== undefined) return { name: "example", value: media.example };
  throw new Error(
    `${where}: the request body has no named example (content.application/json.examples); add one to the contract so the samples can show a valid body`,
  );
}

/** Collects, per operation, the examples the samples are made of. Throws naming the operation and parameter when one is missing. */
export function operationExamples(document: Record<string, unknown>): OperationExample[] {
  const doc = document as JsonObject;
  if (!isObject(doc.paths)) throw new Error("the document has no `paths` object: is it an OpenAPI document?");
  const result: OperationExample[] = [];
  for (const [pathName, rawItem] of Object.entries(doc.paths)) {
    const item = deref(doc, rawItem, `paths["${pathName}"]`);
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const where = `${method.toUpperCase()} ${pathName}${typeof operation.operationId === "string" ? ` (${operation.operationId})` : ""}`;
      if (typeof operation.operationId !== "string") throw new Error(`${where}: has no operationId`);
      const parameters = new Map<string, JsonObject>();
      for (const list of [item.parameters, operation.parameters]) {
        for (const raw of Array.isArray(list) ? list : []) {
          const parameter = deref(doc, raw, `${where} parameter`);
          if (!isObject(parameter) || typeof parameter.name !== "string" || typeof parameter.in !== "string") {
            throw new Error(`${where}: a parameter has no name or no location`);
          }
          parameters.set(`${parameter.in}:${parameter.name.toLowerCase()}`, parameter);
        }
      }
      const example: OperationExample = {
        operationId: operation.operationId,
        method,
        path: pathName,
        companyId: undefined,
        pathParams: [],
        queryParams: [],
        headerParams: [],
        body: undefined,
      };
      for (const match of pathName.matchAll(/\{([^}]+)\}/g)) {
        const name = match[1]!;
        const parameter = parameters.get(`path:${name.toLowerCase()}`);
        if (!parameter) throw new Error(`${where}: path parameter "${name}" is not declared`);
        const value = exampleOf(doc, parameter, where);
        if (value === undefined)
          throw new Error(`${where}: path parameter "${name}" has no example; add one to the contract`);
        example.pathParams.push([name, value]);
      }
      for (const parameter of parameters.values()) {
        const name = parameter.name as string;
        if (parameter.in === "header" && name.toLowerCase() === COMPANY_HEADER.toLowerCase()) {
          const value = exampleOf(doc, parameter, where);
          if (typeof value !== "string")
            throw new Error(`${where}: header "${COMPANY_HEADER}" has no string example; add one to the contract`);
          example.companyId = value;
        } else if (parameter.in === "query") {
          const value = exampleOf(doc, parameter, where);
          if (value !== undefined) example.queryParams.push([name, value]);
          else if (parameter.required === true)
            throw new Error(`${where}: required query parameter "${name}" has no example`);
        } else if (parameter.in === "header" && parameter.required === true) {
          const value = exampleOf(doc, parameter, where);
          if (value === undefined) throw new Error(`${where}: required header "${name}" has no example`);
          example.headerParams.push([name, value]);
        }
      }
      example.body = requestBodyExample(doc, operation, where);
      result.push(example);
    }
  }
  return result;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A value as a TypeScript literal with unquoted keys where allowed, indented to `indent` spaces. */
export function toTsLiteral(value: Json, indent = 0): string {
  const pad = " ".repeat(indent);
  const inner = " ".repeat(indent + 2);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    if (value.every((item) => item === null || typeof item !== "object"))
      return `[${value.map((item) => toTsLiteral(item)).join(", ")}]`;
    return `[\n${value.map((item) => `${inner}${toTsLiteral(item, indent + 2)},`).join("\n")}\n${pad}]`;
  }
  if (isObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return "{}";
    const lines = entries.map(
      ([key, item]) => `${inner}${IDENTIFIER.test(key) ? key : JSON.stringify(key)}: ${toTsLiteral(item, indent + 2)},`,
    );
    return `{\n${lines.join("\n")}\n${pad}}`;
  }
  return JSON.stringify(value);
}

function objectOf(pairs: Array<[string, Json]>): JsonObject {
  return Object.fromEntries(pairs);
}

/** The TypeScript sample: this project's client, the operation's path, ids and body from the contract. */
export function typescriptSample(operation: OperationExample): string {
  const caller = operation.companyId === undefined ? "client" : "company";
  const params: JsonObject = {};
  if (operation.pathParams.length > 0) params.path = objectOf(operation.pathParams);
  if (operation.queryParams.length > 0) params.query = objectOf(operation.queryParams);
  if (operation.headerParams.length > 0) params.header = objectOf(operation.headerParams);
  const init: JsonObject = {};
  if (Object.keys(params).length > 0) init.params = params;
  if (operation.body) init.body = operation.body.value;
  const method = operation.method.toUpperCase();
  const args = [JSON.stringify(operation.path)];
  if (Object.keys(init).length > 0) args.push(toTsLiteral(init));
  const lines = [
    `import { createPartnerClient } from "${CLIENT_PACKAGE}";`,
    "",
    "const client = createPartnerClient({",
    `  apiKey: process.env.${API_KEY_VARIABLE}!,`,
    "  // The address you received with your partner credentials.",
    `  baseUrl: process.env.${BASE_URL_VARIABLE}!,`,
    "});",
  ];
  if (operation.companyId !== undefined) {
    lines.push(`const company = client.forCompany(${JSON.stringify(operation.companyId)});`);
  }
  lines.push(
    "",
    `const { data, error } = await ${caller}.${method}(${args.join(", ")});`,
    "if (error) throw error;",
    "console.log(data);",
    "",
  );
  return lines.join("\n");
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function queryValue(value: Json): string {
  return encodeURIComponent(typeof value === "string" ? value : JSON.stringify(value));
}

/** The curl sample: the same request, with the API key and base address from the environment. */
export function curlSample(operation: OperationExample): string {
  let url = operation.path;
  for (const [name, value] of operation.pathParams) {
    url = url.replace(`{${name}}`, encodeURIComponent(typeof value === "string" ? value : JSON.stringify(value)));
  }
  if (operation.queryParams.length > 0) {
    url += `?${operation.queryParams.map(([name, value]) => `${encodeURIComponent(name)}=${queryValue(value)}`).join("&")}`;
  }
  const lines = [
    `curl -X ${operation.method.toUpperCase()} "$${BASE_URL_VARIABLE}${url}"`,
    `-H "X-API-Key: $${API_KEY_VARIABLE}"`,
  ];
  if (operation.companyId !== undefined) lines.push(`-H "${COMPANY_HEADER}: ${operation.companyId}"`);
  for (const [name, value] of operation.headerParams) lines.push(`-H ${shellQuote(`${name}: ${String(value)}`)}`);
  if (operation.body) {
    lines.push(
      `-H "Content-Type: application/json"`,
      `-d ${shellQuote(JSON.stringify(operation.body.value, null, 2))}`,
    );
  }
  return `${lines.join(" \\\n  ")}\n`;
}

export const TYPESCRIPT_LABEL = "TypeScript";
export const CURL_LABEL = "curl";

/**
 * Redoc 3 shows only the `x-codeSamples` whose label is in its `codeSamples.languages` option (curl
 * and the generated languages by default), in this order; the first is selected on load.
 * `Payload` is Redoc's own tab with the request body.
 */
export const CODE_SAMPLE_LANGUAGES = [
  { lang: "TypeScript", label: TYPESCRIPT_LABEL },
  { lang: "curl", label: CURL_LABEL },
  { lang: "payload", label: "Payload" },
];

export function codeSamplesFor(operation: OperationExample): CodeSample[] {
  return [
    { lang: "TypeScript", label: TYPESCRIPT_LABEL, source: typescriptSample(operation) },
    { lang: "Shell", label: CURL_LABEL, source: curlSample(operation) },
  ];
}

/**
 * Returns a copy of the bundled document with `x-codeSamples` on every operation (samples already
 * there are kept, ours replace any with the same label). The input is not changed.
 */
export function addCodeSamples(document: Record<string, unknown>): {
  document: Record<string, unknown>;
  operations: OperationExample[];
} {
  const operations = operationExamples(document);
  const copy = structuredClone(document) as JsonObject;
  const paths = copy.paths as JsonObject;
  for (const operation of operations) {
    const item = deref(copy, paths[operation.path], operation.path) as JsonObject;
    const target = item[operation.method] as JsonObject;
    const ours = codeSamplesFor(operation);
    const existing = Array.isArray(target["x-codeSamples"]) ? target["x-codeSamples"] : [];
    const kept = existing.filter((sample) => !ours.some((mine) => isObject(sample) && sample.label === mine.label));
    target["x-codeSamples"] = [...kept, ...(ours as unknown as Json[])];
  }
  return { document: copy, operations };
}
