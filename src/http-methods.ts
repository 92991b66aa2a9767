/**
 * The HTTP methods an OpenAPI path item can hold as operations, lowercase as they appear as its keys. The one
 * list in the project: the client, the scripts, the benchmarks and the tests import it from here, the devkit from
 * the package root (`import { HTTP_METHODS } from "partner-api-client"`).
 */
export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Whether a path-item key is an operation's method (and not `parameters`, `summary`, an extension…). */
export function isHttpMethod(key: string): key is HttpMethod {
  return (HTTP_METHODS as readonly string[]).includes(key);
}
