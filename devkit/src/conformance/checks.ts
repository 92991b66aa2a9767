/**
 * The conformance checks: one small function each, registered with a stable id and a level (after
 * Schemathesis's `docs/reference/checks.md`; the ids it has are its ids). `verify` judges every answer it gets
 * and every webhook delivery its receiver gets with them; `proxy` judges the traffic it forwards with the same
 * functions. Going from an id to its code is one lookup in CHECKS.
 */
import { verifyWebhookSignature } from "partner-api-client";
import type { ContractRouter } from "../contract/router.ts";
import { redactedBodyText } from "../redact.ts";
import type { Delivery, Exchange, Failure, Finding, Level, Probe } from "./types.ts";

export interface CheckContext {
  router: ContractRouter;
  /** --max-response-time, when given. */
  maxResponseTimeMs?: number;
  /** The signing secret each account's receiver was registered with (none: signatures are not judged). */
  webhookSecrets?: ReadonlyMap<Delivery["account"], string>;
}

/** verify's checks, by id: CHECKS has exactly these, and the fixtures' registry one entry or more for each. */
export const VERIFY_CHECK_IDS = [
  "not_a_server_error",
  "status_code_conformance",
  "content_type_conformance",
  "response_schema_conformance",
  "response_headers_conformance",
  "positive_data_acceptance",
  "negative_data_rejection",
  "missing_required_header",
  "ignored_auth",
  "unsupported_method",
  "max_response_time",
  "ensure_resource_availability",
  "workflow_success_criteria",
  "account_isolation",
  "webhook_signature",
  "webhook_content_type",
  "webhook_event_type",
  "webhook_schema_conformance",
  "webhook_delivered",
] as const;
export type VerifyCheckId = (typeof VERIFY_CHECK_IDS)[number];

interface CheckBase {
  id: VerifyCheckId;
  level: Level;
  /** One line: what it checks. */
  summary: string;
  /** Which requests or deliveries it judges. */
  judges: string;
  /** What the contract or the API description requires, which this check holds the implementation to. */
  requires: string;
  /** What the source leaves open, which this check therefore never fails. */
  leavesOpen: string;
}

export interface ResponseCheck extends CheckBase {
  target: "response";
  run(exchange: Exchange, context: CheckContext): Finding[];
}

export interface DeliveryCheck extends CheckBase {
  target: "delivery";
  run(delivery: Delivery, context: CheckContext): Finding[];
}

/** A check of the run as a whole (what should have happened did): judged by the engine at the end. */
export interface RunCheck extends CheckBase {
  target: "run";
}

export type Check = ResponseCheck | DeliveryCheck | RunCheck;

/**
 * Statuses the contract need not declare: the API description leaves the status codes of missing or invalid
 * credentials, a missing company header and every error of most operations open ("not shown"), so an answer
 * with one of these is not an undeclared status. Whether it was the right answer is for the other checks.
 */
export const GENERIC_STATUSES: ReadonlyMap<number, string> = new Map([
  [400, "a malformed request"],
  [401, "missing or invalid credentials"],
  [403, "credentials or company not allowed"],
  [404, "an unknown path or object"],
  [405, "a method the path does not have"],
  [406, "an Accept header it cannot serve"],
  [409, "a conflict with the current state"],
  [413, "a body too large"],
  [415, "a content type it does not take"],
  [422, "a request that breaks a rule"],
  [429, "too many requests"],
]);

/** Broken rules reported per body at most: a large body breaking one rule everywhere is one story. */
export const MAX_FINDINGS = 20;

/** Statuses a conforming request may get besides 2xx (after Schemathesis's positive_data_acceptance). */
const ALSO_ACCEPTED_FOR_VALID_DATA = [409, 429];

function mediaTypeOf(contentType: string | null): string | undefined {
  const type = contentType?.split(";")[0]?.trim().toLowerCase();
  return type === "" ? undefined : type;
}

function isJsonMediaType(type: string): boolean {
  return type === "application/json" || /^application\/[\w.+-]+\+json$/.test(type);
}

