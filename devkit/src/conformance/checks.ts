/**
 * The conformance checks: one small function each, registered with a stable id and a level (after
 * Schemathesis's `docs/reference/checks.md`; the ids it has are its ids). `verify` judges every answer it gets
 * and every webhook delivery its receiver gets with them; `proxy` judges the traffic it forwards with the same
 * functions. Going from an id to its code is one lookup in CHECKS.
 */

import {
  contentTypeConformance,
  maxResponseTime,
  notAServerError,
  responseHeadersConformance,
  responseSchemaConformance,
  statusCodeConformance,
} from "./checks/answers.ts";
import { type Check, VERIFY_CHECK_IDS } from "./checks/define.ts";
import {
  accountIsolation,
  ignoredAuth,
  missingRequiredHeader,
  negativeDataRejection,
  positiveDataAcceptance,
  unsupportedMethod,
} from "./checks/requests.ts";
import { webhookContentType, webhookEventType, webhookSchemaConformance, webhookSignature } from "./checks/webhooks.ts";
import type { Level } from "./types.ts";

export * from "./checks/answers.ts";
export {
  type Check,
  type CheckContext,
  type DeliveryCheck,
  GENERIC_STATUSES,
  MAX_FINDINGS,
  type ResponseCheck,
  type RunCheck,
  toFailure,
  VERIFY_CHECK_IDS,
  type VerifyCheckId,
} from "./checks/define.ts";
export * from "./checks/held-ids.ts";
export * from "./checks/requests.ts";
export * from "./checks/webhooks.ts";

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

export const CHECK_IDS: readonly string[] = VERIFY_CHECK_IDS;

export function checkById(id: string): Check | undefined {
  return CHECKS.find((check) => check.id === id);
}
