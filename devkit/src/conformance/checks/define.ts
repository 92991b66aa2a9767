/**
 * What every check shares: the ids, the shape of a check (ResponseCheck, DeliveryCheck, RunCheck), the context
 * they judge in, and the small readings of an answer the check modules use.
 */

import type { ContractRouter } from "../../contract/router.ts";
import { redactedBodyText } from "../../redact.ts";
import type { Delivery, Exchange, Failure, Finding, Level } from "../types.ts";

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

export interface CheckBase {
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

export function mediaTypeOf(contentType: string | null): string | undefined {
  const type = contentType?.split(";")[0]?.trim().toLowerCase();
  return type === "" ? undefined : type;
}

export function isJsonMediaType(type: string): boolean {
  return type === "application/json" || /^application\/[\w.+-]+\+json$/.test(type);
}

export function excerpt(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** The start of an answer's body for a message: its secrets redacted, and only the size of one not JSON. */
export function bodyExcerpt(answer: Exchange["answer"]): string {
  return answer.text
    ? `: ${excerpt(redactedBodyText(answer.text, answer.headers.get("content-type") ?? undefined))}`
    : "";
}

export function answered(exchange: Exchange): boolean {
  return exchange.answer.error === undefined;
}

export function is2xx(status: number): boolean {
  return status >= 200 && status < 300;
}

export function is4xx(status: number): boolean {
  return status >= 400 && status < 500;
}

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