function excerpt(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** The start of an answer's body for a message: its secrets redacted, and only the size of one not JSON. */
function bodyExcerpt(answer: Exchange["answer"]): string {
  return answer.text
    ? `: ${excerpt(redactedBodyText(answer.text, answer.headers.get("content-type") ?? undefined))}`
    : "";
}

function answered(exchange: Exchange): boolean {
  return exchange.answer.error === undefined;
}

function is2xx(status: number): boolean {
  return status >= 200 && status < 300;
}

function is4xx(status: number): boolean {
  return status >= 400 && status < 500;
}

/**
 * Calls `visit` with every string value in a JSON value (not property names), in document order, until it
 * returns true. Walked with a list, not recursion: any depth and any number of items cost no stack.
 */
export function visitStrings(value: unknown, visit: (text: string) => boolean | undefined): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === "string") {
      if (visit(node)) return true;
    } else if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) pending.push(node[index]);
    } else if (node !== null && typeof node === "object") {
      const values = Object.values(node);
      for (let index = values.length - 1; index >= 0; index--) pending.push(values[index]);
    }
  }
  return false;
}

/** Whether a JSON value holds `id` as a string anywhere in it. */
export function holdsString(value: unknown, id: string): boolean {
  return visitStrings(value, (text) => text === id);
}

/** The ids of `ids` a JSON value holds, each once, in the order it holds them: one pass over the value. */
export function heldIds(value: unknown, ids: ReadonlySet<string>): string[] {
  const held = new Set<string>();
  visitStrings(value, (text) => {
    if (ids.has(text)) held.add(text);
    return undefined;
  });
  return [...held];
}

/** Ids named in one message at most; the rest are counted. */
const IDS_NAMED = 10;

/** "01J…, 01K… and 3 more" */
export function namedIds(ids: readonly string[]): string {
  const named = ids.slice(0, IDS_NAMED).join(", ");
  return ids.length > IDS_NAMED ? `${named} and ${ids.length - IDS_NAMED} more` : named;
}

function declaredStatuses(exchange: Exchange): string {
  return [...(exchange.probe.operation?.responses.keys() ?? [])].join(", ") || "none";
}

// ---- Responses ----

/** Whether an answer is one of the sandbox's injected faults (`POST /_sandbox/faults`): its problem type says so. */
export function isInjectedFault(answer: Exchange["answer"]): boolean {
  const type = (answer.json as { type?: unknown } | undefined)?.type;
  return typeof type === "string" && /\/problems\/fault$/.test(type);
}

export function notAServerError(exchange: Exchange): Finding[] {
  const { answer } = exchange;
  if (answer.error !== undefined) return [{ message: `no answer: ${answer.error}` }];
  if (answer.status >= 500)
    return [
      {
        message: isInjectedFault(answer)
          ? `injected fault ${answer.status} (the sandbox's /_sandbox/faults, not a bug of the service)${bodyExcerpt(answer)}`
          : `server error ${answer.status}${bodyExcerpt(answer)}`,
      },
    ];
  return [];
}

export function statusCodeConformance(exchange: Exchange): Finding[] {
  const { probe, answer } = exchange;
  if (!answered(exchange) || !probe.operation || answer.status >= 500) return [];
  if (probe.operation.responses.has(answer.status) || GENERIC_STATUSES.has(answer.status)) return [];
  return [
    {
      message: `status ${answer.status} is not declared for ${probe.operationId} (declared: ${declaredStatuses(exchange)}; generic error statuses: ${[...GENERIC_STATUSES.keys()].join(", ")})${redirectNote(answer)}`,
    },
  ];
}

/** For a 3xx: where it pointed, and that verify did not follow it. */
export function redirectNote(answer: { status: number; headers: { get(name: string): string | null } }): string {
  if (answer.status < 300 || answer.status > 399) return "";
  const location = answer.headers.get("location");
  return location === null
    ? "; a redirect without a Location, not followed"
    : `; a redirect to ${JSON.stringify(location.slice(0, 300))}, not followed`;
}

export function contentTypeConformance(exchange: Exchange): Finding[] {
  const { probe, answer } = exchange;
  if (!answered(exchange) || !probe.operation || answer.status >= 500) return [];
  const received = mediaTypeOf(answer.headers.get("content-type"));
  const declared = probe.operation.responseMediaTypes.get(answer.status);
  const hasBody = answer.text !== "" || answer.unread !== undefined;
  if (!hasBody && (declared === undefined || declared.length === 0)) return [];
  if (declared !== undefined && declared.length > 0) {
    if (received === undefined)
      return [{ message: `no Content-Type header; ${answer.status} declares ${declared.join(", ")}` }];
    if (!declared.some((type) => type.toLowerCase() === received))
      return [
        { message: `Content-Type ${received} is not declared for ${answer.status}; declared: ${declared.join(", ")}` },
      ];
    return [];
  }
  if (declared !== undefined && hasBody)
    return [
      { message: `${answer.status} declares no body, but the answer has one (${received ?? "no Content-Type"})` },
    ];
  // A generic status: the API description says every body is JSON.
  if (received === undefined) return [{ message: `a ${answer.status} body without a Content-Type header` }];
  if (!isJsonMediaType(received))
    return [
      {
        message: `Content-Type ${received} on a ${answer.status} the contract does not declare: every body of this API is JSON (application/json or application/*+json)`,
      },
    ];
  return [];
}

