/**
 * The checks of how the service treats the requests verify sends on purpose: conforming data accepted, broken
 * data, a missing header, no credentials and an undeclared method refused, and the other account kept out.
 */
import type { Exchange, Finding, Probe } from "../types.ts";
import { answered, bodyExcerpt, is2xx, is4xx } from "./define.ts";
import { heldIds, namedIds } from "./held-ids.ts";

/** Statuses a conforming request may get besides 2xx (after Schemathesis's positive_data_acceptance). */
const ALSO_ACCEPTED_FOR_VALID_DATA = [409, 429];

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
