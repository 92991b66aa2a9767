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
   * as its first argument, verifies it over those bytes (exit 1 and `invalid signature` on stderr otherwise: a
   * receiver's 401), then handles that event's data as a receiver of it would, printing `webhookLines` (curl: a
   * signed delivery of `event`).
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

/** The event kinds whose samples handle their data (each language spells each in its own idiom). */
export const WEBHOOK_TYPES = [
  "company.onboarding_status_changed",
  "company.kyc_link.issued",
  "company.kyc_status_changed",
  "payment_route.created",
  "payment_route.transaction.created",
  "company.kyb_status_changed",
] as const;

/** What the source does not show in a payload: the receiver reads the company again instead. */
export const UNSHOWN_PAYLOAD_LINES: Readonly<Record<string, string>> = {
  "company.onboarding_status_changed":
    "onboarding status changed: the payload is not specified; read the company again (listCompanies)",
  "company.kyb_status_changed":
    "KYB result changed: the payload is not specified; read the company again (listCompanies)",
};

/** What a sample says where it reads the company again instead of a payload the source does not show. */
export const UNSHOWN_COMMENT = "The API description does not show this payload: read the company again.";

/**
 * A language's handling of event `type`: its own from `handlers`, or for a payload the source does not show,
 * `unshown` spelling the comment and the line to print; nothing for an event the samples do not know.
 */
export function webhookHandling(
  type: string,
  handlers: Readonly<Record<string, string>>,
  unshown: (comment: string, line: string) => string,
): string {
  if (Object.hasOwn(handlers, type)) return handlers[type]!;
  const line = UNSHOWN_PAYLOAD_LINES[type];
  return line === undefined ? "" : unshown(UNSHOWN_COMMENT, line);
}

type Tree = Record<string, unknown>;
const tree = (value: unknown): Tree => (value !== null && typeof value === "object" ? (value as Tree) : {});
const text = (value: unknown): string => (typeof value === "string" ? value : "");

/**
 * What every language's webhook sample prints for a verified delivery `body`: the event's type and id (the key
 * to deduplicate by), then what a receiver of that event does with its fields. Every payload field may be absent:
 * an absent text prints empty, an absent flag or kind takes the last branch. The samples test holds each
 * language's output to these lines.
 */
export function webhookLines(body: string): string[] {
  const event = tree(JSON.parse(body));
  const payload = tree(event.payload);
  const head = `${text(event.type)} ${text(event.id)}`;
  const type = text(event.type);
  if (type in UNSHOWN_PAYLOAD_LINES) return [head, UNSHOWN_PAYLOAD_LINES[type]!];
  const company = text(payload.companyId);
  switch (type) {
    case "company.kyc_link.issued":
      return [
        head,
        `company ${company}: KYC ${text(payload.kycStatus)}; send the director to ${text(payload.kycUrl)}`,
        payload.tosAccepted === true
          ? "terms of service: accepted"
          : `terms of service: to accept at ${text(payload.tosUrl)}`,
      ];
    case "company.kyc_status_changed": {
      const status = text(payload.kycStatus);
      const next =
        status === "approved"
          ? "next: the company can use Swap"
          : status === "rejected"
            ? "next: tell the company its verification was rejected"
            : "next: wait for the next status";
      return [head, `company ${company}: KYC ${status}`, next];
    }
    case "payment_route.created": {
      const route = tree(payload.paymentRoute);
      const [source, destination] = [tree(route.source), tree(route.destination)];
      return [
        head,
        `${text(route.type)} route ${text(route.id)} (${text(route.status)}) for company ${company}`,
        `in: ${text(source.currency)} via ${text(source.paymentRail)} to ${text(route.depositAddress)}`,
        `out: ${text(destination.currency)} via ${text(destination.paymentRail)}`,
      ];
    }
    case "payment_route.transaction.created": {
      const data = tree(payload.data);
      const route = text(data.routeId);
      if (data.routeType === "offramp")
        return [
          head,
          `offramp route ${route}: ${text(data.incomingAmount)} ${text(tree(data.source).currency)} in, ${text(data.convertedAmount)} ${text(tree(data.destination).currency)} out to ${text(tree(data.destination).bankName)}, fees ${text(data.totalFees)}`,
        ];
      if (data.routeType === "onramp")
        return [
          head,
          `onramp route ${route}: ${text(data.incomingAmount)} from ${text(data.senderName)}, ${text(data.convertedAmount)} out`,
        ];
      const transaction = tree(payload.transaction);
      return [
        head,
        `route ${route} transaction ${text(transaction.id)}: ${text(transaction.amount)} ${text(transaction.currency)}`,
      ];
    }
    default:
      return [head];
  }
}
