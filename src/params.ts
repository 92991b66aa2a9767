/**
 * Checks path parameters before anything is sent: ULIDs where the contract says ULID, and no value that
 * would change the path (empty, `.` or `..`, which URL parsers collapse even when percent-encoded).
 * openapi-fetch's path serializer URL-encodes every value. The client calls this before the request is built.
 */
import { InvalidInputError } from "./errors.ts";
import { operationFor } from "./operations.ts";
import { describeValue, isUlid, ULID_FORM } from "./ulid.ts";

export function checkParameters(
  method: string,
  schemaPath: string,
  params: { path?: Record<string, unknown>; header?: Record<string, unknown> },
): void {
  const operation = operationFor(method, schemaPath);
  if (!operation) return;
  const where = `${operation.operationId} (${operation.method} ${operation.path})`;
  for (const { name, ulid } of operation.pathParameters) {
    const value = params.path?.[name];
    if (ulid) {
      if (!isUlid(value)) {
        throw new InvalidInputError(
          name,
          `${where}: path parameter ${name} must be ${ULID_FORM}, got ${value === undefined ? "nothing" : describeValue(value)}`,
        );
      }
    } else if (typeof value !== "string" || value === "" || value === "." || value === "..") {
      throw new InvalidInputError(
        name,
        `${where}: path parameter ${name} must be a non-empty string other than "." and "..", got ${value === undefined ? "nothing" : describeValue(value)}`,
      );
    }
  }
  const companyId = params.header?.["X-Company-Id"];
  if (operation.companyScope && companyId !== undefined && !isUlid(companyId)) {
    throw new InvalidInputError(
      "X-Company-Id",
      `${where}: header X-Company-Id must be ${ULID_FORM}, got ${describeValue(companyId)}`,
    );
  }
}
