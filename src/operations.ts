/** What the contract says about an operation, looked up by path template and method. */
import { operations } from "../generated/contract.ts";
import type { HttpMethod } from "./http-methods.ts";

/**
 * One operation's facts (generated/contract.ts): its operationId, whether it is safe to repeat, whether it acts
 * for a company, the error statuses it declares, and its path parameters (1: a ULID, 0: any other string).
 */
export type OperationFacts = readonly [
  operationId: string,
  idempotent: 0 | 1,
  companyScope: 0 | 1,
  errorStatuses?: readonly number[],
  pathParameters?: { readonly [name: string]: 0 | 1 },
];

/** Upper-case, as openapi-fetch's client names its methods. */
export type UpperMethod = Uppercase<HttpMethod>;

const byPath: { readonly [path: string]: { readonly [method: string]: OperationFacts } | undefined } = operations;

/**
 * The operation `method` (upper case) on `schemaPath` (a path template such as `/v1/cards/{cardId}`), if any.
 * Two property reads, no key built. A path such as `constructor` reaches a prototype, which has no upper-case
 * method names, so it finds nothing too.
 */
export function operationFor(method: UpperMethod, schemaPath: string): OperationFacts | undefined {
  return byPath[schemaPath]?.[method];
}
