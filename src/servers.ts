/** Where requests go: an explicit `baseUrl`, or an environment resolved from the contract's servers. */
import { servers } from "../generated/contract.ts";
import { InvalidInputError } from "./errors.ts";

export type Environment = (typeof servers)[number]["environment"];

export const ENVIRONMENTS: readonly Environment[] = servers.map((server) => server.environment);

/** Hosts under the reserved `.invalid` TLD are placeholders: the source names no real host. */
function isPlaceholder(url: URL): boolean {
  return url.hostname === "invalid" || url.hostname.endsWith(".invalid");
}

function parseHttpUrl(value: string, name: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidInputError(
      name,
      `${name} must be an absolute http(s) URL such as "https://api.example.com", got ${JSON.stringify(value)}`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new InvalidInputError(name, `${name} must use http or https, got ${JSON.stringify(value)}`);
  }
  if (url.search || url.hash)
    throw new InvalidInputError(name, `${name} must not carry a query or fragment, got ${JSON.stringify(value)}`);
  return url;
}

/** The server URL of an environment with its variables at their defaults. */
export function environmentUrl(environment: Environment): string {
  const server = servers.find((candidate) => candidate.environment === environment);
  if (!server)
    throw new InvalidInputError(
      "environment",
      `environment must be one of ${ENVIRONMENTS.map((e) => `"${e}"`).join(", ")}, got ${JSON.stringify(environment)}`,
    );
  const variables: Record<string, { default: string }> = server.variables;
  return server.url.replace(/\{([^{}]+)\}/g, (_, name: string) => variables[name]?.default ?? `{${name}}`);
}

/**
 * The base URL for a client: `baseUrl` when given, else the environment's server from the contract.
 * An environment whose server is still a `.invalid` placeholder is refused rather than sent to a fake host.
 */
export function resolveBaseUrl(options: {
  baseUrl?: string | undefined;
  environment?: Environment | undefined;
}): string {
  const { baseUrl, environment } = options;
  if (baseUrl !== undefined && environment !== undefined) {
    throw new InvalidInputError("baseUrl", "pass either baseUrl or environment, not both");
  }
  if (baseUrl !== undefined) {
    if (typeof baseUrl !== "string")
      throw new InvalidInputError("baseUrl", `baseUrl must be a string URL, got ${typeof baseUrl}`);
    return parseHttpUrl(baseUrl, "baseUrl").href.replace(/\/+$/, "");
  }
  if (environment === undefined) {
    throw new InvalidInputError(
      "baseUrl",
      `pass baseUrl (the API address you received with your partner credentials) or environment (${ENVIRONMENTS.map((e) => `"${e}"`).join(" or ")})`,
    );
  }
  const resolved = environmentUrl(environment);
  const url = parseHttpUrl(resolved, "environment");
  if (isPlaceholder(url)) {
    throw new InvalidInputError(
      "environment",
      `environment "${environment}" resolves to ${resolved}, a placeholder: the API description names no host for it. ` +
        `Pass baseUrl with the ${environment} address you received with your partner credentials instead.`,
    );
  }
  return url.href.replace(/\/+$/, "");
}
