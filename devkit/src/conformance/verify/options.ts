/** verify's options and report (its public shape), its defaults, and the names `--id` takes. */
import { readFileSync } from "node:fs";
import { ContractRouter } from "../../contract/router.ts";
import { contractJsonPath } from "../../paths.ts";
import { CHECKS } from "../checks.ts";
import type { PhaseId } from "../coverage.ts";
import { valueName } from "../links.ts";
import type { Exchange, Failure, Probe, Skip } from "../types.ts";

export interface VerifyOptions {
  baseUrl: string;
  apiKey: string;
  /** A second account's key: turns on the isolation checks. */
  otherApiKey?: string;
  /** The company to act for first (before those listCompanies lists). */
  companyId?: string;
  /** Without it the run sends no request that could change data. */
  allowWrites?: boolean;
  /** Turns on max_response_time. */
  maxResponseTimeMs?: number;
  /** The checks to judge with (ids); all but max_response_time when omitted. */
  checks?: ReadonlySet<string>;
  /** The same seed sends the same requests. Default 1. */
  seed?: number;
  /** At most this many requests (setup calls to the control API not counted). Default 2000. */
  maxRequests?: number;
  /** Requests generated from the schemas per operation, beside the contract's examples. Default 2. */
  generated?: number;
  /** The signing secret of the receiver registered with the service for --api-key's account (without the sandbox's control API). */
  webhookSecret?: string;
  /** The same for --other-api-key's account: its receiver is `<receiver>/other`. */
  otherWebhookSecret?: string;
  webhookHost?: string;
  webhookPort?: number;
  /** How long to wait for expected webhook deliveries. Default 10 s. */
  webhookWaitMs?: number;
  /** Ids to use, by value name (`cardHolderId`, `routeId`, `walletId`, `transactionId`, `cardId`). */
  ids?: ReadonlyMap<string, string>;
  /** The contract (a bundled OpenAPI document); the devkit's own when omitted. */
  document?: Record<string, unknown>;
  onProgress?: (message: string) => void;
  /** Called with each request and its answer, in the order sent. */
  onExchange?: (exchange: Exchange) => void;
  /** Stops the run (Ctrl-C): what was done is reported, marked as stopped. */
  signal?: AbortSignal;
  /** The whole run's limit: past it, nothing more is sent and the report says so. Default 30 minutes. */
  maxDurationMs?: number;
  /**
   * The share of the operations the options allow (reads; writes too with allowWrites) that must be exercised with
   * a request that should succeed, from 0 to 1; below it the run fails ("could not check"). Default 1.
   */
  minCoverage?: number;
  /** The phases to run (coverage.ts's PHASES); every one when omitted. `coverage` builds on `examples`. */
  phases?: ReadonlySet<PhaseId>;
  /** The coverage phase's requests per operation at most. Default DEFAULT_COVERAGE_PER_OPERATION. */
  coveragePerOperation?: number;
}

export interface VerifyReport {
  baseUrl: string;
  seed: number;
  /** Whether the target served the sandbox's control API. */
  sandboxControl: boolean;
  summary: {
    operations: number;
    operationsInContract: number;
    requests: number;
    failures: number;
    warnings: number;
    skipped: number;
    deliveries: number;
    durationMs: number;
  };
  /** Error-level failures: any of them makes the run fail. */
  failures: Failure[];
  warnings: Failure[];
  skipped: Skip[];
  /** The checks judged with. */
  checks: string[];
  /** Requests sent per operation (webhook event types: deliveries received). */
  coverage: Record<string, number>;
  /** Requests sent per operation and kind (positive, negative, no-auth…): the operations × checks table. */
  matrix: Record<string, Partial<Record<Probe["kind"], number>>>;
  /**
   * Operations the options allow (reads, and writes with --allow-writes) never exercised with a request that should
   * succeed, each with why; when their share is over 1 - minCoverage the run fails ("could not check").
   */
  notExercised: Skip[];
  /** The share of the allowed operations exercised with a request that should succeed, and the bar it had to reach. */
  exercised: { share: number; operations: number; allowed: number; minCoverage: number };
  /** True when too few operations were exercised to stand behind a verdict (exit 1, "could not check"). */
  couldNotCheck: boolean;
  /** Why the run stopped before its end (`--max-duration`, Ctrl-C); absent when it ran to the end. */
  stopped?: string;
  /**
   * What the run changed on the target beyond the data its requests made, and what it undid: the sandbox's shared
   * clock moved by the workflows, verify's webhook receivers registered and removed.
   */
  changes: string[];
  /** The phases that ran (examples, coverage). */
  phases?: PhaseId[];
}

export const DEFAULT_MAX_REQUESTS = 2000;
/**
 * The whole run's default limit: a full run (2,000 requests at most) against a service answering in 0.9 s on
 * average. A server that drips its answers costs a request its 30 s, and so at most this much in all.
 */
export const DEFAULT_MAX_DURATION_MS = 30 * 60_000;
export const DEFAULT_WEBHOOK_WAIT_MS = 10_000;
export function defaultChecks(): Set<string> {
  return new Set(CHECKS.filter((check) => check.id !== "max_response_time").map((check) => check.id));
}

export function loadDefaultDocument(): Record<string, unknown> {
  return JSON.parse(readFileSync(contractJsonPath, "utf8")) as Record<string, unknown>;
}

/** The `--id` names: every value a path parameter of the contract takes (a company's is --company-id). */
export function idNames(document: Record<string, unknown> = loadDefaultDocument()): string[] {
  const router = new ContractRouter([{ api: "partner", document }]);
  const names = new Set<string>();
  for (const operation of router.operations)
    for (const parameter of operation.parameters) if (parameter.in === "path") names.add(valueName(parameter));
  return [...names].sort();
}
