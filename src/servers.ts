/** Where requests go: an explicit `baseUrl`, or an environment resolved from the contract's servers. */
import { servers } from "../generated/contract.ts";
import { InvalidInputError } from "./errors.ts";
import { fail } from "./input.ts";

export type Environment = keyof typeof servers;

export const ENVIRONMENTS = Object.keys(servers) as readonly Environment[];

const CREDENTIALS = "the API address you received with your partner credentials";
const HTTP_URL = 'an absolute http(s) URL without query or fragment, such as "https://api.example.com"';

/** `value` without a trailing slash when it is an absolute http(s) URL without query or fragment. */
function parseHttpUrl(value: unknown, name: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value as string);
  } catch {}
  return typeof value === "string" && url && /^https?:$/.test(url.protocol) && !url.search && !url.hash
    ? url.href.replace(/\/+$/, "")
    : fail(name, name, HTTP_URL, value);
}

/**
 * The base URL for a client: `baseUrl` when given, else the environment's server from the contract.
 * An environment whose server is still a `.invalid` placeholder (the reserved TLD: the source names no real
 * host) is refused rather than sent to a fake host.
 */
export function resolveBaseUrl({
  baseUrl,
  environment,
}: {
  baseUrl?: string | undefined;
  environment?: Environment | undefined;
}): string {
  const choices = `one of ${ENVIRONMENTS.map((e) => `"${e}"`).join(", ")}`;
  if (environment === undefined) {
    if (baseUrl === undefined)
      throw new InvalidInputError("baseUrl", `pass baseUrl (${CREDENTIALS}) or environment (${choices})`);
    return parseHttpUrl(baseUrl, "baseUrl");
  }
  if (baseUrl !== undefined) throw new InvalidInputError("baseUrl", "pass either baseUrl or environment, not both");
  const resolved = Object.hasOwn(servers, environment)
    ? servers[environment]
    : fail("environment", "environment", choices, environment);
  const url = parseHttpUrl(resolved, "environment");
  if (/(^|\.)invalid$/.test(new URL(url).hostname))
    throw new InvalidInputError(
      "environment",
      `environment "${environment}" resolves to ${resolved}, a placeholder: the API description names no host for it. Pass baseUrl (${CREDENTIALS}) instead.`,
    );
  return url;
}
