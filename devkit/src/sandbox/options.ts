/**
 * The sandbox's options (`startSandbox`, `partner-api sandbox start`), their defaults, and the one check that
 * turns them into settings or names the option that is wrong and what would be right.
 */

import path from "node:path";
import { sandboxRouter } from "../contract/documents.ts";
import { checkedAllowedHosts } from "./boundary.ts";
import { checkedEngineOptions, type EngineOptions } from "./engine-options.ts";
import { receiverUrlRefusal } from "./receivers.ts";
import { FaultBook, type FaultInput, FaultInputError } from "./testmode/faults.ts";

export const DEFAULT_SANDBOX_HOST = "127.0.0.1";
export const DEFAULT_SANDBOX_PORT = 4020;

export {
  DEFAULT_CARD_ISSUING_SECONDS,
  DEFAULT_KYB_REVIEW_SECONDS,
  DEFAULT_SCENARIO_API_KEY,
  DEFAULT_WEBHOOK_TIMEOUT_SECONDS,
  MAX_REQUEST_LOG_SIZE,
  MAX_WEBHOOK_TIMEOUT_SECONDS,
} from "./defaults.ts";

import { DEFAULT_SCENARIO_API_KEY } from "./defaults.ts";

export interface SandboxOptions extends EngineOptions {
  /** Port to listen on; 0 picks a free one. Default 4020. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /**
   * Host names the sandbox answers besides IP addresses, `localhost` and `host` (`.example.test`: that name and
   * every name under it). A request for any other `Host` is refused with 403, so a page of another site cannot
   * reach the sandbox by pointing its own name at this machine (DNS rebinding).
   */
  allowedHosts?: string[];
  /** The same seed gives the same ids and data, run after run. Default 1. */
  seed?: number;
  /** A JSON file the state is kept in (and read back from at start); in memory when omitted. */
  state?: string;
  /** The clock (and so every timed transition and webhook retry wait) runs this many times faster. Default 1. */
  speed?: number;
  /** A webhook receiver registered for every account. */
  webhooks?: { url: string; secret: string };
  /**
   * Receivers in private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7) allowed. Never: the sandbox's
   * own address and port, link-local, metadata, unspecified and multicast addresses (receivers.ts). Default false.
   */
  allowPrivateReceivers?: boolean;
  /** Clock seconds from createCard until the card is Active. Default 10. */
  cardIssuingSeconds?: number;
  /** Clock seconds from submitKybProfile until company.kyb_status_changed with APPROVED. Default 60. */
  kybReviewSeconds?: number;
  /**
   * Real seconds one webhook delivery attempt may take, waiting for a free connection to its receiver included
   * (at most 4 attempts are under way to one receiver); an attempt without an answer by then is a network error,
   * retried on the schedule. Default 10.
   */
  webhookTimeoutSeconds?: number;
  /** The clock's first reading when there is no state to carry on from. Default: now. */
  startTime?: string | Date;
  /** Start with the clock frozen: it moves only when advanced (or resumed). With startTime and seed, the same ids every run. */
  frozen?: boolean;
  /** Sandbox-wide faults, registered at start and again after each reset (the shape of `createFault`'s body). */
  faults?: FaultInput[];
  /**
   * Scenarios to run at start, in order: shipped workflows by workflowId (openapi/workflows/), or Arazzo files (every
   * workflow of the file in order; `file.arazzo.yaml#workflowId` for one of them).
   */
  scenarios?: string[];
  /** The account the start scenarios run as: their `apiKey` input. Default "sandbox". */
  scenarioApiKey?: string;
  /** How many calls the request log keeps of each account, and of the callers without one (0 keeps none). Default 1,000. */
  requestLogSize?: number;
}

