/**
 * Code samples for the rendered reference, generated from the bundled contract at docs build time and added as
 * Redoc's `x-codeSamples`: per operation, a request in each language of `SAMPLE_LANGUAGES` (this project's client
 * in TypeScript, curl, then each language's standard HTTP library); per webhook, the signature check in the same
 * languages (curl: a signed test delivery). Nothing is written per operation by hand: paths, ids and bodies come
 * from the contract's parameter and request examples, what a sample reads from the answer from its success
 * response (`resultRead`), so a changed contract changes the samples. test/docs/samples-run.test.ts runs them.
 */

import { HTTP_METHODS } from "partner-api-client";
import { followRefs, isObject, type Json, type JsonObject } from "partner-api-devkit/cli";
import { COMPANY_HEADER, type SampleLanguage, type WebhookExample } from "./languages/common.ts";
import { csharp } from "./languages/csharp.ts";
import { curl } from "./languages/curl.ts";
import { go } from "./languages/go.ts";
import { java } from "./languages/java.ts";
import { php } from "./languages/php.ts";
import { python } from "./languages/python.ts";
import { ruby } from "./languages/ruby.ts";
import { typescript } from "./languages/typescript.ts";
import type { OperationExample, ResultRead } from "./operation-example.ts";

export {
  API_KEY_VARIABLE,
  BASE_URL_VARIABLE,
  COMPANY_HEADER,
  type SampleLanguage,
  WEBHOOK_SECRET_VARIABLE,
  type WebhookExample,
} from "./languages/common.ts";
export { curlSample } from "./languages/curl.ts";
export { CLIENT_PACKAGE, toTsLiteral, typescriptSample } from "./languages/typescript.ts";
export type { OperationExample, ResultRead } from "./operation-example.ts";

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

/** A schema with its `$ref`s followed and the properties of its `allOf`, `anyOf` and `oneOf` members merged, in order. */
function propertiesOf(
  document: JsonObject,
  schema: Json | undefined,
  where: string,
  depth = 0,
): Map<string, JsonObject> {
  const found = new Map<string, JsonObject>();
  const resolved = deref(document, schema, where);
  if (!isObject(resolved) || depth > 8) return found;
  if (isObject(resolved.properties)) {
    for (const [name, property] of Object.entries(resolved.properties)) {
      const value = deref(document, property, `${where}.${name}`);
      if (isObject(value) && !found.has(name)) found.set(name, value);
    }
  }
  for (const key of ["allOf", "anyOf", "oneOf"]) {
    const members = resolved[key];
    if (!Array.isArray(members)) continue;
    for (const member of members)
      for (const [name, value] of propertiesOf(document, member, where, depth + 1))
        if (!found.has(name)) found.set(name, value);
  }
  return found;
}

/** The schema's single type, looking through a `oneOf`/`anyOf` with `null` (`object` for `{ oneOf: [X, null] }`). */
function typeOf(document: JsonObject, schema: JsonObject, where: string): string | undefined {
  if (typeof schema.type === "string") return schema.type;
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((type) => type !== "null");
    return types.length === 1 ? String(types[0]) : undefined;
  }
  if (typeof schema.const === "string") return "string";
  if (isObject(schema.properties)) return "object";
  for (const key of ["allOf", "anyOf", "oneOf"]) {
    const members = Array.isArray(schema[key]) ? schema[key] : [];
    const types = new Set(
      members
        .map((member) => deref(document, member, where))
        .filter(isObject)
        .map((member) => typeOf(document, member, where))
        .filter((type) => type !== "null"),
    );
    if (types.size === 1) return [...types][0];
  }
  return undefined;
}

/** Up to two string fields a reader would look at first: `id`, `status`, a nested object's `id`, then the others in order. */
function fieldsToRead(document: JsonObject, properties: Map<string, JsonObject>, where: string): string[][] {
  const strings = [...properties].filter(([, schema]) => typeOf(document, schema, where) === "string").map(([n]) => n);
  const chosen: string[][] = [];
  for (const name of ["id", "status"]) if (strings.includes(name)) chosen.push([name]);
  for (const [name, schema] of properties) {
    if (chosen.length >= 2) break;
    if (typeOf(document, schema, where) !== "object") continue;
    const inner = propertiesOf(document, schema, `${where}.${name}`).get("id");
    if (inner && typeOf(document, inner, where) === "string") chosen.push([name, "id"]);
  }
  for (const name of strings) {
    if (chosen.length >= 2) break;
    if (!chosen.some((path) => path.length === 1 && path[0] === name)) chosen.push([name]);
  }
  return chosen.slice(0, 2);
}

