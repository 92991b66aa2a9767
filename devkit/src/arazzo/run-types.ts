/**
 * What a run of the Arazzo runner takes and gives (its options, bounds, calls and outputs) and what it holds while
 * it runs (a workflow's frame, the call under way): shared by runner.ts, call.ts and scope.ts.
 */
import type { Operation } from "../contract/router.ts";
import type { ArazzoWorkflow } from "./document.ts";
import { type Catalogue, type CheckLimits, DEFAULT_CHECK_LIMITS, type ResolvedDocument } from "./model.ts";

export interface RunLimits extends CheckLimits {
  /** Calls a run makes at most, retries and nested workflows included. */
  maxCalls: number;
  /** Bytes of one answer read at most. */
  maxAnswerBytes: number;
  /** Bytes of requests and answers a run keeps (and returns) in all. */
  maxKeptBytes: number;
  /** How deep workflows run workflows. */
  maxDepth: number;
  /** Real milliseconds one call may take. */
  callTimeoutMs: number;
}

export const DEFAULT_RUN_LIMITS: RunLimits = {
  ...DEFAULT_CHECK_LIMITS,
  maxCalls: 1000,
  maxAnswerBytes: 2 * 1024 * 1024,
  maxKeptBytes: 8 * 1024 * 1024,
  maxDepth: 8,
  callTimeoutMs: 30_000,
};

/** One call a run made: the step, the request (secrets masked) and the answer. */
export interface StepCall {
  workflowId: string;
  stepId: string;
  operationId: string;
  method: string;
  /** The path called, parameters filled in, with its query string. */
  path: string;
  url: string;
  request: { headers: Record<string, string>; body?: unknown };
  status: number;
  headers: Record<string, string>;
  /** The answer's body: parsed JSON, or text; absent when empty. */
  body?: unknown;
}

/** What a run did: each workflow that ended, with its outputs, and every call in order. */
export interface WorkflowRun {
  workflows: { workflowId: string; outputs: Record<string, unknown> }[];
  steps: StepCall[];
}

/** Which step a call is for, handed to the run's fetch with the request (a fetch may ignore it). */
export interface CallContext {
  workflowId: string;
  stepId: string;
  operationId: string;
  /** The API the operation belongs to: the partner API or the sandbox's control API. */
  api: Operation["api"];
}

/**
 * A fetch as the runner calls it: the global one, or one over the sandbox's handler, or a caller's that judges each
 * answer as it arrives (verify's). The third argument says which step the call is for.
 */
export type Fetch = (url: string, init: RequestInit, call: CallContext) => Promise<Response>;

/** Where and how a run calls: what `runArazzo` and the public `runWorkflow` take alike. */
export interface RunTarget {
  /** Inputs by name, given to every workflow the run starts (a step running a workflow passes its own too). */
  inputs?: Record<string, unknown>;
  /** Where every source's operations are called, e.g. http://127.0.0.1:4020. */
  baseUrl: string;
  /** A base URL per source description name (`partner`, `sandbox`), over `baseUrl`. */
  servers?: Record<string, string>;
  fetch?: Fetch;
  limits?: Partial<RunLimits>;
  signal?: AbortSignal;
  /** Told of each call once answered (progress). */
  onCall?: (call: StepCall) => void;
  /** Told of each workflow that ends, nested ones included, with its outputs (before any later step can fail). */
  onWorkflowEnd?: (workflow: { workflowId: string; outputs: Record<string, unknown> }) => void;
}

export interface RunOptions extends RunTarget {
  catalogue: Catalogue;
  /** The document, resolved (its issues make the run refuse to start). */
  document: ResolvedDocument;
  /** The workflow to run (with what it depends on); every workflow of the document in order when undefined. */
  workflowId?: string;
  /** Said after a required input is missing, to tell the caller how to give it. */
  missingInputHint?: (name: string) => string;
}
/** What one workflow run holds while it runs: its inputs and its steps' outputs. */
export interface Frame {
  resolved: ResolvedDocument;
  workflow: ArazzoWorkflow;
  inputs: Map<string, unknown>;
  steps: Map<string, Map<string, unknown>>;
}

/** Outputs of each workflow that ended in a run, by document and id, for `$workflows.<id>.outputs` and dependsOn. */
export type EndedWorkflows = Map<ResolvedDocument, Map<string, Map<string, unknown>>>;

/** The call under way, for `$statusCode`, `$response…`, `$request…`, `$url`, `$method`. */
export interface Exchange {
  url: string;
  method: string;
  pathParams: Map<string, string>;
  query: URLSearchParams;
  requestHeaders: Map<string, string>;
  requestBody: unknown;
  status: number;
  headers: Headers;
  body: unknown;
}
