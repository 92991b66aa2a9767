/**
 * What the conformance engine passes around: a probe (one request verify sends, or one the proxy saw), its
 * answer, what a check found, and the failures and skips a report lists.
 */
import type { Operation } from "../contract/router.ts";

/** `error` fails the run (exit 1); `warning` is reported and fails nothing. */
export type Level = "error" | "warning";

/**
 * Why a request is sent, which decides what its answer must be: `positive` conforms to the contract (2xx
 * expected), `negative` breaks one part of it (4xx), `no-auth` has no valid X-API-Key (not 2xx), `missing-header`
 * lacks a required header (4xx), `wrong-method` uses a method the path does not declare (405), `isolation`
 * is the other account naming the first one's objects (403/404), `availability` is a workflow step reading back
 * what an earlier step made or listed.
 */
export type ProbeKind =
  | "positive"
  | "negative"
  | "no-auth"
  | "missing-header"
  | "wrong-method"
  | "isolation"
  | "availability";

/** Whose key a request carries: the main account's (--api-key), the other one's (--other-api-key), or none. */
export type Account = "main" | "other" | "none";

export interface Probe {
  /** The contract's operation; undefined for a method the path does not declare. */
  operation: Operation | undefined;
  /** The operation's id (for a wrong method: the path's operations, joined). */
  operationId: string;
  method: string;
  /** The path template of the contract, e.g. /v1/cards/{cardId}. */
  path: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  kind: ProbeKind;
  /** What this request is, for a person: "example travelCard", "generated 2", "query page is not an integer". */
  label: string;
  account: Account;
  /** Statuses a positive request may also get, and why (e.g. an id the API need not know). */
  alsoAccepted?: { statuses: number[]; reason: string };
  /** Isolation: the first account's object the request names (e.g. "company 01J…"); 403 or 404 expected. */
  foreignObject?: string;
  /** Isolation: the first account's ids, none of which a 2xx answer to the other account may hold. */
  foreignIds?: Set<string>;
  /**
   * Negative and missing-header requests: the objects it names that the run has seen ("card 01J…"), when it names
   * only such objects; a 404 is then refused for the wrong reason.
   */
  knownObjects?: string[];
}

export interface Answer {
  /** 0 when there was no answer (see `error`). */
  status: number;
  headers: { get(name: string): string | null };
  text: string;
  /** The parsed body when it is JSON. */
  json?: unknown;
  /** Why the body is not JSON, when it is not. */
  jsonError?: string;
  /** Why the body was passed on without being read (over the proxy's cap): nothing is judged of it. */
  unread?: string;
  /** From sending the request to the end of the answer's body. */
  ms: number;
  /** Why there was no answer (refused, reset, timed out). */
  error?: string;
}

export interface Exchange {
  probe: Probe;
  answer: Answer;
}

/** One rule a check found broken. */
export interface Finding {
  message: string;
  /** Where in the answer (or the delivery), as a JSON pointer: `/cards/0/id`. */
  jsonPath?: string;
  /** The schema keyword that was broken, where it lives in the contract: `#/components/schemas/Ulid/pattern`. */
  rule?: string;
}

/** A webhook delivery verify's receiver got. */
export interface Delivery {
  /** Whose receiver it reached. */
  account: "main" | "other";
  path: string;
  signature: string | undefined;
  contentType: string | undefined;
  raw: string;
  /** The parsed body when it is JSON. */
  json?: unknown;
}

export interface Failure {
  check: string;
  level: Level;
  /** The operation's id, or the webhook's event type. */
  operationId: string;
  method: string;
  path: string;
  /** The answer's status (null for a webhook delivery or no answer). */
  status: number | null;
  message: string;
  jsonPath?: string;
  rule?: string;
  /** What the request was (see Probe.label). */
  label?: string;
  /** The exact request as a curl command line (keys read from the environment). */
  curl?: string;
  /** For a webhook: the event's id, when the body had one. */
  eventId?: string;
}

export interface Skip {
  /** The operation, webhook or check that was not exercised. */
  what: string;
  reason: string;
}
