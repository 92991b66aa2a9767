/** What the contract says about an operation, looked up by method and path template. */
import { operations } from "../generated/contract.ts";
import { HTTP_METHODS } from "./http-methods.ts";

export type OperationFacts = (typeof operations)[keyof typeof operations];

/** Upper-case, as openapi-fetch's client names its methods. */
export type UpperMethod = Uppercase<(typeof HTTP_METHODS)[number]>;

// One map per method, keyed by path template: a call looks its operation up once, without building a key.
const byMethod = new Map<string, Map<string, OperationFacts>>(
  HTTP_METHODS.map((method) => [method.toUpperCase(), new Map<string, OperationFacts>()]),
);
for (const facts of Object.values(operations) as OperationFacts[]) byMethod.get(facts.method)?.set(facts.path, facts);

/** The operation `method` (upper case) on `schemaPath` (a path template such as `/v1/cards/{cardId}`), if any. */
export function operationFor(method: UpperMethod, schemaPath: string): OperationFacts | undefined {
  return byMethod.get(method)!.get(schemaPath);
}
