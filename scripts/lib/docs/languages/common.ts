/**
 * What every language's sample generator shares: the request as the contract's examples make it (path with its
 * ids, query string, headers), the names a sample gives the object it reads, and the webhook verification's
 * inputs. Each language's file (python.ts, java.ts, …) only spells these in its own standard library.
 */
import { isObject, type Json } from "partner-api-devkit/cli";
import type { OperationExample } from "../operation-example.ts";

/** Environment variables the samples read; the source names no host, so the base address is the reader's. */
export const API_KEY_VARIABLE = "PARTNER_API_KEY";
export const BASE_URL_VARIABLE = "PARTNER_API_BASE_URL";
/** The webhook endpoint's signing secret, read by the verification samples. */
export const WEBHOOK_SECRET_VARIABLE = "PARTNER_WEBHOOK_SECRET";
/** The header that scopes a request to one company (`#/components/parameters/CompanyId`). */
export const COMPANY_HEADER = "X-Company-Id";
export const SIGNATURE_HEADER = "X-Signature";

/** One language's samples: a request per operation, and the webhook signature check. */
export interface SampleLanguage {
  /** Redoc's tab label (Redoc highlights by it: `Python`, `C#`…). */
  label: string;
  /** The `lang` of the `x-codeSamples` entry. */
  lang: string;
  /** The file a sample is saved as to run it (`sample.py`). */
  file: string;
  request(operation: OperationExample): string;
  /**
   * The webhook page's sample: a program that reads a delivery's raw body on standard input and its `X-Signature`
   * as its first argument, verifies it and prints the event's type and id (curl: a signed delivery of `event`).
   */
  webhook(event: WebhookExample): string;
}

/** A webhook's example delivery, the body as the service would send it. */
export interface WebhookExample {
  type: string;
  body: string;
}

function pathValue(value: Json): string {
  return encodeURIComponent(typeof value === "string" ? value : JSON.stringify(value));
}

/** The request target: the path with the examples' ids in it, and the query string, encoded. */
export function requestTarget(operation: OperationExample): string {
  let target = operation.path;
  for (const [name, value] of operation.pathParams) target = target.replace(`{${name}}`, pathValue(value));
  if (operation.queryParams.length > 0)
    target += `?${operation.queryParams.map(([name, value]) => `${encodeURIComponent(name)}=${pathValue(value)}`).join("&")}`;
  return target;
}

/** Headers with a literal value (the company, other header parameters, the body's type); the API key is read apart. */
export function literalHeaders(operation: OperationExample): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  if (operation.companyId !== undefined) headers.push([COMPANY_HEADER, operation.companyId]);
  for (const [name, value] of operation.headerParams) headers.push([name, String(value)]);
  if (operation.body) headers.push(["Content-Type", "application/json"]);
  return headers;
}

/** The name of one item of a list property: `cards` → `card`, `companies` → `company`; `item` when a field has it. */
export function itemName(operation: OperationExample): string {
  const list = operation.result.at ?? "result";
  const singular = list.endsWith("ies") ? `${list.slice(0, -3)}y` : list.endsWith("s") ? list.slice(0, -1) : "item";
  return operation.result.fields.some((path) => path[0] === singular) ? "entry" : singular;
}

/** Names the samples give their own variables: an object read is never called one of these. */
const TAKEN = new Set(["result", "data", "response", "request", "body", "status", "error", "client", "company"]);

/** The name of the object a sample reads: the property (`card`), one item of a list (`card`), or `result`. */
export function readName(operation: OperationExample): string {
  const { at, list } = operation.result;
  if (at === undefined) return "result";
  const name = list ? itemName(operation) : at;
  return TAKEN.has(name) ? "content" : name;
}

/** `cardBin` → `card_bin`, for Python and Ruby. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** `createCard` → `CreateCard`, a class or program name. */
export function pascalCase(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** A double-quoted string literal valid in Python, Java, Go, C#, PHP, Ruby and TypeScript (JSON escapes; `$` escaped for PHP and Ruby is their job). */
export function quoted(text: string): string {
  return JSON.stringify(text);
}

/** A single-quoted string literal of PHP and Ruby (a backslash and a quote escaped), so `$` and `#{…}` stay text. */
export function singleQuoted(text: string): string {
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/** JSON of a body, two-space indented, for the languages that send it as text. */
export function bodyJson(operation: OperationExample): string | undefined {
  return operation.body ? JSON.stringify(operation.body.value, null, 2) : undefined;
}

/** Indents every line but the first by `spaces`. */
export function indentRest(text: string, spaces: number): string {
  return text.split("\n").join(`\n${" ".repeat(spaces)}`);
}

/** How a language writes a JSON value as a literal of its own (Python's dict, Ruby's hash, PHP's array, TypeScript). */
export interface LiteralSpelling {
  /** Spaces per level. */
  step: number;
  null: string;
  string(text: string): string;
  key(key: string): string;
  /** Between a key and its value: `": "`, `" => "`. */
  pair: string;
  object: [open: string, close: string, empty: string];
  array: [open: string, close: string];
  true?: string;
  false?: string;
}

/** A JSON value as a literal in `spelling`, indented to `indent` spaces; lists of scalars stay on one line. */
export function literal(value: Json, spelling: LiteralSpelling, indent = 0): string {
  const pad = " ".repeat(indent);
  const inner = " ".repeat(indent + spelling.step);
  if (value === null) return spelling.null;
  if (value === true) return spelling.true ?? "true";
  if (value === false) return spelling.false ?? "false";
  if (typeof value === "string") return spelling.string(value);
  const [open, close] = spelling.array;
  if (Array.isArray(value)) {
    if (value.length === 0) return `${open}${close}`;
    if (value.every((item) => item === null || typeof item !== "object"))
      return `${open}${value.map((item) => literal(item, spelling)).join(", ")}${close}`;
    return `${open}\n${value.map((item) => `${inner}${literal(item, spelling, indent + spelling.step)},`).join("\n")}\n${pad}${close}`;
  }
  if (isObject(value)) {
    const entries = Object.entries(value);
    const [start, end, empty] = spelling.object;
    if (entries.length === 0) return empty;
    const lines = entries.map(
      ([key, item]) =>
        `${inner}${spelling.key(key)}${spelling.pair}${literal(item, spelling, indent + spelling.step)},`,
    );
    return `${start}\n${lines.join("\n")}\n${pad}${end}`;
  }
  return JSON.stringify(value);
}
