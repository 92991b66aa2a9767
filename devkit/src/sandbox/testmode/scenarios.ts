/**
 * Scenarios: Arazzo workflows run in-process against the sandbox, to bring an account to a state in one go: the
 * shipped ones (openapi/workflows/, by workflowId), a document posted to `runScenario`, or files given at start
 * (`--scenario`). Each call goes through the sandbox's own HTTP handler like any call (validated, logged, firing
 * webhooks), marked as the scenario's by the request object itself, which no client can forge (so faults never
 * strike it), with the clock frozen for the run's length: the same state, seed and clock reading give the same ids.
 */
import type { IncomingMessage } from "node:http";
import type { components } from "../../../generated/sandbox.js";
import { type Catalogue, type ResolvedDocument, resolveArazzo } from "../../arazzo/check.ts";
import {
  type ArazzoDocument,
  readArazzoFile,
  shippedDocuments,
  shippedWorkflows,
  WorkflowError,
} from "../../arazzo/document.ts";
import { type Fetch, runArazzo, type StepCall, type WorkflowRun } from "../../arazzo/runner.ts";
import type { ContractRouter } from "../../contract/router.ts";
import { displayPath } from "../../paths.ts";
import type { SandboxClock } from "../clock.ts";
import { answerInProcess, type RequestListener } from "../in-process.ts";

export type ScenarioRun = components["schemas"]["ScenarioRun"];
export type ShippedScenario = components["schemas"]["ShippedScenario"];

/** Operations a scenario may not call: a run inside a run, and a stream that never ends. */
const NOT_IN_SCENARIOS = new Set(["runScenario", "streamRequests"]);
/** The address in-process calls are made to; it never reaches the network. */
const IN_PROCESS_BASE = "http://127.0.0.1";

/** The sandbox's HTTP handler, as server.ts makes it. */

/** What a run needs of the sandbox: its operations, its clock, and a way to mark its own calls. */
export interface ScenarioHost {
  router: ContractRouter;
  clock: SandboxClock;
  /** Runs what fell due and sets the timer again (after the clock is let go). */
  wake(): Promise<void>;
  /** Marks a request object as a scenario's call (logged under `label`, never faulted). */
  mark(request: IncomingMessage, label: string): void;
}

/** A scenario ready to run: a document resolved against the sandbox, and which of its workflows. */
export interface PreparedScenario {
  label: string;
  document: ResolvedDocument;
  /** One workflow (with what it depends on); every workflow of the document in order when undefined. */
  workflowId?: string;
}

export class ScenarioRunner {
  /** Runs in progress: the clock is held frozen while there is one. */
  private holding = 0;
  /** Whether the runs froze the clock (and so resume it), or found it frozen. */
  private froze = false;
  private listener: RequestListener | undefined;

  private readonly host: ScenarioHost;
  constructor(host: ScenarioHost) {
    this.host = host;
  }

  /** The handler scenario calls go through (set once the sandbox has made it). */
  serveWith(listener: RequestListener): void {
    this.listener = listener;
  }

  private get catalogue(): Catalogue {
    return { router: this.host.router, documents: shippedDocuments(this.host.router) };
  }

  /** The shipped workflows, as `listScenarios` shows them. */
  shipped(): ShippedScenario[] {
    return [...shippedWorkflows(this.host.router).values()].map(({ file, workflow }) => ({
      name: workflow.workflowId,
      ...(workflow.summary !== undefined ? { summary: workflow.summary } : {}),
      ...(workflow.description !== undefined ? { description: workflow.description } : {}),
      document: file,
      steps: workflow.steps.map((step) => ({
        stepId: step.stepId,
        ...(step.operationId !== undefined
          ? { operationId: step.operationId.replace(/^\$sourceDescriptions\.[^.]+\./, "") }
          : {}),
        ...(step.workflowId !== undefined
          ? { workflowId: step.workflowId.replace(/^\$sourceDescriptions\.[^.]+\./, "") }
          : {}),
        ...(step.description !== undefined ? { description: step.description } : {}),
      })),
      outputs: Object.keys(workflow.outputs ?? {}),
      ...(workflow["x-webhooks"] ? { webhooks: workflow["x-webhooks"] } : {}),
    }));
  }

  /** A shipped workflow by id, ready to run; undefined when none has that id. */
  prepareShipped(name: string): PreparedScenario | undefined {
    const found = shippedWorkflows(this.host.router).get(name);
    if (!found) return undefined;
    return {
      label: name,
      document: this.resolve(found.document, `the shipped workflows ${found.file}`),
      workflowId: name,
    };
  }