/** The options, checked; an error names the option and what would be right. */
export function checkedOptions(options: SandboxOptions) {
  const fail = (message: string): never => {
    throw new TypeError(`startSandbox: ${message}`);
  };
  const known = new Set([
    "port",
    "host",
    "allowedHosts",
    "seed",
    "state",
    "speed",
    "webhooks",
    "allowPrivateReceivers",
    "cardIssuingSeconds",
    "kybReviewSeconds",
    "webhookTimeoutSeconds",
    "startTime",
    "frozen",
    "faults",
    "scenarios",
    "scenarioApiKey",
    "requestLogSize",
  ]);
  for (const key of Object.keys(options))
    if (!known.has(key)) fail(`unknown option "${key}"; known: ${[...known].join(", ")}`);
  const port = options.port ?? DEFAULT_SANDBOX_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`port must be an integer from 0 to 65535, got ${String(options.port)}`);
  const host = options.host ?? DEFAULT_SANDBOX_HOST;
  if (typeof host !== "string" || host === "") fail(`host must be a non-empty string, got ${String(options.host)}`);
  const allowedHosts = checkedAllowedHosts(options.allowedHosts, "startSandbox: allowedHosts");
  const engine = checkedEngineOptions(options, fail);
  if (options.state !== undefined && (typeof options.state !== "string" || options.state === ""))
    fail(`state must be a file path, got ${String(options.state)}`);
  const allowPrivateReceivers = options.allowPrivateReceivers ?? false;
  if (typeof allowPrivateReceivers !== "boolean")
    fail(`allowPrivateReceivers must be true or false, got ${String(options.allowPrivateReceivers)}`);
  if (options.webhooks !== undefined) {
    const why = receiverUrlRefusal(options.webhooks.url, {
      ownPort: () => (port === 0 ? undefined : port),
      allowPrivate: allowPrivateReceivers,
    });
    if (why !== undefined) fail(`webhooks.url ${why}`);
  }
  const faults = options.faults ?? [];
  if (!Array.isArray(faults))
    fail(`faults must be an array of faults (createFault's body), got ${String(options.faults)}`);
  // Registered once here on a book of their own, so what the contract cannot say (an operation, a limit) is
  // refused before anything starts.
  const trial = new FaultBook(0, sandboxRouter().operations, () => 0);
  faults.forEach((fault, index) => {
    const issues = validateAs("createFault", fault);
    if (issues.length > 0) fail(`faults[${index}] ${issues.join("; ")}`);
    try {
      trial.add(fault);
    } catch (error) {
      if (error instanceof FaultInputError) fail(`faults[${index}]: ${error.message}`);
      throw error;
    }
  });
  const scenarios = options.scenarios ?? [];
  if (!Array.isArray(scenarios) || scenarios.some((scenario) => typeof scenario !== "string" || scenario === ""))
    fail(`scenarios must be an array of shipped workflow ids or Arazzo files, got ${describe(options.scenarios)}`);
  const scenarioApiKey = options.scenarioApiKey ?? DEFAULT_SCENARIO_API_KEY;
  if (typeof scenarioApiKey !== "string" || scenarioApiKey === "")
    fail(`scenarioApiKey must be a non-empty string, got ${String(options.scenarioApiKey)}`);
  return {
    ...engine,
    faults,
    scenarios,
    scenarioApiKey,
    port,
    host,
    allowedHosts,
    allowPrivateReceivers,
    ...(options.state !== undefined ? { state: path.resolve(options.state) } : {}),
  };
}

function describe(value: unknown): string {
  return JSON.stringify(value)?.slice(0, 80) ?? String(value);
}

/** What is wrong with `body` as the request body of a control operation, by the contract. */
function validateAs(operationId: string, body: unknown): string[] {
  const operation = sandboxRouter().operations.find((candidate) => candidate.operationId === operationId)!;
  return sandboxRouter()
    .validateBody(operation, "application/json", body)
    .map((issue) => issue.message.replace(/^body\/?/, "").trim() || "is invalid");
}

/** The options as checked, with every default filled in. */
export type SandboxSettings = ReturnType<typeof checkedOptions>;
