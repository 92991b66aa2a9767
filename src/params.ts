/**
 * Checks path parameters before anything is sent: ULIDs where the contract says ULID, and no value that
 * would change the path (empty, `.` or `..`, which URL parsers collapse even when percent-encoded).
 * openapi-fetch's path serializer URL-encodes every value. The client calls this before the request is built.
 */
import { InvalidInputError } from "./errors.ts";
import { describeValue } from "./input.ts";
import type { OperationFacts } from "./operations.ts";
import { isUlid, ULID_FORM } from "./ulid.ts";

export interface CallParameters {
  path?: Record<string, unknown>;
  header?: Record<string, unknown>;
}

export function checkParameters(operation: OperationFacts, params: CallParameters | undefined): void {
  for (const { name, ulid } of operation.pathParameters) {
    const value = params?.path?.[name];
    if (ulid ? !isUlid(value) : typeof value !== "string" || value === "" || value === "." || value === "..") {
      const form = ulid ? ULID_FORM : 'a non-empty string other than "." and ".."';
      throw new InvalidInputError(
        name,
        `${where(operation)}: path parameter ${name} must be ${form}, got ${describeValue(value)}`,
      );
    }
  }
  const companyId = params?.header?.["X-Company-Id"];
  if (operation.companyScope && companyId !== undefined && !isUlid(companyId)) {
    throw new InvalidInputError(
      "X-Company-Id",
      `${where(operation)}: header X-Company-Id must be ${ULID_FORM}, got ${describeValue(companyId)}`,
    );
  }
}

function where(operation: OperationFacts): string {
  return `${operation.operationId} (${operation.method} ${operation.path})`;
}
