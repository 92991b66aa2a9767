/**
 * The stateful sandbox of the partner API: `startSandbox()` serves the whole partner API and the sandbox's
 * control API (`/_sandbox/…`) from their contracts, with state per API key, a clock tests can advance, and
 * signed webhooks with the source's retry schedule. `npm run sandbox` / `partner-api sandbox` run the same.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { paths as ControlPaths } from "../../../generated/sandbox.js";
import type { ArazzoDocument } from "../arazzo/document.ts";
import { checkArazzoShape, WorkflowError } from "../arazzo/document.ts";
import { createDashboard } from "../dashboard/index.ts";
import { displayPath } from "../paths.ts";
import { ATTEMPT_TIMEOUT_MS } from "../webhooks/deliver.ts";
import { checkedAllowedHosts, createBoundary } from "./boundary.ts";
import { CLOCK_RANGE_TEXT, inClockRange, SandboxClock } from "./clock.ts";
import { sandboxRouter } from "./contract.ts";
import { controlClient, type SandboxControl, type SandboxControlOptions } from "./control-client.ts";
import { heapify } from "./due.ts";
import { SandboxEngine } from "./engine.ts";
import { storeChoice } from "./internal.ts";
import { removeStrayTemporaries } from "./journal.ts";
import { createRequestListener } from "./server.ts";
import { emptyState } from "./state.ts";
import {
  JournalStore,
  legacyFileStore,
  loadStateFiles,
  memoryStore,
  SandboxStateError,
  type StateStore,
} from "./store.ts";
import { FaultBook, type FaultInput, FaultInputError } from "./testmode/faults.ts";
import { TestMode } from "./testmode/index.ts";
import { DEFAULT_REQUEST_LOG_SIZE } from "./testmode/log.ts";
import type { PreparedScenario, ScenarioRun } from "./testmode/scenarios.ts";

export { type RunWorkflowOptions, runWorkflow, type StepCall, type WorkflowRunResult } from "../arazzo/index.ts";
export type { ArazzoDocument, ControlPaths, FaultInput, SandboxControl, SandboxControlOptions, ScenarioRun };
export { SandboxStateError, sandboxRouter, WorkflowError };

export const DEFAULT_SANDBOX_HOST = "127.0.0.1";
export const DEFAULT_SANDBOX_PORT = 4020;
export const DEFAULT_CARD_ISSUING_SECONDS = 10;
export const DEFAULT_KYB_REVIEW_SECONDS = 60;
/** Real seconds one webhook delivery attempt may take (the webhook kit's limit, ATTEMPT_TIMEOUT_MS). */
export const DEFAULT_WEBHOOK_TIMEOUT_SECONDS = ATTEMPT_TIMEOUT_MS / 1000;
/** The longest `webhookTimeoutSeconds` allows. */
export const MAX_WEBHOOK_TIMEOUT_SECONDS = 60;
/** The account scenarios given at start run as when neither they nor `scenarioApiKey` name one. */
export const DEFAULT_SCENARIO_API_KEY = "sandbox";
/** The largest request log `requestLogSize` allows. */
export const MAX_REQUEST_LOG_SIZE = 100_000;

