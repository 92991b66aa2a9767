/** The options of `createSandboxHandlers`, checked: a bad one throws a TypeError naming it and what it takes. */
import { checkedEngineOptions, type EngineOptions } from "../sandbox/engine-options.ts";

export interface SandboxHandlersOptions extends EngineOptions {
  /**
   * Where the handlers answer (no trailing slash): the partner API under it, the control API under
   * `${baseUrl}/_sandbox`. Default: the contract's sandbox server address, a placeholder under the reserved
   * `.invalid` domain, so nothing real is ever reached by mistake (DEFAULT_BASE_URL).
   */
  baseUrl?: string;
  /** The same seed gives the same ids and data, run after run. Default 1. */
  seed?: number;
  /** The clock's first reading. Default: now. */
  startTime?: string | Date;
  /** Start with the clock frozen: it moves only when advanced (or resumed). With startTime and seed, the same ids every run. */
  frozen?: boolean;
  /** The clock (and every timed transition and webhook retry wait) runs this many times faster. Default 1. */
  speed?: number;
  /** A webhook receiver registered for every account. */
  webhooks?: { url: string; secret: string };
  /** Clock seconds from createCard until the card is Active. Default 10. */
  cardIssuingSeconds?: number;
  /** Clock seconds from submitKybProfile until company.kyb_status_changed with APPROVED. Default 60. */
  kybReviewSeconds?: number;
  /** Real seconds one webhook delivery attempt may take. Default 10. */
  webhookTimeoutSeconds?: number;
  /** How many calls the request log keeps of each account (0 keeps none). Default 1,000. */
  requestLogSize?: number;
}

const KNOWN = [
  "baseUrl",
  "seed",
  "startTime",
  "frozen",
  "speed",
  "webhooks",
  "cardIssuingSeconds",
  "kybReviewSeconds",
  "webhookTimeoutSeconds",
  "requestLogSize",
];

/** The contract's sandbox server (`x-environment: sandbox`): its address, the variable's default. */
export function contractSandboxUrl(partner: Record<string, unknown>): string {
  const servers = (partner.servers ?? []) as {
    url: string;
    "x-environment"?: string;
    variables?: Record<string, { default: string }>;
  }[];
  const server = servers.find((each) => each["x-environment"] === "sandbox");
  if (!server) throw new Error("the partner contract names no sandbox server (x-environment: sandbox)");
  return server.url
    .replace(/\{(\w+)\}/g, (_, name: string) => server.variables?.[name]?.default ?? "")
    .replace(/\/+$/, "");
}

export let DEFAULT_BASE_URL = "";

export function checkedHandlerOptions(options: SandboxHandlersOptions, partner: Record<string, unknown>) {
  DEFAULT_BASE_URL ||= contractSandboxUrl(partner);
  const fail = (message: string): never => {
    throw new TypeError(`createSandboxHandlers: ${message}`);
  };
  if (options === null || typeof options !== "object") fail(`options must be an object, got ${String(options)}`);
  for (const key of Object.keys(options))
    if (!KNOWN.includes(key)) fail(`unknown option "${key}"; known: ${KNOWN.join(", ")}`);
  const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
  let parsed: URL | undefined;
  try {
    parsed = typeof baseUrl === "string" ? new URL(baseUrl) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.search !== "" || parsed.hash !== "")
    fail(`baseUrl must be an http(s) URL without query or fragment, got ${String(options.baseUrl)}`);
  const engine = checkedEngineOptions(options, fail);
  return { baseUrl: (baseUrl as string).replace(/\/+$/, ""), ...engine };
}
