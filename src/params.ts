/**
 * Checks path parameters before anything is sent: ULIDs where the contract says ULID, and no value that
 * would change the path (empty, `.` or `..`, which URL parsers collapse even when percent-encoded).
 * openapi-fetch's path serializer URL-encodes every value. The client calls this before the request is built.
 */
import { fail } from "./input.ts";
import type { OperationFacts } from "./operations.ts";
import { isUlid, ULID_FORM } from "./ulid.ts";

export interface CallParameters {
  path?: Record<string, unknown>;
  header?: Record<string, unknown>;
}

export function checkParameters(
  operation: OperationFacts,
  method: string,
  path: string,
  params: CallParameters | undefined,
): void {
  const pathParameters = operation[4];
  for (const name in pathParameters) {
    const value = params?.path?.[name];
    if (
      pathParameters[name]
        ? !isUlid(value)
        : typeof value !== "string" || value === "" || value === "." || value === ".."
    )
      fail(
        name,
        `path parameter ${name}`,
        pathParameters[name] ? ULID_FORM : 'a non-empty string other than "." and ".."',
        value,
        where(operation, method, path),
      );
  }
  const companyId = params?.header?.["X-Company-Id"];
  if (operation[2] && companyId !== undefined && !isUlid(companyId))
    fail("X-Company-Id", "header X-Company-Id", ULID_FORM, companyId, where(operation, method, path));
}

function where(operation: OperationFacts, method: string, path: string): string {
  return `${operation[0]} (${method} ${path}): `;
}