export function responseSchemaConformance(exchange: Exchange, context: CheckContext): Finding[] {
  const { probe, answer } = exchange;
  if (!answered(exchange) || !probe.operation?.responses.get(answer.status) || answer.unread !== undefined) return [];
  if (answer.json === undefined)
    return [{ message: `the ${answer.status} body is not JSON: ${answer.jsonError ?? "empty"}`, jsonPath: "" }];
  const issues = context.router.validateResponse(probe.operation, answer.status, answer.json);
  const findings: Finding[] = issues.slice(0, MAX_FINDINGS).map((issue) => ({
    message: issue.message,
    jsonPath: issue.location[1] ?? "",
    ...(issue.rule ? { rule: issue.rule } : {}),
  }));
  if (issues.length > MAX_FINDINGS)
    findings.push({ message: `and ${issues.length - MAX_FINDINGS} more broken rules in the same body` });
  return findings;
}

export function responseHeadersConformance(exchange: Exchange, context: CheckContext): Finding[] {
  const { probe, answer } = exchange;
  if (!answered(exchange) || !probe.operation?.responses.has(answer.status)) return [];
  return context.router.validateResponseHeaders(probe.operation, answer.status, answer.headers).map((issue) => ({
    message: issue.message,
    jsonPath: `header ${issue.location[1]}`,
    ...(issue.rule ? { rule: issue.rule } : {}),
  }));
}

/**
 * A request of `kind` must be refused with 4xx (a 5xx is not_a_server_error's to report), and not with 404 when
 * everything it names is an object the run has seen: that object is there, so "not found" is the wrong reason.
 */
function refusedWith4xx(exchange: Exchange, kind: Probe["kind"], what: string): Finding[] {
  const { probe, answer } = exchange;
  if (probe.kind !== kind || !answered(exchange) || answer.status >= 500) return [];
  if (is4xx(answer.status)) {
    if (answer.status !== 404 || probe.knownObjects === undefined || probe.knownObjects.length === 0) return [];
    return [
      {
        message: `${what} (${probe.label}) was answered 404, but ${probe.knownObjects.join(", ")} exists (this run ${probe.knownObjects.length === 1 ? "has seen it" : "has seen them"}): refused for the wrong reason`,
      },
    ];
  }
  return [{ message: `${what} (${probe.label}) was answered ${answer.status}, not 4xx` }];
}

export function negativeDataRejection(exchange: Exchange): Finding[] {
  return refusedWith4xx(exchange, "negative", "a request that breaks the contract");
}

export function positiveDataAcceptance(exchange: Exchange): Finding[] {
  const { probe, answer } = exchange;
  if (probe.kind !== "positive" || !answered(exchange) || answer.status >= 500 || is2xx(answer.status)) return [];
  if (ALSO_ACCEPTED_FOR_VALID_DATA.includes(answer.status)) return [];
  if (probe.alsoAccepted?.statuses.includes(answer.status)) return [];
  return [
    {
      message: `a request that conforms to the contract (${probe.label}) was refused with ${answer.status}${bodyExcerpt(answer)}`,
    },
  ];
}

export function missingRequiredHeader(exchange: Exchange): Finding[] {
  return refusedWith4xx(exchange, "missing-header", "a request without a required header");
}

/**
 * A request without a valid key must not get through: a 2xx fails. Which refusal it gets (401, 403, 400…) the
 * API description leaves open ("Status codes for missing or invalid credentials … not shown").
 */
export function ignoredAuth(exchange: Exchange): Finding[] {
  const { probe, answer } = exchange;
  if (probe.kind !== "no-auth" || !answered(exchange) || !is2xx(answer.status)) return [];
  return [{ message: `a request ${probe.label} was answered ${answer.status}: it was let through` }];
}