export interface SandboxOptions {
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

/** What `Sandbox.runWorkflow` runs: a shipped workflow, or a document's. */
export interface RunWorkflowInSandbox {
  workflowId?: string;
  document?: ArazzoDocument;
  apiKey?: string;
  inputs?: Record<string, unknown>;
}

export interface Sandbox {
  /** Base URL, e.g. http://127.0.0.1:4020 (no trailing slash). */
  url: string;
  port: number;
  /** Typed client of the control API; pass `headers: { "X-API-Key": … }` for account-scoped calls. */
  control: SandboxControl;
  /**
   * The control client with an account's X-API-Key on every call (none when `apiKey` is undefined). With
   * `{ throwOnError: true }`, every call resolves to `{ data, response }` or throws `ApiError`.
   */
  controlFor(apiKey: string | undefined, options: { throwOnError: true }): SandboxControl<true>;
  controlFor(apiKey?: string, options?: { throwOnError?: false }): SandboxControl;
  /**
   * Runs a workflow in-process, as `POST /_sandbox/scenarios` does: a shipped one by `workflowId`, or `document`'s
   * (its `workflowId`, or every workflow of it in order). Its calls go through the sandbox's handler as the
   * scenario's (logged, never faulted), the clock frozen meanwhile; `apiKey` is the `apiKey` input. Rejects with a
   * WorkflowError naming what is wrong with the document, or the step that failed.
   */
  runWorkflow(options: RunWorkflowInSandbox): Promise<ScenarioRun>;
  /** Closes the server, cancels timers and waits for the last state write. */
  stop(): Promise<void>;
}

/**
 * A control client for a sandbox already running (`npx partner-api sandbox`, another process): the same client
 * `controlFor` returns, for its URL.
 */
export function createSandboxControl(
  options: SandboxControlOptions & { url: string; throwOnError: true },
): SandboxControl<true>;
export function createSandboxControl(
  options: SandboxControlOptions & { url: string; throwOnError?: false },
): SandboxControl;
export function createSandboxControl(options: SandboxControlOptions & { url: string }): SandboxControl<boolean> {
  if (!options || typeof options.url !== "string" || !/^https?:\/\/./.test(options.url))
    throw new TypeError(`createSandboxControl: url must be the sandbox's http(s) URL, got ${String(options?.url)}`);
  return controlClient(options.url.replace(/\/+$/, ""), options, sandboxRouter);
}

/** The options, checked; an error names the option and what would be right. */
function checkedOptions(options: SandboxOptions) {
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
  const seed = options.seed ?? 1;
  if (!Number.isSafeInteger(seed) || seed < 0) fail(`seed must be a non-negative integer, got ${String(options.seed)}`);
  const speed = options.speed ?? 1;
  if (typeof speed !== "number" || !Number.isFinite(speed) || speed <= 0)
    fail(`speed must be a number above 0, got ${String(options.speed)}`);
  for (const name of ["cardIssuingSeconds", "kybReviewSeconds"] as const) {
    const value = options[name];
    if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value < 0))
      fail(`${name} must be a number of seconds, 0 or more, got ${String(value)}`);
  }
  const webhookTimeoutSeconds = options.webhookTimeoutSeconds ?? DEFAULT_WEBHOOK_TIMEOUT_SECONDS;
  if (
    typeof webhookTimeoutSeconds !== "number" ||
    !Number.isFinite(webhookTimeoutSeconds) ||
    webhookTimeoutSeconds <= 0 ||
    webhookTimeoutSeconds > MAX_WEBHOOK_TIMEOUT_SECONDS
  )
    fail(
      `webhookTimeoutSeconds must be a number of seconds above 0, at most ${MAX_WEBHOOK_TIMEOUT_SECONDS}, got ${String(options.webhookTimeoutSeconds)}`,
    );
  if (options.state !== undefined && (typeof options.state !== "string" || options.state === ""))
    fail(`state must be a file path, got ${String(options.state)}`);
  if (options.webhooks !== undefined) {
    const { url, secret } = options.webhooks;
    if (typeof url !== "string" || !/^https?:\/\/./.test(url))
      fail(`webhooks.url must be an http(s) URL, got ${String(url)}`);
    if (typeof secret !== "string" || secret === "") fail("webhooks.secret must be a non-empty string");
  }
  const startMs = options.startTime === undefined ? Date.now() : new Date(options.startTime).getTime();
  if (Number.isNaN(startMs)) fail(`startTime must be an ISO 8601 time, got ${String(options.startTime)}`);
  if (!inClockRange(startMs))
    fail(`startTime must be ${CLOCK_RANGE_TEXT} (the sandbox clock's range), got ${String(options.startTime)}`);
  if (options.frozen !== undefined && typeof options.frozen !== "boolean")
    fail(`frozen must be true or false, got ${String(options.frozen)}`);
  const requestLogSize = options.requestLogSize ?? DEFAULT_REQUEST_LOG_SIZE;
  if (!Number.isInteger(requestLogSize) || requestLogSize < 0 || requestLogSize > MAX_REQUEST_LOG_SIZE)
    fail(
      `requestLogSize must be a whole number from 0 to ${MAX_REQUEST_LOG_SIZE}, got ${String(options.requestLogSize)}`,
    );
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
    frozen: options.frozen ?? false,
    requestLogSize,
    faults,
    scenarios,
    scenarioApiKey,
    port,
    host,
    allowedHosts,
    seed,
    speed,
    startMs,
    cardIssuingSeconds: options.cardIssuingSeconds ?? DEFAULT_CARD_ISSUING_SECONDS,
    kybReviewSeconds: options.kybReviewSeconds ?? DEFAULT_KYB_REVIEW_SECONDS,
    webhookTimeoutMs: webhookTimeoutSeconds * 1000,
    ...(options.state !== undefined ? { state: path.resolve(options.state) } : {}),
    ...(options.webhooks ? { webhooks: { url: options.webhooks.url, secret: options.webhooks.secret } } : {}),
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

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const settings = checkedOptions(options);
  if (settings.state) removeStrayTemporaries(settings.state);
  const loaded = settings.state ? loadStateFiles(settings.state, displayPath(settings.state)) : undefined;
  const saved = loaded?.state;
  if (saved && saved.seed !== settings.seed && options.seed !== undefined)
    throw new SandboxStateError(
      `sandbox state file ${displayPath(settings.state!)} was written with seed ${saved.seed}, not ${settings.seed}; it was left untouched (drop --seed or pass --seed ${saved.seed})`,
    );
  const state = saved ?? emptyState(settings.seed, settings.startMs);
  const clock = new SandboxClock(saved ? Date.parse(saved.clock) : settings.startMs, settings.speed);
  // Start scenarios run at the start reading itself (so a fixed startTime and seed give the same ids every run).
  if (settings.frozen || settings.scenarios.length > 0) clock.freeze();
  let baseUrl = "";
  // The engine, once made: a compaction at start (a version 1 file) comes before it.
  let engineOf: SandboxEngine | undefined;
  const journal =
    settings.state && !storeChoice.legacy
      ? new JournalStore({
          file: settings.state,
          shownAs: displayPath(settings.state),
          state,
          clock: () => clock.iso(),
          loaded,
          reload: () => {
            // The state as the files hold it, in place of the one in memory (whose last change was not saved).
            const again = loadStateFiles(settings.state!, displayPath(settings.state!));
            if (!again) return;
            for (const key of Object.keys(state)) delete (state as unknown as Record<string, unknown>)[key];
            Object.assign(state, again.state);
            heapify(state.tasks);
          },
          // With the tasks of deliveries under way, so a restart makes those attempts again.
          snapshotTasks: () => (engineOf ? engineOf.snapshot().tasks : state.tasks.slice()),
        })
      : undefined;
  await journal?.start();
  const legacy =
    settings.state && storeChoice.legacy
      ? legacyFileStore(settings.state, () => {
          state.clock = clock.iso();
          return state;
        })
      : undefined;
  const store: StateStore = journal ?? legacy ?? memoryStore;
  const engine = new SandboxEngine(state, clock, store, {
    seed: state.seed,
    cardIssuingSeconds: settings.cardIssuingSeconds,
    kybReviewSeconds: settings.kybReviewSeconds,
    webhookTimeoutMs: settings.webhookTimeoutMs,
    ...(settings.webhooks ? { webhooks: settings.webhooks } : {}),
    baseUrl: () => baseUrl,
  });
  engineOf = engine;
  const router = sandboxRouter();
  const testMode = new TestMode(engine, router, {
    seed: state.seed,
    requestLogSize: settings.requestLogSize,
    faults: settings.faults,
  });
  // A scenario's file is read (and checked) before the sandbox listens, so a bad one stops nothing running.
  const startScenarios: PreparedScenario[] = [];
  for (const entry of settings.scenarios) startScenarios.push(await testMode.scenarios.prepareEntry(entry));
  const listener = createRequestListener(router, engine, testMode);
  testMode.scenarios.serveWith(listener);
  // The dashboard answers a browser at / and its own files; every other request is the API's. Neither sees
  // a request for another host, nor one to the control API or the dashboard from another origin.
  const boundary = createBoundary(settings.host, settings.allowedHosts);
  const dashboard = createDashboard();
  const server = createServer((request, response) => {
    if (boundary.refuse(request, response)) return;
    if (!dashboard.handle(request, response)) listener(request, response);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(settings.port, settings.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost =
    settings.host === "0.0.0.0" || settings.host === "::"
      ? "127.0.0.1"
      : settings.host.includes(":")
        ? `[${settings.host}]`
        : settings.host;
  baseUrl = `http://${shownHost}:${port}`;
  // Work that fell due while the sandbox was down runs now, as it would have on a real clock.
  engine.runDueNow().catch(() => undefined);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await engine.stop();
      await store.close?.();
    })();
    return stopping;
  };
  try {
    for (const scenario of startScenarios) await testMode.scenarios.run(scenario, settings.scenarioApiKey);
  } catch (error) {
    await stop();
    throw error;
  }
  if (settings.scenarios.length > 0 && !settings.frozen) {
    clock.resume();
    await engine.runDueNow();
  }

  const controlFor = ((apiKey?: string, options: { throwOnError?: boolean } = {}) =>
    controlClient(
      baseUrl,
      { ...(apiKey !== undefined ? { apiKey } : {}), ...options },
      sandboxRouter,
    )) as Sandbox["controlFor"];
  const runWorkflow = async ({ workflowId, document, apiKey, inputs }: RunWorkflowInSandbox): Promise<ScenarioRun> => {
    let prepared: PreparedScenario | undefined;
    if (document !== undefined)
      prepared = testMode.scenarios.preparePosted(
        checkArazzoShape(document, "the document", router),
        "the document",
        workflowId,
      );
    else {
      prepared = workflowId === undefined ? undefined : testMode.scenarios.prepareShipped(workflowId);
      if (!prepared)
        throw new WorkflowError(
          `runWorkflow: workflowId must be a shipped workflow (${testMode.scenarios
            .shipped()
            .map((scenario) => scenario.name)
            .join(", ")}) or come with a document, got ${JSON.stringify(workflowId)}`,
        );
    }
    return testMode.scenarios.run(prepared, apiKey, inputs);
  };
  return { url: baseUrl, port, control: controlFor(), controlFor, runWorkflow, stop };
}