  /** A posted (or read) document, resolved and checked; a WorkflowError lists everything wrong with it. */
  preparePosted(document: ArazzoDocument, shownAs: string, workflowId?: string): PreparedScenario {
    const resolved = this.resolve(document, shownAs);
    if (workflowId !== undefined && !resolved.workflows.has(workflowId))
      throw new WorkflowError(
        `${shownAs} has no workflow ${JSON.stringify(workflowId)} (its workflows: ${[...resolved.workflows.keys()].join(", ")})`,
      );
    const ids = workflowId !== undefined ? [workflowId] : [...resolved.workflows.keys()];
    return {
      label: `(posted) ${ids.join(", ")}`,
      document: resolved,
      ...(workflowId !== undefined ? { workflowId } : {}),
    };
  }

  /**
   * A `--scenario` entry: a shipped workflow's id, or an Arazzo file (`file.arazzo.yaml`, or `file#workflowId` for
   * one of its workflows), read and checked now so a bad one stops the start before anything listens.
   */
  async prepareEntry(entry: string): Promise<PreparedScenario> {
    const shipped = this.prepareShipped(entry);
    if (shipped) return shipped;
    const hash = entry.lastIndexOf("#");
    const file = hash > 0 ? entry.slice(0, hash) : entry;
    const workflowId = hash > 0 ? entry.slice(hash + 1) : undefined;
    const document = await readArazzoFile(file, this.host.router).catch((error: Error) => {
      if (error instanceof WorkflowError && /cannot read/.test(error.message))
        throw new WorkflowError(
          `${error.message} (a --scenario is a shipped workflow, ${[...shippedWorkflows(this.host.router).keys()].join(", ")}, or an Arazzo file)`,
        );
      throw error;
    });
    const prepared = this.preparePosted(document, `the Arazzo document ${displayPath(file)}`, workflowId);
    return { ...prepared, label: workflowId ?? prepared.label.replace(/^\(posted\) /, "") };
  }

  private resolve(document: ArazzoDocument, shownAs: string): ResolvedDocument {
    const resolved = resolveArazzo(document, shownAs, this.catalogue).orThrow();
    for (const [step, operation] of resolved.operations)
      if (NOT_IN_SCENARIOS.has(operation.operationId))
        throw new WorkflowError(
          `${shownAs}: step ${step.stepId} calls ${operation.operationId}, which a scenario may not call`,
        );
    return resolved;
  }

  /** Runs a prepared scenario in-process, the clock held frozen; `apiKey` is the `apiKey` input unless `inputs` has one. */
  async run(
    prepared: PreparedScenario,
    apiKey: string | undefined,
    inputs: Record<string, unknown> = {},
  ): Promise<ScenarioRun> {
    const listener = this.listener;
    if (!listener) throw new Error("the scenario runner has no handler to call yet");
    const given: Record<string, unknown> = Object.create(null);
    if (apiKey !== undefined) given.apiKey = apiKey;
    for (const [name, value] of Object.entries(inputs)) given[name] = value;
    this.hold();
    let run: WorkflowRun;
    try {
      run = await runArazzo({
        catalogue: this.catalogue,
        document: prepared.document,
        ...(prepared.workflowId !== undefined ? { workflowId: prepared.workflowId } : {}),
        inputs: given,
        baseUrl: IN_PROCESS_BASE,
        fetch: inProcessFetch(listener, (request) => this.host.mark(request, prepared.label)),
        missingInputHint: (name) =>
          name === "apiKey"
            ? ": call runScenario with X-API-Key, or pass inputs.apiKey (the account the steps act for)"
            : "",
      });
    } finally {
      await this.release();
    }
    return { scenario: prepared.label, workflows: run.workflows, steps: run.steps.map(asScenarioStep) };
  }

  private hold(): void {
    if (this.holding++ === 0) {
      this.froze = !this.host.clock.frozen;
      this.host.clock.freeze();
    }
  }

  private async release(): Promise<void> {
    if (--this.holding > 0 || !this.froze) return;
    this.host.clock.resume();
    await this.host.wake();
  }
}

function asScenarioStep(call: StepCall): ScenarioRun["steps"][number] {
  return {
    workflowId: call.workflowId,
    stepId: call.stepId,
    operationId: call.operationId,
    method: call.method,
    path: call.path,
    ...(call.request.body !== undefined ? { request: call.request.body } : {}),
    status: call.status,
    ...(call.body !== undefined ? { body: call.body } : {}),
  };
}

/**
 * A fetch that hands each request to the sandbox's handler in this process (in-process.ts), marked as the
 * scenario's before the handler sees it.
 */
function inProcessFetch(listener: RequestListener, mark: (request: IncomingMessage) => void): Fetch {
  return (url, init) => answerInProcess(listener, new Request(url, init), mark);
}