export function unsupportedMethod(exchange: Exchange): Finding[] {
  const { probe, answer } = exchange;
  if (probe.kind !== "wrong-method" || !answered(exchange) || answer.status >= 500) return [];
  // After Schemathesis: a path whose ids the run has not seen may route to 404 before the method is looked at.
  if (answer.status === 404 && probe.path.includes("{") && !probe.knownObjects?.length) return [];
  if (answer.status !== 405)
    return [
      {
        message: `${probe.method} ${probe.path}, a method the path does not have, was answered ${answer.status}, not 405`,
      },
    ];
  if (!answer.headers.get("allow"))
    return [{ message: "405 without the Allow header RFC 9110 requires (the methods the path has)" }];
  return [];
}

export function maxResponseTime(exchange: Exchange, context: CheckContext): Finding[] {
  const limit = context.maxResponseTimeMs;
  if (limit === undefined || !answered(exchange) || exchange.answer.ms <= limit) return [];
  return [{ message: `answered in ${Math.round(exchange.answer.ms)} ms, over the ${limit} ms limit` }];
}

export function accountIsolation(exchange: Exchange): Finding[] {
  const { probe, answer } = exchange;
  if (probe.kind !== "isolation" || !answered(exchange) || answer.status >= 500) return [];
  const findings: Finding[] = [];
  if (probe.foreignIds && is2xx(answer.status)) {
    const held = heldIds(answer.json, probe.foreignIds);
    if (held.length > 0)
      findings.push({
        message: `the other account's answer holds ${held.length === 1 ? `${held[0]}, an object` : `${held.length} objects (${namedIds(held)})`} of the first account`,
      });
  }
  const refused =
    answer.status === 403 || answer.status === 404 || probe.alsoAccepted?.statuses.includes(answer.status);
  if (probe.foreignObject !== undefined && !refused)
    findings.push({
      message: `the other account named ${probe.foreignObject} of the first account (${probe.label}) and was answered ${answer.status}, not 403 or 404`,
    });
  return findings;
}

// ---- Webhook deliveries ----

export function webhookSignature(delivery: Delivery, context: CheckContext): Finding[] {
  const secret = context.webhookSecrets?.get(delivery.account);
  if (secret === undefined) return [];
  if (verifyWebhookSignature(delivery.raw, delivery.signature, secret)) return [];
  const others = [...(context.webhookSecrets ?? [])].filter(([account]) => account !== delivery.account);
  const mixedUp = others.find(([, other]) => verifyWebhookSignature(delivery.raw, delivery.signature, other));
  return [
    {
      message:
        delivery.signature === undefined
          ? "no X-Signature header"
          : mixedUp
            ? `X-Signature is the HMAC-SHA256 of the body under the ${mixedUp[0]} account's signing secret, not the ${delivery.account} account's: another account's secret`
            : `X-Signature ${excerpt(delivery.signature, 70)} is not the HMAC-SHA256 of the body under the ${delivery.account} account's signing secret`,
    },
  ];
}

/** The API description: every body is JSON. A delivery without a JSON Content-Type fails. */
export function webhookContentType(delivery: Delivery): Finding[] {
  const type = mediaTypeOf(delivery.contentType ?? null);
  if (type === undefined) return [{ message: "no Content-Type header; every body of this API is application/json" }];
  if (isJsonMediaType(type)) return [];
  return [{ message: `Content-Type ${type}; every body of this API is JSON (application/json)` }];
}

function envelopeType(delivery: Delivery): unknown {
  return (delivery.json as { type?: unknown } | undefined)?.type;
}

export function webhookEventType(delivery: Delivery, context: CheckContext): Finding[] {
  if (delivery.json === undefined) return [{ message: "the body is not JSON" }];
  const type = envelopeType(delivery);
  if (typeof type === "string" && context.router.webhooks.has(type)) return [];
  return [
    {
      message: `event type ${JSON.stringify(type)} is not one the contract names (${[...context.router.webhooks.keys()].join(", ")})`,
      jsonPath: "/type",
    },
  ];
}

export function webhookSchemaConformance(delivery: Delivery, context: CheckContext): Finding[] {
  const type = envelopeType(delivery);
  if (typeof type !== "string") return [];
  const issues = context.router.validateWebhook(type, delivery.json);
  return (issues ?? []).map((issue) => ({
    message: issue.message,
    jsonPath: `/${issue.location.slice(1).join("/")}`,
    ...(issue.rule ? { rule: issue.rule } : {}),
  }));
}

