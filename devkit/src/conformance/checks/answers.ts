/**
 * The checks of an answer's shape: an answer at all and no 5xx, a declared status, a declared media type, the
 * status's schema and headers, and the answer time.
 */
import type { Exchange, Finding } from "../types.ts";
import {
  answered,
  bodyExcerpt,
  type CheckContext,
  GENERIC_STATUSES,
  isJsonMediaType,
  MAX_FINDINGS,
  mediaTypeOf,
} from "./define.ts";

function declaredStatuses(exchange: Exchange): string {
  return [...(exchange.probe.operation?.responses.keys() ?? [])].join(", ") || "none";
}

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

export function maxResponseTime(exchange: Exchange, context: CheckContext): Finding[] {
  const limit = context.maxResponseTimeMs;
  if (limit === undefined || !answered(exchange) || exchange.answer.ms <= limit) return [];
  return [{ message: `answered in ${Math.round(exchange.answer.ms)} ms, over the ${limit} ms limit` }];
}
