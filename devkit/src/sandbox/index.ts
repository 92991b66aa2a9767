/**
 * The stateful sandbox of the partner API: `startSandbox()` serves the whole partner API and the sandbox's
 * control API (`/_sandbox/…`) from their contracts, with state per API key, a clock tests can advance, and
 * signed webhooks with the source's retry schedule. `npm run sandbox` / `partner-api sandbox` run the same.
 * The package's public surface, listed: what is built lives in compose.ts, the options in options.ts.
 */
import type { paths as ControlPaths } from "../../generated/sandbox.js";
import { type ArazzoDocument, WorkflowError } from "../arazzo/document.ts";
import { sandboxRouter } from "../contract/documents.ts";
import { type Sandbox, startSandboxWith } from "./compose.ts";
import { controlClient, type SandboxControl, type SandboxControlOptions } from "./control-client.ts";
import type { SandboxOptions } from "./options.ts";
import { SandboxStateError } from "./store/state-file.ts";
import type { FaultInput } from "./testmode/faults.ts";
import type { ScenarioRun } from "./testmode/scenarios.ts";

export { type RunWorkflowOptions, runWorkflow, type StepCall, type WorkflowRunResult } from "../arazzo/index.ts";
export { sandboxRouter } from "../contract/documents.ts";
export type { RunWorkflowInSandbox, Sandbox } from "./compose.ts";
export {
  DEFAULT_CARD_ISSUING_SECONDS,
  DEFAULT_KYB_REVIEW_SECONDS,
  DEFAULT_SANDBOX_HOST,
  DEFAULT_SANDBOX_PORT,
  DEFAULT_SCENARIO_API_KEY,
  DEFAULT_WEBHOOK_TIMEOUT_SECONDS,
  MAX_REQUEST_LOG_SIZE,
  MAX_WEBHOOK_TIMEOUT_SECONDS,
  type SandboxOptions,
} from "./options.ts";
export type { ArazzoDocument, ControlPaths, FaultInput, SandboxControl, SandboxControlOptions, ScenarioRun };
export { SandboxStateError, WorkflowError };

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

/** Starts a sandbox: resolves once it listens (and its start scenarios have run). */
export function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return startSandboxWith(options);
}