/** Every check, in the order reports list them. */
export const CHECKS: readonly Check[] = [
  {
    id: "not_a_server_error",
    level: "error",
    target: "response",
    summary: "no 5xx, and an answer at all",
    judges: "every request",
    requires: "an answer; the contract declares no 5xx for any operation",
    leavesOpen: "nothing: a 5xx is never declared",
    run: notAServerError,
  },
  {
    id: "status_code_conformance",
    level: "error",
    target: "response",
    summary: "the status is one the operation declares, or a generic error status (--list-checks lists them)",
    judges: "every request",
    requires: "a status the operation declares",
    leavesOpen:
      "the error statuses the API description does not show (credentials, X-Company-Id, most errors): the generic statuses below are allowed on any operation",
    run: statusCodeConformance,
  },
  {
    id: "content_type_conformance",
    level: "error",
    target: "response",
    summary: "the Content-Type is one the status declares; a generic error status has a JSON body",
    judges: "every request",
    requires: "the media type the status declares; the API description: every body is JSON",
    leavesOpen: "the shape of error bodies (not shown): only that they are JSON",
    run: contentTypeConformance,
  },
  {
    id: "response_schema_conformance",
    level: "error",
    target: "response",
    summary: "the body validates against the status's schema (JSON Schema 2020-12, formats included)",
    judges: "every request answered with a declared status",
    requires: "the declared schema of the status, formats and patterns included",
    leavesOpen: "fields the description lists as optional may be absent; undeclared statuses have no schema",
    run: responseSchemaConformance,
  },
  {
    id: "response_headers_conformance",
    level: "error",
    target: "response",
    summary: "the headers the status declares are there and valid",
    judges: "every request answered with a declared status",
    requires: "the response headers a status declares (this contract declares none today: the check waits for one)",
    leavesOpen: "every header the contract does not declare",
    run: responseHeadersConformance,
  },
  {
    id: "positive_data_acceptance",
    level: "error",
    target: "response",
    summary: "a request that conforms to the contract is accepted (2xx; 409 and 429 allowed)",
    judges: "the contract's examples and requests generated from its schemas, ids chased along the contract's links",
    requires: "a request the contract allows, on objects the run has seen, is not refused",
    leavesOpen:
      "409 (a conflict with the current state) and 429 (rate limits: not shown); 404 for an id the contract does not promise the operation knows",
    run: positiveDataAcceptance,
  },
  {
    id: "negative_data_rejection",
    level: "error",
    target: "response",
    summary:
      "a request with one part breaking the contract is refused with 4xx, not 404 for an object the run has seen",
    judges: "a body, path, query or header value that breaks a rule, malformed JSON, a wrong content type",
    requires: "a request the contract does not allow is refused (4xx), for the reason it is wrong",
    leavesOpen: "which 4xx (error statuses and bodies are not shown), except 404 for an object known to exist",
    run: negativeDataRejection,
  },
  {
    id: "missing_required_header",
    level: "error",
    target: "response",
    summary:
      "a request without a required header (X-Company-Id) is refused with 4xx, not 404 for an object the run has seen",
    judges: "each operation with a required header, sent without it",
    requires: "the API description: company-scoped operations require X-Company-Id",
    leavesOpen: "the status for a missing company header (not shown): any 4xx but a 404 for a known object",
    run: missingRequiredHeader,
  },
  {
    id: "ignored_auth",
    level: "error",
    target: "response",
    summary: "a request without X-API-Key is not let through (no 2xx)",
    judges: "each operation, sent without credentials",
    requires: "the API description: every operation requires X-API-Key",
    leavesOpen: "the status of the refusal (not shown): 400, 401, 403, 404 all pass; only a 2xx fails",
    run: ignoredAuth,
  },
  {
    id: "unsupported_method",
    level: "warning",
    target: "response",
    summary:
      "a method the path does not have is answered 405 with an Allow header (RFC 9110; the API description does not say)",
    judges: "each path, with one method it does not declare",
    requires: "nothing of the API description: RFC 9110 15.5.6, so a warning only (a 2xx is reported the same way)",
    leavesOpen: "the whole answer, as far as the contract goes: never fails a run",
    run: unsupportedMethod,
  },
  {
    id: "max_response_time",
    level: "error",
    target: "response",
    summary: "every answer within --max-response-time (on only when that option is given)",
    judges: "every request",
    requires: "only your own limit: the API description states none",
    leavesOpen: "any time, unless --max-response-time is given",
    run: maxResponseTime,
  },
  {
    id: "ensure_resource_availability",
    level: "error",
    target: "run",
    summary:
      "what a workflow made or listed can be read back: a contract workflow's step whose success criterion compares its answer with an earlier step's output (the created card listed, the same wallet address again, a listed entry read by its id) meets it",
    judges: "the read-back steps of the contract's workflows (openapi/workflows/) that verify runs",
    requires:
      "the API description, as the workflows' success criteria state it: list cards lists the company's cards, opening an address again returns the existing one (200), get transaction reads a listed entry",
    leavesOpen: "the order of lists beyond what a workflow's criteria state, and a card's status while it is created",
  },
  {
    id: "workflow_success_criteria",
    level: "error",
    target: "run",
    summary:
      "a contract workflow's step of the partner API meets its success criteria on the answer's values (a new Swap company's verification `not_started`, a new card `Creating`)",
    judges:
      "the partner API steps of the contract's workflows that verify runs; criteria on the status are left to the status checks, and those comparing with an earlier step to ensure_resource_availability",
    requires: "the API description, as the workflows' success criteria state it (they state nothing else)",
    leavesOpen:
      "the control API's steps (the sandbox's own answers, not the partner API's), and any value no criterion names",
  },
  {
    id: "account_isolation",
    level: "error",
    target: "response",
    summary:
      "the other account (--other-api-key) never reads or uses the first one's objects: 403 or 404, and none of its ids in any answer or webhook (OWASP API1)",
    judges:
      "the first account's requests sent again with the other key, each account's lists and each account's webhooks searched for the other's ids",
    requires:
      "the API description: an account acts for its own companies; getTransaction answers 403 or 404 for another account's transaction",
    leavesOpen: "403 or 404 (either refuses); a 422 where the other account's ids are in a body it validates",
    run: accountIsolation,
  },
  {
    id: "webhook_signature",
    level: "error",
    target: "delivery",
    summary: "X-Signature is the HMAC-SHA256 of the raw body under the signing secret of the receiver's account",
    judges: "every delivery to verify's receiver, duplicates included; each account's receiver has its own secret",
    requires: "the API description: X-Signature, hex HMAC-SHA256 of the raw body with the endpoint's secret",
    leavesOpen: "retries, ordering and duplicates (not shown): each copy is judged, none is required",
    run: webhookSignature,
  },
  {
    id: "webhook_content_type",
    level: "error",
    target: "delivery",
    summary: "the delivery's Content-Type is JSON (application/json)",
    judges: "every delivery to verify's receiver, duplicates included",
    requires: "the API description: every body is JSON",
    leavesOpen: "charset and other parameters of the media type",
    run: webhookContentType,
  },
  {
    id: "webhook_event_type",
    level: "error",
    target: "delivery",
    summary: "the body is a JSON envelope whose type the contract names",
    judges: "every delivery to verify's receiver, duplicates included",
    requires: "the event types of the contract's webhooks",
    leavesOpen: "nothing: an event type the contract does not name fails",
    run: webhookEventType,
  },
  {
    id: "webhook_schema_conformance",
    level: "error",
    target: "delivery",
    summary: "the envelope and its payload validate against the contract's webhooks schema for the type",
    judges: "every delivery to verify's receiver, duplicates included",
    requires: "the contract's schema of the envelope and of the type's payload",
    leavesOpen: "payloads the description does not show (onboarding and KYB status changes): kept open in the contract",
    run: webhookSchemaConformance,
  },
  {
    id: "webhook_delivered",
    level: "error",
    target: "run",
    summary:
      "each event a contract workflow that ran promises (its x-webhooks) arrives at the account's receiver, for the company it acted for",
    judges: "the workflows verify runs, within --webhook-wait",
    requires: "the API description's events after an action (the workflows' x-webhooks list them)",
    leavesOpen: "delivery time (not shown): --webhook-wait is your bound",
  },
];

/** Checks of the proxy alone: not verify's (`verify --checks` refuses them). */
export const PROXY_ONLY_CHECKS: readonly { id: string; level: Level; summary: string }[] = [
  {
    id: "request_conformance",
    level: "warning",
    summary:
      "the request itself conforms to the contract: a known operation, valid parameters and body (the client's side)",
  },
];

/** What a check found, as a failure of the request (or delivery) `base` describes. */
export function toFailure(
  check: { id: string; level: Level },
  base: Omit<Failure, "check" | "level" | "message">,
  finding: Finding,
): Failure {
  return {
    check: check.id,
    level: check.level,
    ...base,
    message: finding.message,
    ...(finding.jsonPath !== undefined ? { jsonPath: finding.jsonPath } : {}),
    ...(finding.rule !== undefined ? { rule: finding.rule } : {}),
  };
}

export const CHECK_IDS: readonly string[] = VERIFY_CHECK_IDS;

export function checkById(id: string): Check | undefined {
  return CHECKS.find((check) => check.id === id);
}