/** What the samples read from the operation's first 2xx JSON answer (see `ResultRead`). */
export function resultRead(document: JsonObject, operation: JsonObject, where: string): ResultRead {
  const responses = isObject(operation.responses) ? operation.responses : {};
  const statuses = Object.keys(responses)
    .filter((code) => /^2\d\d$/.test(code))
    .map(Number)
    .sort((a, b) => a - b);
  if (statuses.length === 0) throw new Error(`${where}: declares no 2xx response, so a sample cannot show its answer`);
  const response = deref(document, responses[String(statuses[0])], `${where} response ${statuses[0]}`);
  const media = isObject(response) && isObject(response.content) ? response.content["application/json"] : undefined;
  const root = propertiesOf(document, isObject(media) ? media.schema : undefined, `${where} response`);
  for (const [name, schema] of root) {
    const type = typeOf(document, schema, where);
    if (type === "object") {
      const fields = fieldsToRead(document, propertiesOf(document, schema, `${where}.${name}`), where);
      if (fields.length > 0) return { statuses, at: name, list: false, fields };
    }
    if (type === "array") {
      const items = propertiesOf(document, schema.items, `${where}.${name}[]`);
      const fields = fieldsToRead(document, items, where);
      if (fields.length > 0) return { statuses, at: name, list: true, fields };
    }
  }
  return { statuses, at: undefined, list: false, fields: fieldsToRead(document, root, where) };
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
        result: resultRead(doc, operation, where),
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

/** Every language the samples are in, in the order of the page's tabs: TypeScript is selected on load. */
export const SAMPLE_LANGUAGES: readonly SampleLanguage[] = [typescript, curl, python, java, go, csharp, php, ruby];

export const TYPESCRIPT_LABEL = typescript.label;
export const CURL_LABEL = curl.label;

/**
 * Redoc 3 shows only the `x-codeSamples` whose label is in its `codeSamples.languages` option, in this order.
 * `Payload` is Redoc's own tab with the request body.
 */
export const CODE_SAMPLE_LANGUAGES = [
  ...SAMPLE_LANGUAGES.map(({ lang, label }) => ({ lang, label })),
  { lang: "payload", label: "Payload" },
];

export function codeSamplesFor(operation: OperationExample): CodeSample[] {
  return SAMPLE_LANGUAGES.map((language) => ({
    lang: language.lang,
    label: language.label,
    source: language.request(operation),
  }));
}

/** Each webhook's example delivery: its first named example (or `example`), serialised as the service sends it. */
export function webhookExamples(document: Record<string, unknown>): WebhookExample[] {
  const doc = document as JsonObject;
  const found: WebhookExample[] = [];
  for (const [type, rawItem] of Object.entries(isObject(doc.webhooks) ? doc.webhooks : {})) {
    const item = deref(doc, rawItem, `webhooks["${type}"]`);
    const operation = isObject(item) ? item.post : undefined;
    if (!isObject(operation)) continue;
    const body = requestBodyExample(doc, operation, `webhook ${type}`);
    if (body) found.push({ type, body: JSON.stringify(body.value) });
  }
  return found;
}

export function webhookSamplesFor(event: WebhookExample): CodeSample[] {
  return SAMPLE_LANGUAGES.map((language) => ({
    lang: language.lang,
    label: language.label,
    source: language.webhook(event),
  }));
}

/** `x-codeSamples` of `target` with `ours` in place of any sample of the same label; the others kept first. */
function withSamples(target: JsonObject, ours: CodeSample[]): void {
  const existing = Array.isArray(target["x-codeSamples"]) ? target["x-codeSamples"] : [];
  const kept = existing.filter((sample) => !ours.some((mine) => isObject(sample) && sample.label === mine.label));
  target["x-codeSamples"] = [...kept, ...(ours as unknown as Json[])];
}

/**
 * Returns a copy of the bundled document with `x-codeSamples` on every operation and every webhook (samples
 * already there are kept, ours replace any with the same label). The input is not changed.
 */
export function addCodeSamples(document: Record<string, unknown>): {
  document: Record<string, unknown>;
  operations: OperationExample[];
  webhooks: WebhookExample[];
} {
  const operations = operationExamples(document);
  const webhooks = webhookExamples(document);
  const copy = structuredClone(document) as JsonObject;
  const paths = copy.paths as JsonObject;
  for (const operation of operations) {
    const item = deref(copy, paths[operation.path], operation.path) as JsonObject;
    withSamples(item[operation.method] as JsonObject, codeSamplesFor(operation));
  }
  for (const event of webhooks) {
    const item = deref(copy, (copy.webhooks as JsonObject)[event.type], event.type) as JsonObject;
    withSamples(item.post as JsonObject, webhookSamplesFor(event));
  }
  return { document: copy, operations, webhooks };
}
